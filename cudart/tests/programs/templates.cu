// Templated kernels instantiated for several types and functors, and a kernel template with
// a non-type block-size parameter.
#include "check.h"
#include <vector>

template <typename T, typename Op>
__global__ void map(const T* in, T* out, int n, Op op) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(in[i]);
}

template <int BLOCK, typename T>
__global__ void block_sum(const T* in, T* out) {
    __shared__ T s[BLOCK];
    s[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
    __syncthreads();
    for (int w = BLOCK / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

struct affine {
    float a, b;
    __device__ float operator()(float x) const { return a * x + b; }
};

struct collatz {
    __device__ long long operator()(long long x) const { return x % 2 ? 3 * x + 1 : x / 2; }
};

template <typename T, typename Op, typename HostOp>
static void check_map(Op op, HostOp host, int n) {
    std::vector<T> h(n), got(n);
    for (int i = 0; i < n; i++) h[i] = T(i + 1);
    T *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(T)));
    CHECK(cudaMalloc(&dout, n * sizeof(T)));
    CHECK(cudaMemcpy(din, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    map<<<(n + 63) / 64, 64>>>(din, dout, n, op);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(got[i] == host(h[i]), "map element %d", i);
}

template <int BLOCK, typename T>
static void check_sum() {
    const int blocks = 3;
    std::vector<T> h(BLOCK * blocks), got(blocks);
    for (int i = 0; i < BLOCK * blocks; i++) h[i] = T(i % 17);
    T *din, *dout;
    CHECK(cudaMalloc(&din, h.size() * sizeof(T)));
    CHECK(cudaMalloc(&dout, blocks * sizeof(T)));
    CHECK(cudaMemcpy(din, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    block_sum<BLOCK, T><<<blocks, BLOCK>>>(din, dout);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), dout, blocks * sizeof(T), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        T want = 0;
        for (int i = 0; i < BLOCK; i++) want += h[b * BLOCK + i];
        EXPECT(got[b] == want, "block_sum<%d> block %d", BLOCK, b);
    }
}

int main() {
    check_map<float>(affine{2.0f, -1.0f}, [](float x) { return 2.0f * x - 1.0f; }, 300);
    check_map<long long>(collatz{}, [](long long x) { return x % 2 ? 3 * x + 1 : x / 2; }, 300);
    check_sum<64, int>();
    check_sum<128, double>();
    check_sum<32, unsigned long long>();
    std::printf("templates: ok\n");
    return 0;
}
