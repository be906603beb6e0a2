// Kernel attributes and occupancy: cudaFuncGetAttributes, the occupancy calculator and
// cudaOccupancyMaxPotentialBlockSize (a template of cuda_runtime.h over them), and a launch
// with the block size it suggests.
#include "check.h"

__global__ void heavy(float* out, int n) {
    __shared__ float s[1024];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = float(i);
    __syncthreads();
    if (i < n) out[i] = s[threadIdx.x] * 2.0f + s[(threadIdx.x + 1) % blockDim.x];
}

int main() {
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, heavy));
    EXPECT(fa.sharedSizeBytes == 4096, "static shared %zu", fa.sharedSizeBytes);
    // The virtual architecture of the PTX it was built for (compute_80), which CUB reads.
    EXPECT(fa.ptxVersion == 80, "PTX version %d", fa.ptxVersion);
    int max_threads = 0;
    CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, 0));
    EXPECT(fa.maxThreadsPerBlock > 0 && fa.maxThreadsPerBlock <= max_threads, "max threads %d", fa.maxThreadsPerBlock);
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, heavy, 128, 0));
    EXPECT(blocks >= 1, "%d blocks per SM", blocks);
    int min_grid = 0, block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy, 0, 0));
    EXPECT(block >= 32 && block <= fa.maxThreadsPerBlock && min_grid >= 1, "block %d grid %d", block, min_grid);
    const int n = 10000;
    float* d;
    CHECK(cudaMalloc(&d, n * 4));
    heavy<<<(n + block - 1) / block, block>>>(d, n);
    CHECK_LAUNCH();
    float h[n];
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int t = i % block, next = i - t + (t + 1) % block;
        EXPECT(h[i] == float(i) * 2.0f + float(next), "out[%d] = %f", i, h[i]);
    }
    CHECK(cudaFuncSetAttribute(heavy, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
    std::printf("occupancy: block %d, %d blocks/SM ok\n", block, blocks);
    return 0;
}
