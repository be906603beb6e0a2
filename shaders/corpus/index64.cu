// 64-bit indexing: a grid-stride loop with size_t indices, a gather through 64-bit indices, and
// a strided 2D copy with a byte pitch.
#include "ptxvk_cuda.h"

typedef unsigned long long u64;

extern "C" __global__ void grid_stride_scale_u64(const u64 *in, u64 *out, u64 n, u64 mul) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x)
    out[i] = in[i] * mul + i;
}

extern "C" __global__ void gather_i64_index(const float *src, const long long *idx, float *out,
                                            long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = src[idx[i]];
}

// Copies a width x height block of 32-bit values between two pitched (bytes per row) images.
extern "C" __global__ void pitched_copy_2d(const char *src, u64 src_pitch, char *dst,
                                           u64 dst_pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const unsigned *s = (const unsigned *)(src + y * src_pitch);
  unsigned *d = (unsigned *)(dst + y * dst_pitch);
  d[x] = s[x] ^ (unsigned)y;
}
