// Bitonic sort of 1024 keys per block in shared memory, several blocks, checked against
// std::sort of each block's keys.
#include "check.h"
#include <algorithm>
#include <vector>

constexpr int N = 1024;

__global__ void bitonic(unsigned* data) {
    __shared__ unsigned s[N];
    unsigned* d = data + blockIdx.x * N;
    for (int i = threadIdx.x; i < N; i += blockDim.x) s[i] = d[i];
    __syncthreads();
    for (int k = 2; k <= N; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = threadIdx.x; i < N; i += blockDim.x) {
                int p = i ^ j;
                if (p > i) {
                    bool up = (i & k) == 0;
                    if ((s[i] > s[p]) == up) {
                        unsigned t = s[i];
                        s[i] = s[p];
                        s[p] = t;
                    }
                }
            }
            __syncthreads();
        }
    for (int i = threadIdx.x; i < N; i += blockDim.x) d[i] = s[i];
}

int main() {
    const int blocks = 4;
    std::vector<unsigned> h(N * blocks), got(N * blocks);
    unsigned x = 2024;
    for (auto& v : h) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v = x % 5000;
    }
    unsigned* d;
    CHECK(cudaMalloc(&d, h.size() * 4));
    CHECK(cudaMemcpy(d, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    bitonic<<<blocks, 256>>>(d);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), d, got.size() * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) std::sort(h.begin() + b * N, h.begin() + (b + 1) * N);
    for (int i = 0; i < N * blocks; i++) EXPECT(got[i] == h[i], "key %d = %u, want %u", i, got[i], h[i]);
    std::printf("bitonic_sort: %d blocks ok\n", blocks);
    return 0;
}
