// A 64-bin histogram: per-block bins in shared memory (atomicAdd there), merged into global
// bins with atomicAdd.
#include "check.h"
#include <vector>

constexpr int BINS = 64;

__global__ void histogram(const unsigned char* in, unsigned* bins, int n) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[in[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main() {
    const int n = 300000;
    std::vector<unsigned char> h(n);
    std::vector<unsigned> want(BINS, 0), got(BINS);
    unsigned x = 12345;
    for (int i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        h[i] = (unsigned char)(x >> 16);
        want[h[i] % BINS]++;
    }
    unsigned char* d;
    unsigned* bins;
    CHECK(cudaMalloc(&d, n));
    CHECK(cudaMalloc(&bins, BINS * 4));
    CHECK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(bins, 0, BINS * 4));
    histogram<<<30, 128>>>(d, bins, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), bins, BINS * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BINS; b++) EXPECT(got[b] == want[b], "bin %d: %u, want %u", b, got[b], want[b]);
    std::printf("histogram: %d samples ok\n", n);
    return 0;
}
