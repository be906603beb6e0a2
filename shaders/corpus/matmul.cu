// Matrix multiply, row-major C[M][N] = A[M][K] * B[K][N]: naive, shared-memory tiles, an
// integer version with rectangular tiles, and a matrix-vector product with one warp per row.
// Products are accumulated with explicit fmaf in k order, so every version rounds the same way.
#include "ptxvk_cuda.h"

#define TILE 16

extern "C" __global__ void matmul_naive_f32(const float *a, const float *b, float *c, int m,
                                            int n, int k) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int e = 0; e < k; e++) acc = __fmaf_rn(a[row * k + e], b[e * n + col], acc);
  c[row * n + col] = acc;
}

extern "C" __global__ void __launch_bounds__(TILE * TILE)
    matmul_tiled_f32(const float *a, const float *b, float *c, int m, int n, int k) {
  __shared__ float ta[TILE][TILE];
  __shared__ float tb[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t0 = 0; t0 < k; t0 += TILE) {
    ta[ty][tx] = row < m && t0 + tx < k ? a[row * k + t0 + tx] : 0.0f;
    tb[ty][tx] = t0 + ty < k && col < n ? b[(t0 + ty) * n + col] : 0.0f;
    __syncthreads();
    int len = k - t0 < TILE ? k - t0 : TILE;
    for (int e = 0; e < len; e++) acc = __fmaf_rn(ta[ty][e], tb[e][tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

// 32x8 output tiles with a 32-wide strip of k per step; wrapping int arithmetic.
extern "C" __global__ void matmul_tiled_i32(const int *a, const int *b, int *c, int m, int n,
                                            int k) {
  __shared__ int ta[8][32];
  __shared__ int tb[32][33];
  int tx = threadIdx.x, ty = threadIdx.y; // blockDim = (32, 8)
  int row = blockIdx.y * 8 + ty;
  int col = blockIdx.x * 32 + tx;
  int acc = 0;
  for (int t0 = 0; t0 < k; t0 += 32) {
    ta[ty][tx] = row < m && t0 + tx < k ? a[row * k + t0 + tx] : 0;
    for (int r = ty; r < 32; r += 8)
      tb[r][tx] = t0 + r < k && col < n ? b[(t0 + r) * n + col] : 0;
    __syncthreads();
    for (int e = 0; e < 32; e++) acc += ta[ty][e] * tb[e][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

// y = A x, one warp per row: lane l accumulates columns l, l + 32, ... with fmaf, then the
// lanes' sums meet with shuffles down (16, 8, 4, 2, 1).
extern "C" __global__ void matvec_warp_f32(const float *a, const float *x, float *y, int rows,
                                           int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  float acc = 0.0f;
  for (int j = lane; j < cols; j += 32) acc = __fmaf_rn(a[warp * cols + j], x[j], acc);
  for (int d = 16; d > 0; d >>= 1) acc += __shfl_down_sync(PTXVK_FULL_MASK, acc, d);
  if (lane == 0) y[warp] = acc;
}
