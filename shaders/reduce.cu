// Sum of n unsigned integers (runtime/examples/reduction.rs): each block of 256 threads adds
// 2 * 256 elements through a tree in shared memory and writes one partial sum; running the
// kernel again on the partial sums finishes the job.
#include "ptxvk_cuda.h"

#define BLOCK 256

extern "C" __global__ void reduce_sum(const unsigned *in, unsigned *out, unsigned n) {
  __shared__ unsigned partial[BLOCK];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * (2 * BLOCK) + t;
  unsigned v = 0;
  if (i < n) v += in[i];
  if (i + BLOCK < n) v += in[i + BLOCK];
  partial[t] = v;
  __syncthreads();
  for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
