// Dynamic shared memory sized at launch: each block reverses its chunk through it, with two
// sizes of chunk.
#include "check.h"
#include <vector>

__global__ void reverse_chunks(const int* in, int* out) {
    extern __shared__ int buf[];
    int base = blockIdx.x * blockDim.x;
    buf[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

static void run(int chunk, int blocks) {
    int n = chunk * blocks;
    std::vector<int> h(n), got(n);
    for (int i = 0; i < n; i++) h[i] = i * 3 + 1;
    int *din, *dout;
    CHECK(cudaMalloc(&din, n * 4));
    CHECK(cudaMalloc(&dout, n * 4));
    CHECK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));
    reverse_chunks<<<blocks, chunk, chunk * sizeof(int)>>>(din, dout);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), dout, n * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < chunk; t++)
            EXPECT(got[b * chunk + t] == h[b * chunk + chunk - 1 - t], "chunk %d block %d thread %d", chunk, b, t);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
}

int main() {
    run(64, 10);
    run(512, 3);
    std::printf("dynamic_shared: ok\n");
    return 0;
}
