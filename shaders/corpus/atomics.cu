// Atomics: compare-and-swap loops (a float maximum, a saturating counter), min/max, exchange,
// wrapping increment, 64-bit and bitwise operations, float add, and shared-memory atomics.
#include "ptxvk_cuda.h"

// The float maximum (no native atom.max.f32 on these targets): a CAS loop on the bits.
static __device__ float atomic_max_float(float *addr, float v) {
  unsigned *p = (unsigned *)addr;
  unsigned old = *p, assumed;
  do {
    assumed = old;
    if (__uint_as_float(assumed) >= v) break;
    old = atomicCAS(p, assumed, __float_as_uint(v));
  } while (old != assumed);
  return __uint_as_float(old);
}

extern "C" __global__ void atomic_cas_max_f32(const float *in, float *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(result, in[i]);
}

// Adds `in[i]` to a counter that saturates at `cap`, with a CAS loop; returns each old value.
extern "C" __global__ void atomic_cas_saturating_add(const unsigned *in, unsigned *counter,
                                                     unsigned *olds, unsigned cap, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned old = *counter, assumed;
  do {
    assumed = old;
    unsigned next = cap - assumed < in[i] ? cap : assumed + in[i];
    old = atomicCAS(counter, assumed, next);
  } while (old != assumed);
  olds[i] = old;
}

// minmax[0] = min, minmax[1] = max of signed values; minmax[2], [3] the same unsigned.
extern "C" __global__ void atomic_min_max(const int *in, int *minmax, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  atomicMin(&minmax[0], v);
  atomicMax(&minmax[1], v);
  atomicMin((unsigned *)&minmax[2], (unsigned)v);
  atomicMax((unsigned *)&minmax[3], (unsigned)v);
}

// Every thread swaps its value into one of `slots` cells and records what it took out.
extern "C" __global__ void atomic_exchange(const int *in, int *cells, int *taken, int slots,
                                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) taken[i] = atomicExch(&cells[i % slots], in[i]);
}

// A counter that wraps to 0 past `limit` (atom.inc): the values handed out are 0, 1, ..., limit,
// 0, 1, ... in some order.
extern "C" __global__ void atomic_inc_wrap(unsigned *counter, unsigned *got, unsigned limit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) got[i] = atomicInc(counter, limit);
}

// 64-bit sum and bitwise and/or/xor of 32-bit words.
extern "C" __global__ void atomic_u64_and_bits(const unsigned long long *in, unsigned long long *sum,
                                               int *bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long v = in[i];
  atomicAdd(sum, v);
  atomicAnd(&bits[0], (int)(v >> 32) | (1 << (i & 31)));
  atomicOr(&bits[1], (int)v & (int)(0x11111111u << (i & 3)));
  atomicXor(&bits[2], (int)v);
}

// Float add of small integers (exact in any order) and of a per-block value in shared memory.
extern "C" __global__ void atomic_add_f32(const float *in, float *total, float *per_block, int n) {
  __shared__ float block_sum;
  if (threadIdx.x == 0) block_sum = 0.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(total, in[i]);
    atomicAdd(&block_sum, in[i]);
  }
  __syncthreads();
  if (threadIdx.x == 0) per_block[blockIdx.x] = block_sum;
}

// Ranks by arrival within a block (shared atom.add), then the block's count once per block.
extern "C" __global__ void atomic_shared_counter(const int *in, int *rank, int *count, int n) {
  __shared__ int next;
  if (threadIdx.x == 0) next = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0) rank[i] = atomicAdd(&next, 1);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(count, next);
}
