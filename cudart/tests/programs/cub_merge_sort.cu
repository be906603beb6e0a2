// cub::DeviceMergeSort::SortPairs in descending order, checked against a stable sort on the
// host (merge sort is not stable: equal keys may carry their values in any order).
#include "check.h"
#include <algorithm>
#include <cub/cub.cuh>
#include <numeric>
#include <vector>

struct descending {
    __host__ __device__ bool operator()(unsigned a, unsigned b) const { return a > b; }
};

int main() {
    const int n = 4000;
    std::vector<unsigned> keys(n), vals(n);
    unsigned x = 99;
    for (int i = 0; i < n; i++) {
        x = x * 22695477u + 1u;
        keys[i] = x >> 12;
        vals[i] = i;
    }
    unsigned *dk, *dv;
    CHECK(cudaMalloc(&dk, n * 4));
    CHECK(cudaMalloc(&dv, n * 4));
    CHECK(cudaMemcpy(dk, keys.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv, vals.data(), n * 4, cudaMemcpyHostToDevice));
    void* tmp = nullptr;
    size_t bytes = 0;
    CHECK(cub::DeviceMergeSort::SortPairs(tmp, bytes, dk, dv, n, descending()));
    CHECK(cudaMalloc(&tmp, bytes));
    CHECK(cub::DeviceMergeSort::SortPairs(tmp, bytes, dk, dv, n, descending()));
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> sk(n), sv(n);
    CHECK(cudaMemcpy(sk.data(), dk, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sv.data(), dv, n * 4, cudaMemcpyDeviceToHost));
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] > keys[b]; });
    for (int i = 0; i < n; i++) {
        EXPECT(sk[i] == keys[order[i]], "key %d = %u, want %u", i, sk[i], keys[order[i]]);
        // Merge sort is not stable: equal keys may carry their values in any order.
        EXPECT(keys[sv[i]] == sk[i], "value %d = %u carries key %u", i, sv[i], keys[sv[i]]);
    }
    std::printf("cub_merge_sort: %d pairs ok\n", n);
    return 0;
}
