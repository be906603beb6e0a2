// Recursive device functions: Fibonacci, a factorial in 64 bits, and walks of a binary tree
// stored as arrays (sum and depth).
#include "ptxvk_cuda.h"

PTXVK_NOINLINE __device__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void recursive_fib(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fib(in[i] % 16);
}

PTXVK_NOINLINE __device__ unsigned long long factorial(unsigned n) {
  return n <= 1 ? 1ull : n * factorial(n - 1);
}

extern "C" __global__ void recursive_factorial(const unsigned *in, unsigned long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factorial(in[i] % 26);
}

// Node j has children left[j], right[j] (-1: none) and a value.
PTXVK_NOINLINE __device__ long long tree_sum(const int *left, const int *right, const int *value,
                                             int node) {
  if (node < 0) return 0;
  return value[node] + tree_sum(left, right, value, left[node]) +
         tree_sum(left, right, value, right[node]);
}

PTXVK_NOINLINE __device__ int tree_depth(const int *left, const int *right, int node) {
  if (node < 0) return 0;
  int l = tree_depth(left, right, left[node]);
  int r = tree_depth(left, right, right[node]);
  return 1 + (l > r ? l : r);
}

// One thread per root.
extern "C" __global__ void recursive_tree(const int *left, const int *right, const int *value,
                                          const int *roots, long long *sums, int *depths, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sums[i] = tree_sum(left, right, value, roots[i]);
  depths[i] = tree_depth(left, right, roots[i]);
}
