// Device malloc and free: each thread allocates a block of its own size, fills it, and a
// second kernel reads the blocks back through pointers kept in global memory; requests the
// heap cannot satisfy return NULL.
#include "check.h"

__global__ void fill(int** blocks, int per) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int n = per + t % 7;
    int* p = static_cast<int*>(malloc(n * sizeof(int)));
    blocks[t] = p;
    if (!p) return;
    for (int i = 0; i < n; i++) p[i] = t * 1000 + i;
}

__global__ void sum(int** blocks, int per, long long* sums, int* aligned) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* p = blocks[t];
    aligned[t] = p != nullptr && reinterpret_cast<unsigned long long>(p) % 16 == 0;
    long long s = 0;
    if (p) {
        for (int i = 0; i < per + t % 7; i++) s += p[i];
        free(p);
    }
    sums[t] = s;
}

__global__ void too_much(unsigned long long* got) {
    // More than the heap holds, then a small request that still fits.
    void* big = malloc(size_t(1) << 40);
    void* small = malloc(64);
    got[0] = reinterpret_cast<unsigned long long>(big);
    got[1] = reinterpret_cast<unsigned long long>(small);
    free(small);
}

int main() {
    size_t heap = 0;
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap == (8 << 20), "the heap's default size is %zu", heap);
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap == (16 << 20), "the heap's size reads back as %zu", heap);

    const int blocks = 4, threads = 64, n = blocks * threads, per = 20;
    int** ptrs;
    long long* sums;
    int* aligned;
    CHECK(cudaMalloc(&ptrs, n * sizeof(int*)));
    CHECK(cudaMalloc(&sums, n * sizeof(long long)));
    CHECK(cudaMalloc(&aligned, n * sizeof(int)));
    fill<<<blocks, threads>>>(ptrs, per);
    CHECK_LAUNCH();
    sum<<<blocks, threads>>>(ptrs, per, sums, aligned);
    CHECK_LAUNCH();
    long long h[n];
    int a[n];
    int* hp[n];
    CHECK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(a, aligned, sizeof a, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hp, ptrs, sizeof hp, cudaMemcpyDeviceToHost));
    for (int t = 0; t < n; t++) {
        int k = per + t % 7;
        long long want = 1000LL * t * k + k * (k - 1) / 2;
        EXPECT(a[t] == 1, "thread %d's block is not 16-byte aligned (%p)", t, hp[t]);
        EXPECT(h[t] == want, "thread %d summed %lld, not %lld", t, h[t], want);
        // No two blocks overlap.
        for (int u = 0; u < t; u++) {
            const char *p = (const char*)hp[t], *q = (const char*)hp[u];
            EXPECT(p + k * 4 <= q || q + (per + u % 7) * 4 <= p, "blocks of %d and %d overlap", t, u);
        }
    }

    unsigned long long* got;
    CHECK(cudaMalloc(&got, 2 * sizeof(unsigned long long)));
    too_much<<<1, 1>>>(got);
    CHECK_LAUNCH();
    unsigned long long g[2];
    CHECK(cudaMemcpy(g, got, sizeof g, cudaMemcpyDeviceToHost));
    EXPECT(g[0] == 0, "a terabyte came from a 16 MiB heap (%llx)", g[0]);
    EXPECT(g[1] != 0, "a small request failed after a large one did");
    // The heap's size is fixed once a kernel used it.
    EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 << 20) != cudaSuccess,
           "the heap's size changed after a kernel used it");
    cudaGetLastError();
    std::printf("malloc: %d blocks ok\n", n);
    return 0;
}
