// Texture objects over 2D arrays: float texels read with point sampling at texel centres
// and bilinear filtering between them, clamped addressing outside; uchar4 texels read as
// normalized floats. Checked against the values the host wrote.
#include "check.h"
#include <cmath>

__global__ void sample(cudaTextureObject_t t, float* out, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}

__global__ void between(cudaTextureObject_t t, float* out) {
    // Halfway between texels (0,0) and (1,0), and a point left of the texture (clamped).
    out[0] = tex2D<float>(t, 1.0f, 0.5f);
    out[1] = tex2D<float>(t, -3.0f, 0.5f);
}

__global__ void sample_rgba(cudaTextureObject_t t, float4* out) {
    out[threadIdx.x] = tex2D<float4>(t, threadIdx.x + 0.5f, 0.5f);
}

int main() {
    const int w = 16, h = 8;
    float host[w * h];
    for (int i = 0; i < w * h; i++) host[i] = float(i * 3 % 17);
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &desc, w, h));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    float back[w * h];
    CHECK(cudaMemcpy2DFromArray(back, w * sizeof(float), arr, 0, 0, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * h; i++) EXPECT(back[i] == host[i], "array round trip [%d]", i);

    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t point;
    CHECK(cudaCreateTextureObject(&point, &res, &td, nullptr));
    float* d;
    CHECK(cudaMalloc(&d, sizeof(host)));
    sample<<<h, w>>>(point, d, w, h);
    CHECK_LAUNCH();
    float got[w * h];
    CHECK(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * h; i++) EXPECT(got[i] == host[i], "point sample [%d] = %f, want %f", i, got[i], host[i]);

    td.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t linear;
    CHECK(cudaCreateTextureObject(&linear, &res, &td, nullptr));
    between<<<1, 1>>>(linear, d);
    CHECK_LAUNCH();
    float two[2];
    CHECK(cudaMemcpy(two, d, sizeof(two), cudaMemcpyDeviceToHost));
    float mid = 0.5f * (host[0] + host[1]);
    // Filtering weights have 8 fractional bits in CUDA; 1/256 of the difference bounds it.
    EXPECT(std::fabs(two[0] - mid) <= std::fabs(host[1] - host[0]) / 256.0f + 1e-6f, "linear %f, want %f", two[0], mid);
    EXPECT(two[1] == host[0], "clamped %f, want %f", two[1], host[0]);

    uchar4 rgba[w];
    for (int i = 0; i < w; i++) rgba[i] = make_uchar4(i * 16, 255 - i, 0, 255);
    cudaChannelFormatDesc d4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t arr4;
    CHECK(cudaMallocArray(&arr4, &d4, w, 1));
    CHECK(cudaMemcpy2DToArray(arr4, 0, 0, rgba, sizeof(rgba), sizeof(rgba), 1, cudaMemcpyHostToDevice));
    res.res.array.array = arr4;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t norm;
    CHECK(cudaCreateTextureObject(&norm, &res, &td, nullptr));
    float4* d4out;
    CHECK(cudaMalloc(&d4out, w * sizeof(float4)));
    sample_rgba<<<1, w>>>(norm, d4out);
    CHECK_LAUNCH();
    float4 g4[w];
    CHECK(cudaMemcpy(g4, d4out, sizeof(g4), cudaMemcpyDeviceToHost));
    for (int i = 0; i < w; i++) {
        EXPECT(std::fabs(g4[i].x - rgba[i].x / 255.0f) < 1e-6f && std::fabs(g4[i].y - rgba[i].y / 255.0f) < 1e-6f &&
                   g4[i].z == 0.0f && g4[i].w == 1.0f,
               "rgba %d = (%f, %f, %f, %f)", i, g4[i].x, g4[i].y, g4[i].z, g4[i].w);
    }
    CHECK(cudaDestroyTextureObject(point));
    CHECK(cudaDestroyTextureObject(linear));
    CHECK(cudaDestroyTextureObject(norm));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFreeArray(arr4));
    std::printf("textures: ok\n");
    return 0;
}
