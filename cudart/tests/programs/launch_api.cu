// Launching without <<<>>>: cudaLaunchKernel with an argument array, and cudaLaunchKernelEx
// (cudaLaunchKernelExC) with a configuration and attributes; a cluster of more than one block,
// which ptxvk cannot run, is refused rather than run wrong.
#include "check.h"

__global__ void axpb(int* out, int a, int b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * i + b;
}

static void expect_values(const int* d, int n, int a, int b) {
    int h[512];
    CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(h[i] == a * i + b, "out[%d] = %d, want %d", i, h[i], a * i + b);
}

int main() {
    const int n = 500;
    int* d;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    int a = 3, b = -7, count = n;
    void* args[] = {&d, &a, &b, &count};
    CHECK(cudaLaunchKernel((const void*)axpb, dim3(4), dim3(128), args, 0, nullptr));
    CHECK_LAUNCH();
    expect_values(d, n, 3, -7);

    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(2);
    config.blockDim = dim3(256);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributePriority;
    attr[0].val.priority = 0;
    config.attrs = attr;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&config, axpb, d, 5, 11, n));
    CHECK_LAUNCH();
    expect_values(d, n, 5, 11);

    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    EXPECT(cudaLaunchKernelEx(&config, axpb, d, 1, 1, n) == cudaErrorNotSupported, "clusters of 2 are refused");
    EXPECT(cudaGetLastError() == cudaErrorNotSupported, "as the last error");
    expect_values(d, n, 5, 11);
    std::printf("launch_api: ok\n");
    return 0;
}
