// cub::DeviceRadixSort::SortPairs, checked against a stable sort on the host. Its onesweep
// kernel for compute capability 8.0 declares 33,280 bytes of shared memory, more than lavapipe's
// 32 KiB: it runs with its arena in device memory.
#include "check.h"
#include <algorithm>
#include <cub/cub.cuh>
#include <numeric>
#include <vector>

int main() {
    const int n = 10000;
    std::vector<unsigned> keys(n), vals(n);
    unsigned x = 99;
    for (int i = 0; i < n; i++) {
        x = x * 22695477u + 1u;
        keys[i] = x >> 12;
        vals[i] = i;
    }
    unsigned *dk, *dv, *dk2, *dv2;
    CHECK(cudaMalloc(&dk, n * 4));
    CHECK(cudaMalloc(&dv, n * 4));
    CHECK(cudaMalloc(&dk2, n * 4));
    CHECK(cudaMalloc(&dv2, n * 4));
    CHECK(cudaMemcpy(dk, keys.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv, vals.data(), n * 4, cudaMemcpyHostToDevice));
    void* tmp = nullptr;
    size_t bytes = 0;
    CHECK(cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dk2, dv, dv2, n));
    CHECK(cudaMalloc(&tmp, bytes));
    CHECK(cub::DeviceRadixSort::SortPairs(tmp, bytes, dk, dk2, dv, dv2, n));
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> sk(n), sv(n);
    CHECK(cudaMemcpy(sk.data(), dk2, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sv.data(), dv2, n * 4, cudaMemcpyDeviceToHost));
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    for (int i = 0; i < n; i++) {
        EXPECT(sk[i] == keys[order[i]], "key %d = %u, want %u", i, sk[i], keys[order[i]]);
        EXPECT(sv[i] == (unsigned)order[i], "value %d = %u, want %d", i, sv[i], order[i]);
    }
    std::printf("cub_radix_sort: %d pairs ok\n", n);
    return 0;
}
