// Dynamic shared memory (`extern __shared__`, sized at launch): reversing each block's chunk,
// two arrays carved from one allocation, and a reduction over a block of any size.
#include "ptxvk_cuda.h"

extern "C" __global__ void dyn_reverse_i32(int *data, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  int base = blockIdx.x * blockDim.x;
  int len = n - base < (int)blockDim.x ? n - base : (int)blockDim.x;
  if (t < len) s[t] = data[base + t];
  __syncthreads();
  if (t < len) data[base + t] = s[len - 1 - t];
}

// Shared: blockDim.x floats, then blockDim.x ints. keys[i] = rank of x[i] within its block
// (ties broken by index); out[block start + rank] = x[i].
extern "C" __global__ void dyn_rank_sort_f32(const float *x, float *out, int *ranks, int n) {
  extern __shared__ float fs[];
  float *vals = fs;
  int *valid = (int *)(fs + blockDim.x);
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  vals[t] = i < n ? x[i] : 0.0f;
  valid[t] = i < n;
  __syncthreads();
  if (i >= n) return;
  float v = vals[t];
  int rank = 0;
  for (int j = 0; j < (int)blockDim.x; j++)
    if (valid[j] && (vals[j] < v || (vals[j] == v && j < t))) rank++;
  ranks[i] = rank;
  out[blockIdx.x * blockDim.x + rank] = v;
}

// Sum of each block's elements for any blockDim.x: fold to the power of two below, then a tree.
extern "C" __global__ void dyn_reduce_any_i32(const int *in, int *partial, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x, len = blockDim.x;
  int i = blockIdx.x * len + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  int p = 1;
  while (p * 2 <= len) p *= 2;
  if (t + p < len) s[t] += s[t + p];
  __syncthreads();
  for (int stride = p / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
