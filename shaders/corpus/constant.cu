// Constant memory: polynomial coefficients, a convolution filter the host may overwrite, and a
// lookup table (CRC-32 a nibble at a time).
#include "ptxvk_cuda.h"

__constant__ float poly_coeffs[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, -0.03125f, 0.015625f, -0.0078125f};

// Horner's rule with fused multiply-adds: c0 + x (c1 + x (c2 + ...)).
extern "C" __global__ void const_poly_f32(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = poly_coeffs[7];
  for (int d = 6; d >= 0; d--) acc = __fmaf_rn(acc, x[i], poly_coeffs[d]);
  out[i] = acc;
}

__constant__ int conv_filter[9] = {1, 2, 3, 4, 5, 4, 3, 2, 1};

// out[i] = sum over k of filter[k] * in[i + k - 4] (0 outside).
extern "C" __global__ void const_conv1d_i32(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int acc = 0;
  for (int k = 0; k < 9; k++) {
    int j = i + k - 4;
    if (j >= 0 && j < n) acc += conv_filter[k] * in[j];
  }
  out[i] = acc;
}

__constant__ unsigned crc_nibble[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
    0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};

// CRC-32 (the zlib one) of each row of `len` bytes.
extern "C" __global__ void const_crc32(const unsigned char *data, unsigned *out, int len, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const unsigned char *p = data + (long)r * len;
  unsigned c = 0xffffffffu;
  for (int j = 0; j < len; j++) {
    c ^= p[j];
    c = (c >> 4) ^ crc_nibble[c & 15];
    c = (c >> 4) ^ crc_nibble[c & 15];
  }
  out[r] = ~c;
}
