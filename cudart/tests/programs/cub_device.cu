// cub's device-wide algorithms DeviceReduce::Sum and DeviceScan::ExclusiveSum, with their
// two-phase temporary storage. (cub's sorts: cub_radix_sort.cu, cub_merge_sort.cu.)
#include "check.h"
#include <cub/cub.cuh>
#include <numeric>
#include <vector>

int main() {
    const int n = 4000;
    std::vector<unsigned> keys(n);
    unsigned x = 99;
    for (int i = 0; i < n; i++) {
        x = x * 22695477u + 1u;
        keys[i] = x >> 12;
    }
    unsigned *dk, *dsum, *dscan;
    CHECK(cudaMalloc(&dk, n * 4));
    CHECK(cudaMalloc(&dsum, 4));
    CHECK(cudaMalloc(&dscan, n * 4));
    CHECK(cudaMemcpy(dk, keys.data(), n * 4, cudaMemcpyHostToDevice));

    void* tmp = nullptr;
    size_t bytes = 0;
    CHECK(cub::DeviceReduce::Sum(tmp, bytes, dk, dsum, n));
    CHECK(cudaMalloc(&tmp, bytes));
    CHECK(cub::DeviceReduce::Sum(tmp, bytes, dk, dsum, n));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(tmp));
    unsigned sum;
    CHECK(cudaMemcpy(&sum, dsum, 4, cudaMemcpyDeviceToHost));
    unsigned want_sum = std::accumulate(keys.begin(), keys.end(), 0u);
    EXPECT(sum == want_sum, "sum %u, want %u", sum, want_sum);

    tmp = nullptr;
    bytes = 0;
    CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, dk, dscan, n));
    CHECK(cudaMalloc(&tmp, bytes));
    CHECK(cub::DeviceScan::ExclusiveSum(tmp, bytes, dk, dscan, n));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(tmp));
    std::vector<unsigned> scan(n);
    CHECK(cudaMemcpy(scan.data(), dscan, n * 4, cudaMemcpyDeviceToHost));
    unsigned acc = 0;
    for (int i = 0; i < n; i++) {
        EXPECT(scan[i] == acc, "scan[%d] = %u, want %u", i, scan[i], acc);
        acc += keys[i];
    }

    std::printf("cub_device: %d items ok\n", n);
    return 0;
}
