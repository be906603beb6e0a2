// Integer intrinsics: popc/clz/ffs/brev, bit-field extraction from shifts and masks, high
// halves of products, funnel shifts, byte permutes and sums of absolute differences, and
// division by constants and by variables.
#include "ptxvk_cuda.h"

// out[4i..4i+4) = popc, clz, ffs, brev of x; out64[2i..] = popcll, clzll of the 64-bit pair.
extern "C" __global__ void int_bit_counts(const unsigned *x, unsigned *out, unsigned *out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  out[4 * i + 0] = __popc(v);
  out[4 * i + 1] = __clz(v);
  out[4 * i + 2] = __ffs(v);
  out[4 * i + 3] = __brev(v);
  unsigned long long w = ((unsigned long long)v << 32) | x[(i + 1) % n];
  out64[2 * i + 0] = __popcll(w);
  out64[2 * i + 1] = __clzll(w);
}

// Fixed fields (unsigned bits 5..11, signed bits 24..28, unsigned 64-bit bits 20..51) and a
// run-time field of `len` bits at `pos` (len < 32).
extern "C" __global__ void int_bitfields(const unsigned *x, unsigned *out, int pos, int len, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  unsigned long long w = ((unsigned long long)x[(i + 1) % n] << 32) | v;
  out[4 * i + 0] = (v >> 5) & 0x7f;
  out[4 * i + 1] = (unsigned)(((int)v << 3) >> 27);
  out[4 * i + 2] = (unsigned)((w >> 20) & 0xffffffffull);
  out[4 * i + 3] = (v >> pos) & ((1u << len) - 1);
}

extern "C" __global__ void int_mulhi(const unsigned *a, const unsigned *b, unsigned *hi32,
                                     unsigned long long *hi64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  hi32[2 * i + 0] = __umulhi(x, y);
  hi32[2 * i + 1] = (unsigned)__mulhi((int)x, (int)y);
  unsigned long long p = ((unsigned long long)x << 32) | y, q = ((unsigned long long)y << 32) | x;
  hi64[2 * i + 0] = __umul64hi(p, q);
  hi64[2 * i + 1] = (unsigned long long)__mul64hi((long long)p, (long long)q);
}

// Funnel shifts of (hi:lo) by s (wrap: s mod 32; clamp: min(s, 32)), and rotates.
extern "C" __global__ void int_funnel_shift(const unsigned *lo, const unsigned *hi,
                                            const unsigned *s, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned l = lo[i], h = hi[i], sh = s[i];
  out[4 * i + 0] = __funnelshift_l(l, h, sh);
  out[4 * i + 1] = __funnelshift_r(l, h, sh);
  out[4 * i + 2] = __funnelshift_lc(l, h, sh);
  unsigned r = sh & 31;
  out[4 * i + 3] = (l << r) | (l >> ((32 - r) & 31));
}

extern "C" __global__ void int_byte_perm_sad(const unsigned *a, const unsigned *b,
                                             const unsigned *sel, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[2 * i + 0] = __byte_perm(a[i], b[i], sel[i]);
  out[2 * i + 1] = __usad(a[i], b[i], sel[i]);
}

// Quotients and remainders by constants (multiply-high sequences) and by a variable divisor.
extern "C" __global__ void int_div_rem(const int *x, const int *d, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i], dv = d[i];
  unsigned u = (unsigned)v;
  out[6 * i + 0] = v / 7;
  out[6 * i + 1] = v % 10;
  out[6 * i + 2] = (int)(u / 1000u);
  out[6 * i + 3] = (int)(u % 3u);
  out[6 * i + 4] = dv == 0 || (dv == -1 && v == (int)0x80000000) ? 0 : v / dv;
  out[6 * i + 5] = dv != 0 ? (int)(u % (unsigned)dv) : 0;
}
