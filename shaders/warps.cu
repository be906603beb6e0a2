// Warp-level patterns CUDA programs use: reductions and scans with shuffles, the block
// reduction with `if (warp == 0)`, ballots in divergent code.
#include "ptxvk_cuda.h"

// Each warp sums its 32 values; lane 0 writes the warp's sum.
extern "C" __global__ void warp_sum(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(PTXVK_FULL_MASK, v, o);
  if ((threadIdx.x & 31) == 0) out[i >> 5] = v;
}

// Inclusive prefix sums within each warp.
extern "C" __global__ void warp_scan(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = i < n ? in[i] : 0;
  for (int o = 1; o < 32; o <<= 1) {
    int up = __shfl_up_sync(PTXVK_FULL_MASK, v, o);
    if (lane >= o) v += up;
  }
  if (i < n) out[i] = v;
}

// One sum per block: warps reduce, lane 0s meet in shared memory, warp 0 reduces the partials.
extern "C" __global__ void block_sum(const int *in, int *out, int n) {
  __shared__ int partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(PTXVK_FULL_MASK, v, o);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int warps = (blockDim.x + 31) >> 5;
    v = lane < warps ? partial[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(PTXVK_FULL_MASK, v, o);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// Ballots in divergent code: only threads with odd input vote, inside that branch.
extern "C" __global__ void divergent_ballot(const int *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = 0xdeadbeefu;
  if (i < n && (in[i] & 1)) {
    unsigned active = __activemask();
    r = __ballot_sync(active, in[i] > 100) ^ (active << 1);
  }
  if (i < n) out[i] = r;
}
