// 256-bin byte histograms: global atomics, a per-block copy in shared memory merged at the end,
// and warp-aggregated atomics (lanes with the same bin found with match.any, one add per group).
#include "ptxvk_cuda.h"

extern "C" __global__ void histogram_global(const unsigned char *data, unsigned *hist, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&hist[data[i]], 1u);
}

extern "C" __global__ void histogram_shared(const unsigned char *data, unsigned *hist, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&hist[b], local[b]);
}

// Words of 4 bytes, and bins of `bits` bits (from the low end); all lanes of a warp take part in
// every match, lanes past the end with an impossible bin.
extern "C" __global__ void histogram_warp_aggregated(const unsigned *words, unsigned *hist, int n,
                                                     int bits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned w = i < n ? words[i] : 0u;
  int lane = threadIdx.x & 31;
  for (int byte = 0; byte < 4; byte++) {
    unsigned bin = i < n ? (w >> (8 * byte)) & ((1u << bits) - 1) : 0xffffffffu;
    unsigned peers = __match_any_sync(PTXVK_FULL_MASK, bin);
    int leader = __ffs(peers) - 1;
    if (lane == leader && bin != 0xffffffffu) atomicAdd(&hist[bin], (unsigned)__popc(peers));
  }
}
