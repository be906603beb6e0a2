// Pitched 2D memory: cudaMallocPitch, cudaMemset2D, cudaMemcpy2D both ways, and a kernel
// that walks rows by the pitch.
#include "check.h"
#include <cstring>
#include <vector>

__global__ void add_coords(float* img, size_t pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float* row = (float*)((char*)img + y * pitch);
        row[x] += float(x + 1000 * y);
    }
}

int main() {
    const int w = 37, h = 23;
    float* d;
    size_t pitch = 0;
    CHECK(cudaMallocPitch((void**)&d, &pitch, w * sizeof(float), h));
    EXPECT(pitch >= w * sizeof(float), "pitch %zu", pitch);
    // 0x3f800000 is 1.0f; memset writes bytes, so fill with a byte pattern and check it.
    CHECK(cudaMemset2D(d, pitch, 0x40, w * sizeof(float), h));
    std::vector<float> host(w * h);
    CHECK(cudaMemcpy2D(host.data(), w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    float pattern;
    unsigned bits = 0x40404040u;
    std::memcpy(&pattern, &bits, 4);
    for (int i = 0; i < w * h; i++) EXPECT(host[i] == pattern, "memset2D element %d", i);
    for (int i = 0; i < w * h; i++) host[i] = float(i % 11);
    CHECK(cudaMemcpy2D(d, pitch, host.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    add_coords<<<dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8)>>>(d, pitch, w, h);
    CHECK_LAUNCH();
    std::vector<float> got(w * h);
    CHECK(cudaMemcpy2D(got.data(), w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDefault));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            EXPECT(got[y * w + x] == host[y * w + x] + float(x + 1000 * y), "(%d, %d) = %f", x, y, got[y * w + x]);
    std::printf("pitched_2d: pitch %zu ok\n", pitch);
    return 0;
}
