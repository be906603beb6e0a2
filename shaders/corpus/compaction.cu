// Stream compaction (keep the elements > threshold): warp ballots with one atomic per warp
// (order between warps unspecified), and an order-preserving version per block.
#include "ptxvk_cuda.h"

extern "C" __global__ void compact_warp_ballot(const int *in, int *out, unsigned *count,
                                               int threshold, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  bool keep = i < n && in[i] > threshold;
  unsigned votes = __ballot_sync(PTXVK_FULL_MASK, keep);
  unsigned base = 0;
  if (lane == 0 && votes != 0) base = atomicAdd(count, (unsigned)__popc(votes));
  base = __shfl_sync(PTXVK_FULL_MASK, base, 0);
  if (keep) out[base + __popc(votes & ((1u << lane) - 1))] = in[i];
}

// Each block compacts its blockDim.x elements into out[block start ..], keeping their order, and
// stores how many it kept; positions come from a shared-memory exclusive scan of the flags.
extern "C" __global__ void compact_block_ordered(const int *in, int *out, int *kept, int threshold,
                                                 int n) {
  extern __shared__ int pos[];
  int t = threadIdx.x, len = blockDim.x;
  int i = blockIdx.x * len + t;
  int v = i < n ? in[i] : 0;
  int keep = i < n && v > threshold;
  pos[t] = keep;
  __syncthreads();
  for (int o = 1; o < len; o <<= 1) {
    int add = t >= o ? pos[t - o] : 0;
    __syncthreads();
    pos[t] += add;
    __syncthreads();
  }
  if (keep) out[blockIdx.x * len + pos[t] - 1] = v;
  if (t == len - 1) kept[blockIdx.x] = pos[t];
}
