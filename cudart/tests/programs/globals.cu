// __constant__ and __device__ variables: written and read with cudaMemcpyToSymbol and
// cudaMemcpyFromSymbol (with an offset), addressed with cudaGetSymbolAddress, and an
// initialized __device__ array.
#include "check.h"
#include <cmath>

__constant__ float coeffs[4];
__device__ int counter;
__device__ int table[8] = {1, 2, 3, 5, 8, 13, 21, 34};

__global__ void poly(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = coeffs[0] + v * (coeffs[1] + v * (coeffs[2] + v * coeffs[3]));
        atomicAdd(&counter, table[i % 8]);
    }
}

int main() {
    const int n = 1000;
    float hx[n], hy[n];
    for (int i = 0; i < n; i++) hx[i] = 0.01f * i;
    float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
    CHECK(cudaMemcpyToSymbol(coeffs, c, sizeof(c)));
    // Overwrite the last coefficient through an offset.
    float last = 0.125f;
    CHECK(cudaMemcpyToSymbol(coeffs, &last, 4, 3 * sizeof(float)));
    c[3] = last;
    int zero = 0;
    CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof(int)));
    float *dx, *dy;
    CHECK(cudaMalloc(&dx, sizeof(hx)));
    CHECK(cudaMalloc(&dy, sizeof(hy)));
    CHECK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
    poly<<<(n + 127) / 128, 128>>>(dx, dy, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hy, dy, sizeof(hy), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float v = hx[i];
        float want = c[0] + v * (c[1] + v * (c[2] + v * c[3]));
        EXPECT(std::fabs(hy[i] - want) <= 1e-5f * (1.0f + std::fabs(want)), "y[%d] = %f, want %f", i, hy[i], want);
    }
    int count = -1;
    CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof(int)));
    int want_count = 0, t[8] = {1, 2, 3, 5, 8, 13, 21, 34};
    for (int i = 0; i < n; i++) want_count += t[i % 8];
    EXPECT(count == want_count, "counter %d, want %d", count, want_count);
    int* addr = nullptr;
    CHECK(cudaGetSymbolAddress((void**)&addr, table));
    int third = 0;
    CHECK(cudaMemcpy(&third, addr + 3, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(third == 5, "table[3] = %d", third);
    size_t size = 0;
    CHECK(cudaGetSymbolSize(&size, table));
    EXPECT(size == sizeof(t), "size of table %zu", size);
    std::printf("globals: ok\n");
    return 0;
}
