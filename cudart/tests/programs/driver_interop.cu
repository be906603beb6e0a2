// Runtime and driver API in one program share one state: the runtime's context is the
// device's primary context, and memory from either API works with the other's copies and
// launches.
#include "check.h"
#include <cuda.h>

#define CU_CHECK(call)                                                          \
    do {                                                                        \
        CUresult r_ = (call);                                                   \
        EXPECT(r_ == CUDA_SUCCESS, "%s returned %d", #call, (int)r_);           \
    } while (0)

__global__ void twice(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= 2;
}

int main() {
    CHECK(cudaFree(0));
    CUcontext current = nullptr, primary = nullptr;
    CU_CHECK(cuCtxGetCurrent(&current));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&primary, dev));
    EXPECT(current == primary, "the runtime runs in the primary context");
    const int n = 1000;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = i - 500;
    CUdeviceptr dp;
    CU_CHECK(cuMemAlloc(&dp, sizeof(h)));
    CHECK(cudaMemcpy((void*)dp, h, sizeof(h), cudaMemcpyHostToDevice));
    twice<<<(n + 127) / 128, 128>>>((int*)dp, n);
    CHECK_LAUNCH();
    int got[n];
    CU_CHECK(cuMemcpyDtoH(got, dp, sizeof(got)));
    for (int i = 0; i < n; i++) EXPECT(got[i] == 2 * h[i], "driver memory [%d] = %d", i, got[i]);
    int* rp;
    CHECK(cudaMalloc(&rp, sizeof(h)));
    CU_CHECK(cuMemcpyHtoD((CUdeviceptr)rp, h, sizeof(h)));
    twice<<<(n + 127) / 128, 128>>>(rp, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got, rp, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(got[i] == 2 * h[i], "runtime memory [%d] = %d", i, got[i]);
    CU_CHECK(cuMemFree(dp));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    std::printf("driver_interop: ok\n");
    return 0;
}
