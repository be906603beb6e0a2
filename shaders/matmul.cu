// C = A * B for row-major n x n matrices of floats, in 16 x 16 tiles staged through shared
// memory (runtime/examples/matmul.rs). Launch with 16 x 16 blocks and ceil(n / 16)^2 of them.
#include "ptxvk_cuda.h"

#define TILE 16

extern "C" __global__ void matmul(const float *a, const float *b, float *c, unsigned n) {
  __shared__ float ta[TILE][TILE];
  __shared__ float tb[TILE][TILE];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned row = blockIdx.y * TILE + ty;
  unsigned col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (unsigned k0 = 0; k0 < n; k0 += TILE) {
    ta[ty][tx] = (row < n && k0 + tx < n) ? a[row * n + k0 + tx] : 0.0f;
    tb[ty][tx] = (col < n && k0 + ty < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();
    for (unsigned k = 0; k < TILE; ++k) {
      acc = __nvvm_fma_rn_f(ta[ty][k], tb[k][tx], acc);
    }
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}
