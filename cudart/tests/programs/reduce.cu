// Sum of integers: a shared-memory tree within blocks, warp shuffles for the last 32, one
// atomicAdd per block.
#include "check.h"
#include <vector>

__global__ void sum(const int* in, unsigned long long* out, int n) {
    extern __shared__ int s[];
    int t = threadIdx.x;
    int v = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += in[i];
    s[t] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w >= 32; w /= 2) {
        if (t < w) s[t] += s[t + w];
        __syncthreads();
    }
    if (t < 32) {
        v = s[t];
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
        if (t == 0) atomicAdd(out, (unsigned long long)v);
    }
}

int main() {
    const int n = 1 << 20;
    std::vector<int> h(n);
    long long want = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (i * 37) % 1001 - 500;
        want += h[i];
    }
    int* d;
    unsigned long long* dsum;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMalloc(&dsum, sizeof(*dsum)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dsum, 0, sizeof(*dsum)));
    sum<<<40, 256, 256 * sizeof(int)>>>(d, dsum, n);
    CHECK_LAUNCH();
    unsigned long long got;
    CHECK(cudaMemcpy(&got, dsum, sizeof(got), cudaMemcpyDeviceToHost));
    EXPECT((long long)got == want, "sum %lld, want %lld", (long long)got, want);
    std::printf("reduce: sum %lld ok\n", want);
    return 0;
}
