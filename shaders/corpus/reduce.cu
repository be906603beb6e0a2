// Reductions: a shared-memory tree, warp shuffles, global atomics, and the sm_80 warp reduce.
#include "ptxvk_cuda.h"

#define RED_BLOCK 256

// One partial sum per block: a tree in shared memory, the stride halving each step.
extern "C" __global__ void __launch_bounds__(RED_BLOCK)
    reduce_tree_i32(const int *in, int *partial, int n) {
  __shared__ int s[RED_BLOCK];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * RED_BLOCK + t;
  s[t] = i < (unsigned)n ? in[i] : 0;
  __syncthreads();
  for (unsigned stride = RED_BLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// The same tree on floats, each thread adding two elements on the way in (a block covers
// 2 * RED_BLOCK elements). The order of additions is fixed: s[t] = x[t] + x[t + RED_BLOCK],
// then s[t] += s[t + stride] for stride = 128, 64, ..., 1.
extern "C" __global__ void __launch_bounds__(RED_BLOCK)
    reduce_tree_f32(const float *in, float *partial, int n) {
  __shared__ float s[RED_BLOCK];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * (2 * RED_BLOCK) + t;
  float a = i < (unsigned)n ? in[i] : 0.0f;
  float b = i + RED_BLOCK < (unsigned)n ? in[i + RED_BLOCK] : 0.0f;
  s[t] = a + b;
  __syncthreads();
  for (unsigned stride = RED_BLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] = s[t] + s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// Warp shuffles: every lane ends with its warp's sum (butterfly), lane 0 of each warp stores it
// in shared memory, warp 0 adds the warp sums with shuffles down.
extern "C" __global__ void reduce_warp_i32(const int *in, int *partial, int n) {
  __shared__ int warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int v = i < n ? in[i] : 0;
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(PTXVK_FULL_MASK, v, m);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int nwarps = (blockDim.x + 31) / 32;
    v = lane < nwarps ? warp_sums[lane] : 0;
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(PTXVK_FULL_MASK, v, d);
    if (lane == 0) partial[blockIdx.x] = v;
  }
}

// Grid-stride accumulation per thread, then one atomic add per thread into a single total.
extern "C" __global__ void reduce_atomic_u64(const unsigned *in, unsigned long long *total, int n) {
  unsigned long long acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    acc += in[i];
  atomicAdd(total, acc);
}

// The maximum: the warp's maximum with redux.sync where the target has it (sm_80), shuffles
// otherwise; one atomicMax per warp.
extern "C" __global__ void reduce_max_u32(const unsigned *in, unsigned *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? in[i] : 0u;
#if __CUDA_ARCH__ >= 800
  v = __reduce_max_sync(PTXVK_FULL_MASK, v);
#else
  for (int m = 16; m > 0; m >>= 1) {
    unsigned o = __shfl_xor_sync(PTXVK_FULL_MASK, v, m);
    v = o > v ? o : v;
  }
#endif
  if ((threadIdx.x & 31) == 0) atomicMax(result, v);
}
