// Calls through function pointers: a table of device functions in global memory (its
// initializer holds function addresses), indexed per element, and a loop applying a program of
// operations.
#include "ptxvk_cuda.h"

typedef int (*int_op)(int, int);
PTXVK_NOINLINE __device__ int op_add(int a, int b) { return a + b; }
PTXVK_NOINLINE __device__ int op_sub(int a, int b) { return a - b; }
PTXVK_NOINLINE __device__ int op_mul(int a, int b) { return a * b; }
PTXVK_NOINLINE __device__ int op_min(int a, int b) { return a < b ? a : b; }

__device__ int_op op_table[4] = {op_add, op_sub, op_mul, op_min};

extern "C" __global__ void call_indirect(const int *a, const int *b, const int *which, int *out,
                                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = op_table[which[i] & 3](a[i], b[i]);
}

// acc = op[prog[j] & 3](acc, a[i] + j) for j < len, from acc = a[i].
extern "C" __global__ void call_indirect_loop(const int *a, const int *prog, int len, int *out,
                                              int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int acc = a[i];
  for (int j = 0; j < len; j++) acc = op_table[prog[j] & 3](acc, a[i] + j);
  out[i] = acc;
}
