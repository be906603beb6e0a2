// C = A * B with 16x16 shared-memory tiles, sizes not multiples of the tile; checked against
// the same product on the host (integer-valued floats: exact in both).
#include "check.h"
#include <vector>

constexpr int T = 16;

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[threadIdx.y][threadIdx.x] =
            (row < M && k0 + threadIdx.x < K) ? A[row * K + k0 + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] =
            (col < N && k0 + threadIdx.y < K) ? B[(k0 + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
    const int M = 70, N = 45, K = 53;
    std::vector<float> A(M * K), B(K * N), C(M * N);
    for (int i = 0; i < M * K; i++) A[i] = float(i % 7) - 3.0f;
    for (int i = 0; i < K * N; i++) B[i] = float(i % 5) - 2.0f;
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, A.size() * 4));
    CHECK(cudaMalloc(&dB, B.size() * 4));
    CHECK(cudaMalloc(&dC, C.size() * 4));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
    matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = 0.0f;
            for (int k = 0; k < K; k++) want += A[i * K + k] * B[k * N + j];
            EXPECT(C[i * N + j] == want, "C[%d][%d] = %f, want %f", i, j, C[i * N + j], want);
        }
    std::printf("matmul_tiled: %dx%dx%d ok\n", M, N, K);
    return 0;
}
