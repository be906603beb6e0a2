// thrust: a comparison sort (merge sort: a comparator of our own), reduce and transform over
// raw device pointers with the thrust::device policy, checked against std::sort and host
// sums. (thrust::sort of plain integers is a radix sort, as in cub_radix_sort.cu.) Short
// type names keep the kernels' mangled names under Vulkan's 256-byte entry point limit.
#include "check.h"
#include <algorithm>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <vector>

// By magnitude, then by value: a total order, so the sorted sequence is unique.
struct Mag {
    __host__ __device__ bool operator()(int a, int b) const {
        int ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
        return ma != mb ? ma < mb : a < b;
    }
};

struct Sq {
    __host__ __device__ long long operator()(int x) const { return (long long)x * x; }
};

int main() {
    const int n = 1500;
    std::vector<int> h(n);
    unsigned x = 7;
    for (int i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        h[i] = int(x >> 8) % 100000 - 50000;
    }
    int* d;
    long long* sq;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMalloc(&sq, n * sizeof(long long)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    thrust::sort(thrust::device, d, d + n, Mag());
    std::vector<int> sorted(n);
    CHECK(cudaMemcpy(sorted.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    std::vector<int> want = h;
    std::sort(want.begin(), want.end(), Mag());
    for (int i = 0; i < n; i++) EXPECT(sorted[i] == want[i], "sorted[%d] = %d, want %d", i, sorted[i], want[i]);
    long long sum = thrust::reduce(thrust::device, d, d + n, 0LL, thrust::plus<long long>());
    long long want_sum = 0, want_sq = 0;
    for (int v : h) {
        want_sum += v;
        want_sq += (long long)v * v;
    }
    EXPECT(sum == want_sum, "sum %lld, want %lld", sum, want_sum);
    thrust::transform(thrust::device, d, d + n, sq, Sq());
    long long sq_sum = thrust::reduce(thrust::device, sq, sq + n, 0LL);
    EXPECT(sq_sum == want_sq, "sum of squares %lld, want %lld", sq_sum, want_sq);
    std::printf("thrust_sort: %d keys ok\n", n);
    return 0;
}
