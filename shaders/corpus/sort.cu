// Sorting networks and a radix sort pass: bitonic (one block in shared memory, and one global
// step per launch), odd-even transposition, and a 4-bit radix pass (histogram + stable scatter).
#include "ptxvk_cuda.h"

#define SORT_BLOCK 256

// Sorts each chunk of 2 * SORT_BLOCK keys ascending (missing keys are padded with the largest).
extern "C" __global__ void __launch_bounds__(SORT_BLOCK)
    bitonic_sort_block_u32(unsigned *keys, int n) {
  __shared__ unsigned s[2 * SORT_BLOCK];
  int t = threadIdx.x;
  int base = blockIdx.x * 2 * SORT_BLOCK;
  for (int j = t; j < 2 * SORT_BLOCK; j += SORT_BLOCK)
    s[j] = base + j < n ? keys[base + j] : 0xffffffffu;
  for (int size = 2; size <= 2 * SORT_BLOCK; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      __syncthreads();
      int lo = 2 * t - (t & (stride - 1));
      int hi = lo + stride;
      bool ascending = (lo & size) == 0;
      unsigned a = s[lo], b = s[hi];
      if ((a > b) == ascending) {
        s[lo] = b;
        s[hi] = a;
      }
    }
  }
  __syncthreads();
  for (int j = t; j < 2 * SORT_BLOCK; j += SORT_BLOCK)
    if (base + j < n) keys[base + j] = s[j];
}

// One compare-exchange step (size k, distance j) of a bitonic sort over a power-of-two array.
extern "C" __global__ void bitonic_step_i32(int *keys, unsigned n, unsigned j, unsigned k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned partner = i ^ j;
  if (i >= n || partner <= i) return;
  int a = keys[i], b = keys[partner];
  bool ascending = (i & k) == 0;
  if ((a > b) == ascending) {
    keys[i] = b;
    keys[partner] = a;
  }
}

// Odd-even transposition sort of each block's chunk (blockDim.x keys, one per thread).
extern "C" __global__ void odd_even_sort_i32(int *keys, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x, len = blockDim.x;
  int i = blockIdx.x * len + t;
  s[t] = i < n ? keys[i] : 0x7fffffff;
  __syncthreads();
  for (int phase = 0; phase < len; phase++) {
    int lo = 2 * t + (phase & 1);
    int a = 0, b = 0;
    bool active = lo + 1 < len && t < len / 2;
    if (active) {
      a = s[lo];
      b = s[lo + 1];
    }
    __syncthreads();
    if (active && a > b) {
      s[lo] = b;
      s[lo + 1] = a;
    }
    __syncthreads();
  }
  if (i < n) keys[i] = s[t];
}

// Radix sort, pass 1: counts of the 4-bit digit at `shift`, per block in shared memory, then
// added to the global 16-bin histogram.
extern "C" __global__ void radix_histogram_u32(const unsigned *keys, unsigned *hist, int n,
                                               int shift) {
  __shared__ unsigned local[16];
  if (threadIdx.x < 16) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[(keys[i] >> shift) & 15], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

// Radix sort, pass 2 (one block of SORT_BLOCK threads): a stable scatter by the digit at
// `shift`. Digit offsets are the exclusive scan of the histogram; within a chunk, a key's rank
// among keys of its digit comes from a block scan of flags.
extern "C" __global__ void __launch_bounds__(SORT_BLOCK)
    radix_scatter_u32(const unsigned *keys, unsigned *out, const unsigned *hist, int n, int shift) {
  __shared__ unsigned offset[16];
  __shared__ unsigned flags[2][SORT_BLOCK];
  int t = threadIdx.x;
  if (t == 0) {
    unsigned acc = 0;
    for (int d = 0; d < 16; d++) {
      offset[d] = acc;
      acc += hist[d];
    }
  }
  for (int base = 0; base < n; base += SORT_BLOCK) {
    int i = base + t;
    unsigned key = i < n ? keys[i] : 0u;
    unsigned digit = i < n ? (key >> shift) & 15 : 16u;
    for (unsigned d = 0; d < 16; d++) {
      __syncthreads();
      int cur = 0;
      flags[0][t] = digit == d;
      __syncthreads();
      for (int o = 1; o < SORT_BLOCK; o <<= 1) {
        unsigned v = flags[cur][t];
        if (t >= o) v += flags[cur][t - o];
        flags[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
      }
      unsigned inclusive = flags[cur][t];
      if (digit == d) out[offset[d] + inclusive - 1] = key;
      __syncthreads();
      if (t == SORT_BLOCK - 1) offset[d] += inclusive;
    }
  }
}
