// Warp intrinsics: ballot, any/all, activemask in divergent code, every shuffle kind (also with a
// sub-warp width), match.any/match.all, and the sm_80 warp reductions.
#include "ptxvk_cuda.h"

// out[i] = (ballot of in > 0) for the warp, and popcount of the lanes below this one that voted.
extern "C" __global__ void warp_ballot(const int *in, unsigned *ballots, int *rank, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned b = __ballot_sync(PTXVK_FULL_MASK, i < n && in[i] > 0);
  if (i < n) {
    ballots[i] = b;
    rank[i] = __popc(b & ((1u << lane) - 1));
  }
}

// flags[i] bit 0: any lane of the warp has in > 0; bit 1: all lanes have in > 0 (lanes past n
// vote true for all and false for any).
extern "C" __global__ void warp_any_all(const int *in, int *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool valid = i < n;
  int any = __any_sync(PTXVK_FULL_MASK, valid && in[i] > 0);
  int all = __all_sync(PTXVK_FULL_MASK, !valid || in[i] > 0);
  if (valid) flags[i] = (any ? 1 : 0) | (all ? 2 : 0);
}

// Inside `if (in & 1)`: the mask of lanes that took the branch, and a ballot among them.
extern "C" __global__ void warp_activemask(const int *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned r = 0;
  if (in[i] & 1) {
    unsigned active = __activemask();
    r = active ^ __ballot_sync(active, in[i] & 2);
  }
  out[i] = r;
}

// Every lane reads the value of lane in[i] & 31 (idx), then the value 3 lanes up and 5 lanes
// down (out of range: its own), each in its own output.
extern "C" __global__ void warp_shuffles(const int *in, int *idx, int *up, int *down, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : -1;
  int src = v & 31;
  int a = __shfl_sync(PTXVK_FULL_MASK, v, src);
  int b = __shfl_up_sync(PTXVK_FULL_MASK, v, 3);
  int c = __shfl_down_sync(PTXVK_FULL_MASK, v, 5);
  if (i < n) {
    idx[i] = a;
    up[i] = b;
    down[i] = c;
  }
}

// Shuffles within segments of 8 lanes: a rotate by one inside the segment (idx), and a
// segmented inclusive scan with shfl.up (width 8).
extern "C" __global__ void warp_shuffle_width8(const int *in, int *rot, int *scan, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int seg_lane = threadIdx.x & 7;
  int r = __shfl_sync(PTXVK_FULL_MASK, v, seg_lane + 1, 8);
  int s = v;
  for (int d = 1; d < 8; d <<= 1) {
    int o = __shfl_up_sync(PTXVK_FULL_MASK, s, d, 8);
    if (seg_lane >= d) s += o;
  }
  if (i < n) {
    rot[i] = r;
    scan[i] = s;
  }
}

// Butterfly maximum of floats: every lane gets the warp's maximum.
extern "C" __global__ void warp_xor_max_f32(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : -3.0e38f;
  for (int m = 1; m < 32; m <<= 1) v = fmaxf(v, __shfl_xor_sync(PTXVK_FULL_MASK, v, m));
  if (i < n) out[i] = v;
}

// match.any: the lanes holding the same key; match.all: whether the whole warp agrees on
// key >> 8 (then the full mask, else 0).
extern "C" __global__ void warp_match(const unsigned *keys, unsigned *any, unsigned *all, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned k = i < n ? keys[i] : 0xffffffffu;
  unsigned m = __match_any_sync(PTXVK_FULL_MASK, k);
  int pred;
  unsigned a = __match_all_sync(PTXVK_FULL_MASK, k >> 8, &pred);
  if (i < n) {
    any[i] = m;
    all[i] = pred ? a : 0u;
  }
}

// The warp's sum with redux.sync on sm_80 and later, shuffles before.
extern "C" __global__ void warp_reduce_add(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? in[i] : 0u;
#if __CUDA_ARCH__ >= 800
  unsigned s = __reduce_add_sync(PTXVK_FULL_MASK, v);
#else
  unsigned s = v;
  for (int m = 16; m > 0; m >>= 1) s += __shfl_xor_sync(PTXVK_FULL_MASK, s, m);
#endif
  if (i < n) out[i] = s;
}
