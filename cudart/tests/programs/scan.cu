// Inclusive prefix sum over several blocks: a Hillis-Steele scan per block, a scan of the
// block totals, then the totals added back.
#include "check.h"
#include <vector>

constexpr int B = 256;

__global__ void scan_blocks(int* data, int* totals, int n) {
    __shared__ int s[2][B];
    int i = blockIdx.x * B + threadIdx.x;
    int in = 0;
    s[0][threadIdx.x] = i < n ? data[i] : 0;
    __syncthreads();
    for (int off = 1; off < B; off *= 2) {
        int v = s[in][threadIdx.x];
        if (threadIdx.x >= off) v += s[in][threadIdx.x - off];
        s[1 - in][threadIdx.x] = v;
        in = 1 - in;
        __syncthreads();
    }
    if (i < n) data[i] = s[in][threadIdx.x];
    if (threadIdx.x == B - 1) totals[blockIdx.x] = s[in][threadIdx.x];
}

__global__ void add_offsets(int* data, const int* scanned_totals, int n) {
    int i = blockIdx.x * B + threadIdx.x;
    if (blockIdx.x > 0 && i < n) data[i] += scanned_totals[blockIdx.x - 1];
}

int main() {
    const int n = 50000, blocks = (n + B - 1) / B;
    std::vector<int> h(n), out(n);
    for (int i = 0; i < n; i++) h[i] = (i % 13) - 4;
    int *d, *totals, *dummy;
    CHECK(cudaMalloc(&d, n * 4));
    CHECK(cudaMalloc(&totals, blocks * 4));
    CHECK(cudaMalloc(&dummy, 4));
    CHECK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
    scan_blocks<<<blocks, B>>>(d, totals, n);
    CHECK_LAUNCH();
    // blocks <= B: one block scans the totals.
    scan_blocks<<<1, B>>>(totals, dummy, blocks);
    CHECK_LAUNCH();
    add_offsets<<<blocks, B>>>(d, totals, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out.data(), d, n * 4, cudaMemcpyDeviceToHost));
    int acc = 0;
    for (int i = 0; i < n; i++) {
        acc += h[i];
        EXPECT(out[i] == acc, "out[%d] = %d, want %d", i, out[i], acc);
    }
    std::printf("scan: %d elements ok\n", n);
    return 0;
}
