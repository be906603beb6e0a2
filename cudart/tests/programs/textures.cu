// Texture objects over 2D arrays: float texels read with point sampling at texel centres
// and bilinear filtering between them, clamped addressing outside; uchar4 texels read as
// normalized floats. Over linear memory: tex1Dfetch of int and float4 elements. Over pitched
// memory: tex2D with point and linear filtering and clamping, equal to the same texels in an
// array, and following writes to the memory between launches. Checked against the values the
// host wrote.
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

__global__ void fetch_int(cudaTextureObject_t t, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, n - 1 - i);
}

__global__ void fetch_float4(cudaTextureObject_t t, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = tex1Dfetch<float4>(t, i);
        out[i] = make_float4(v.w, v.z, v.y, v.x);
    }
}

__global__ void sample_at(cudaTextureObject_t t, const float2* at, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

__global__ void scale(float* mem, size_t pitch, int w, int h, float by) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) {
        float* row = (float*)((char*)mem + y * pitch);
        row[x] *= by;
    }
}

// Samples `t` at `n` points and returns the results.
static void sample_points(cudaTextureObject_t t, const float2* at_d, float* out_d, float* out, int n) {
    sample_at<<<1, n>>>(t, at_d, out_d, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out, out_d, n * sizeof(float), cudaMemcpyDeviceToHost));
}

static void linear_memory() {
    const int n = 1000;
    int ints[n];
    for (int i = 0; i < n; i++) ints[i] = i * 7919 - 500000;
    int* ints_d;
    CHECK(cudaMalloc(&ints_d, sizeof(ints)));
    CHECK(cudaMemcpy(ints_d, ints, sizeof(ints), cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = ints_d;
    res.res.linear.desc = cudaCreateChannelDesc<int>();
    res.res.linear.sizeInBytes = sizeof(ints);
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t ti;
    CHECK(cudaCreateTextureObject(&ti, &res, &td, nullptr));
    int* got_d;
    CHECK(cudaMalloc(&got_d, sizeof(ints)));
    fetch_int<<<(n + 255) / 256, 256>>>(ti, got_d, n);
    CHECK_LAUNCH();
    int got[n];
    CHECK(cudaMemcpy(got, got_d, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(got[i] == ints[n - 1 - i], "tex1Dfetch<int>(%d) = %d, want %d", n - 1 - i, got[i], ints[n - 1 - i]);

    float4 f4[n];
    for (int i = 0; i < n; i++) f4[i] = make_float4(i * 0.5f, -i * 0.25f, 1e20f * i, 1.0f / (i + 1));
    float4 *f4_d, *f4_out;
    CHECK(cudaMalloc(&f4_d, sizeof(f4)));
    CHECK(cudaMalloc(&f4_out, sizeof(f4)));
    CHECK(cudaMemcpy(f4_d, f4, sizeof(f4), cudaMemcpyHostToDevice));
    res.res.linear.devPtr = f4_d;
    res.res.linear.desc = cudaCreateChannelDesc<float4>();
    res.res.linear.sizeInBytes = sizeof(f4);
    cudaTextureObject_t tf;
    CHECK(cudaCreateTextureObject(&tf, &res, &td, nullptr));
    cudaResourceDesc back = {};
    CHECK(cudaGetTextureObjectResourceDesc(&back, tf));
    EXPECT(back.resType == cudaResourceTypeLinear && back.res.linear.devPtr == f4_d &&
               back.res.linear.sizeInBytes == sizeof(f4) && back.res.linear.desc.x == 32 &&
               back.res.linear.desc.w == 32 && back.res.linear.desc.f == cudaChannelFormatKindFloat,
           "resource description of a linear texture");
    fetch_float4<<<(n + 255) / 256, 256>>>(tf, f4_out, n);
    CHECK_LAUNCH();
    float4 g4[n];
    CHECK(cudaMemcpy(g4, f4_out, sizeof(g4), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        EXPECT(g4[i].x == f4[i].w && g4[i].y == f4[i].z && g4[i].z == f4[i].y && g4[i].w == f4[i].x,
               "tex1Dfetch<float4>(%d) = (%g, %g, %g, %g)", i, g4[i].w, g4[i].z, g4[i].y, g4[i].x);
    }
    CHECK(cudaDestroyTextureObject(ti));
    CHECK(cudaDestroyTextureObject(tf));
    CHECK(cudaFree(ints_d));
    CHECK(cudaFree(got_d));
    CHECK(cudaFree(f4_d));
    CHECK(cudaFree(f4_out));
}

// Point sampling with clamped addressing: the texel the point falls in.
static float nearest(const float* v, int w, int h, float x, float y) {
    int xi = (int)std::floor(x), yi = (int)std::floor(y);
    xi = xi < 0 ? 0 : (xi >= w ? w - 1 : xi);
    yi = yi < 0 ? 0 : (yi >= h ? h - 1 : yi);
    return v[yi * w + xi];
}

// Bilinear filtering as the Programming Guide's texture fetching appendix gives it, with
// exact weights (the hardware's have 8 fractional bits), clamped addressing.
static float bilinear(const float* v, int w, int h, float x, float y) {
    float xb = x - 0.5f, yb = y - 0.5f;
    int i = (int)std::floor(xb), j = (int)std::floor(yb);
    float a = xb - i, b = yb - j;
    auto at = [&](int xi, int yi) {
        xi = xi < 0 ? 0 : (xi >= w ? w - 1 : xi);
        yi = yi < 0 ? 0 : (yi >= h ? h - 1 : yi);
        return v[yi * w + xi];
    };
    return (1 - a) * (1 - b) * at(i, j) + a * (1 - b) * at(i + 1, j) + (1 - a) * b * at(i, j + 1) +
           a * b * at(i + 1, j + 1);
}

static void pitched_memory() {
    const int w = 13, h = 5, np = 12;
    float host[w * h];
    for (int i = 0; i < w * h; i++) host[i] = float(i * 5 % 23) - 7.0f;
    float* mem;
    size_t pitch;
    CHECK(cudaMallocPitch(&mem, &pitch, w * sizeof(float), h));
    CHECK(cudaMemcpy2D(mem, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = mem;
    res.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    res.res.pitch2D.width = w;
    res.res.pitch2D.height = h;
    res.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t point, linear;
    CHECK(cudaCreateTextureObject(&point, &res, &td, nullptr));
    td.filterMode = cudaFilterModeLinear;
    CHECK(cudaCreateTextureObject(&linear, &res, &td, nullptr));
    // The same texels in an array, sampled the same way.
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &desc, w, h));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    cudaResourceDesc ares = {};
    ares.resType = cudaResourceTypeArray;
    ares.res.array.array = arr;
    cudaTextureObject_t alinear;
    CHECK(cudaCreateTextureObject(&alinear, &ares, &td, nullptr));

    float2 at[np] = {{0.5f, 0.5f},   {12.5f, 4.5f}, {1.0f, 0.5f}, {2.3f, 1.7f},  {-3.0f, 2.5f}, {20.0f, 9.0f},
                     {6.75f, 3.25f}, {0.1f, 4.9f},  {7.5f, 2.0f}, {11.9f, 0.2f}, {5.5f, -1.0f}, {3.0f, 3.0f}};
    float2* at_d;
    float* out_d;
    CHECK(cudaMalloc(&at_d, sizeof(at)));
    CHECK(cudaMalloc(&out_d, np * sizeof(float)));
    CHECK(cudaMemcpy(at_d, at, sizeof(at), cudaMemcpyHostToDevice));
    float got[np], want[np];
    sample_points(point, at_d, out_d, got, np);
    for (int k = 0; k < np; k++) {
        float want = nearest(host, w, h, at[k].x, at[k].y);
        EXPECT(got[k] == want, "pitched point (%g, %g) = %g, want %g", at[k].x, at[k].y, got[k], want);
    }
    float range = 29.0f;  // the texels span [-7, 22)
    sample_points(linear, at_d, out_d, got, np);
    sample_points(alinear, at_d, out_d, want, np);
    for (int k = 0; k < np; k++) {
        float exact = bilinear(host, w, h, at[k].x, at[k].y);
        EXPECT(got[k] == want[k], "pitched linear (%g, %g) = %g, array %g", at[k].x, at[k].y, got[k], want[k]);
        EXPECT(std::fabs(got[k] - exact) <= 2.0f * range / 256.0f, "pitched linear (%g, %g) = %g, want about %g",
               at[k].x, at[k].y, got[k], exact);
    }
    // Memory written between launches is what the next launch samples.
    scale<<<h, w>>>(mem, pitch, w, h, -2.0f);
    CHECK_LAUNCH();
    sample_points(point, at_d, out_d, got, np);
    for (int k = 0; k < np; k++) {
        float want = -2.0f * nearest(host, w, h, at[k].x, at[k].y);
        EXPECT(got[k] == want, "pitched point after a write (%g, %g) = %g, want %g", at[k].x, at[k].y, got[k], want);
    }
    CHECK(cudaDestroyTextureObject(point));
    CHECK(cudaDestroyTextureObject(linear));
    CHECK(cudaDestroyTextureObject(alinear));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFree(mem));
    CHECK(cudaFree(at_d));
    CHECK(cudaFree(out_d));
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
    linear_memory();
    pitched_memory();
    std::printf("textures: ok\n");
    return 0;
}
