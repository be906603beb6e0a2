// cuda_fp16.h: half and half2 arithmetic in a kernel (fma, conversions), checked against
// the host's float computation rounded to half by the same header's host conversions.
#include "check.h"
#include <cuda_fp16.h>

__global__ void axpy_half(const __half2* x, __half2* y, __half a, int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) y[i] = __hfma2(__halves2half2(a, a), x[i], y[i]);
}

int main() {
    const int n = 1024, n2 = n / 2;
    __half hx[n], hy[n], got[n];
    for (int i = 0; i < n; i++) {
        hx[i] = __float2half(float(i % 64) * 0.25f);
        hy[i] = __float2half(float(i % 10) - 5.0f);
    }
    __half *dx, *dy;
    CHECK(cudaMalloc(&dx, sizeof(hx)));
    CHECK(cudaMalloc(&dy, sizeof(hy)));
    CHECK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, hy, sizeof(hy), cudaMemcpyHostToDevice));
    axpy_half<<<(n2 + 127) / 128, 128>>>((const __half2*)dx, (__half2*)dy, __float2half(1.5f), n2);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got, dy, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        // Every product and sum here is exact in float and representable in half.
        float want = 1.5f * __half2float(hx[i]) + __half2float(hy[i]);
        EXPECT(__half2float(got[i]) == __half2float(__float2half(want)), "y[%d] = %f, want %f", i, __half2float(got[i]), want);
    }
    std::printf("half_precision: ok\n");
    return 0;
}
