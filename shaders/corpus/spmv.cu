// Sparse matrix-vector product y = A x, A in CSR form (row_ptr, col, val): one thread per row,
// and one warp per row with a shuffle reduction. Products are accumulated with fmaf.
#include "ptxvk_cuda.h"

extern "C" __global__ void spmv_csr_scalar(const int *row_ptr, const int *col, const float *val,
                                           const float *x, float *y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int j = row_ptr[r]; j < row_ptr[r + 1]; j++) acc = __fmaf_rn(val[j], x[col[j]], acc);
  y[r] = acc;
}

// Lane l takes entries row_ptr[r] + l, + 32, ...; the lanes' sums meet by xor butterflies.
extern "C" __global__ void spmv_csr_vector(const int *row_ptr, const int *col, const float *val,
                                           const float *x, float *y, int rows) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int j = row_ptr[r] + lane; j < row_ptr[r + 1]; j += 32) acc = __fmaf_rn(val[j], x[col[j]], acc);
  for (int m = 16; m > 0; m >>= 1) acc += __shfl_xor_sync(PTXVK_FULL_MASK, acc, m);
  if (lane == 0) y[r] = acc;
}
