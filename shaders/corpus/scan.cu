// Prefix sums: Hillis-Steele (double-buffered), Blelloch (work-efficient, exclusive), a warp
// scan with shuffles, and the pass that adds block offsets for a multi-block scan.
#include "ptxvk_cuda.h"

#define SCAN_BLOCK 256

// Inclusive scan of each block's SCAN_BLOCK elements; the block's total goes to `sums`.
extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
    scan_hillis_steele_i32(const int *in, int *out, int *sums, int n) {
  __shared__ int buf[2][SCAN_BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * SCAN_BLOCK + t;
  int cur = 0;
  buf[cur][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < SCAN_BLOCK; offset <<= 1) {
    int v = buf[cur][t];
    if (t >= offset) v += buf[cur][t - offset];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][t];
  if (t == SCAN_BLOCK - 1) sums[blockIdx.x] = buf[cur][t];
}

// Exclusive scan of 2 * SCAN_BLOCK elements per block (Blelloch: up-sweep, clear, down-sweep).
extern "C" __global__ void __launch_bounds__(SCAN_BLOCK)
    scan_blelloch_u32(const unsigned *in, unsigned *out, unsigned *sums, int n) {
  __shared__ unsigned s[2 * SCAN_BLOCK];
  int t = threadIdx.x;
  int base = blockIdx.x * 2 * SCAN_BLOCK;
  s[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0u;
  s[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0u;
  int offset = 1;
  for (int d = SCAN_BLOCK; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      s[bi] += s[ai];
    }
    offset <<= 1;
  }
  if (t == 0) {
    sums[blockIdx.x] = s[2 * SCAN_BLOCK - 1];
    s[2 * SCAN_BLOCK - 1] = 0;
  }
  for (int d = 1; d <= SCAN_BLOCK; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      unsigned x = s[ai];
      s[ai] = s[bi];
      s[bi] += x;
    }
  }
  __syncthreads();
  if (base + 2 * t < n) out[base + 2 * t] = s[2 * t];
  if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = s[2 * t + 1];
}

// Inclusive block scan from warp scans: each warp scans with shuffles up, warp totals are
// scanned by warp 0, and each warp adds the totals of the warps before it.
extern "C" __global__ void scan_warp_i32(const int *in, int *out, int n) {
  __shared__ int totals[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int v = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(PTXVK_FULL_MASK, v, d);
    if (lane >= d) v += up;
  }
  if (lane == 31) totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int nwarps = (blockDim.x + 31) >> 5;
    int tv = lane < nwarps ? totals[lane] : 0;
    for (int d = 1; d < 32; d <<= 1) {
      int up = __shfl_up_sync(PTXVK_FULL_MASK, tv, d);
      if (lane >= d) tv += up;
    }
    totals[lane] = tv;
  }
  __syncthreads();
  if (warp > 0) v += totals[warp - 1];
  if (i < n) out[i] = v;
}

// Second pass of a multi-block inclusive scan: block b adds the inclusive scan of the block
// sums up to b - 1.
extern "C" __global__ void scan_add_offsets_i32(int *data, const int *scanned_sums, int n,
                                                int per_block) {
  int b = blockIdx.x;
  if (b == 0) return;
  int add = scanned_sums[b - 1];
  for (int j = threadIdx.x; j < per_block; j += blockDim.x) {
    int i = b * per_block + j;
    if (i < n) data[i] += add;
  }
}
