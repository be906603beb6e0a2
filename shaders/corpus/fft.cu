// Radix-2 decimation-in-time FFT on complex floats: a whole transform in one block's shared
// memory, and the multi-block version as a bit-reversal pass plus one launch per stage.
// Twiddles come from a host table (w[j] = exp(-2 pi i j / n), j < n / 2) so the arithmetic is
// the butterfly alone, with explicitly rounded operations:
//   t = w * b = (wr br - wi bi, wr bi + wi br);  a' = a + t;  b' = a - t.
// A third kernel computes its twiddles on the device with __sinf/__cosf.
#include "ptxvk_cuda.h"

struct cfloat {
  float re, im;
};

static __device__ __forceinline__ void butterfly(cfloat &a, cfloat &b, cfloat w) {
  float tr = __fsub_rn(__fmul_rn(w.re, b.re), __fmul_rn(w.im, b.im));
  float ti = __fadd_rn(__fmul_rn(w.re, b.im), __fmul_rn(w.im, b.re));
  b.re = __fsub_rn(a.re, tr);
  b.im = __fsub_rn(a.im, ti);
  a.re = __fadd_rn(a.re, tr);
  a.im = __fadd_rn(a.im, ti);
}

// One transform of n = 2^log2n points per block (n <= 2048, blockDim.x = n / 2); data holds
// gridDim.x transforms back to back.
extern "C" __global__ void fft_shared_c32(cfloat *data, const cfloat *twiddle, int log2n) {
  __shared__ cfloat s[2048];
  int n = 1 << log2n;
  cfloat *x = data + (long)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[__brev(i) >> (32 - log2n)] = x[i];
  __syncthreads();
  for (int half = 1; half < n; half <<= 1) {
    int t = threadIdx.x;
    int j = t & (half - 1);
    int lo = ((t - j) << 1) + j;
    cfloat a = s[lo], b = s[lo + half];
    butterfly(a, b, twiddle[j * (n / (2 * half))]);
    s[lo] = a;
    s[lo + half] = b;
    __syncthreads();
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = s[i];
}

extern "C" __global__ void fft_bitreverse_c32(const cfloat *in, cfloat *out, int log2n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (1u << log2n)) out[__brev(i) >> (32 - log2n)] = in[i];
}

// One stage (butterflies `half` apart) over n / 2 butterflies.
extern "C" __global__ void fft_stage_c32(cfloat *x, const cfloat *twiddle, int log2n, int half) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = 1 << log2n;
  if (t >= n / 2) return;
  int j = t & (half - 1);
  int lo = ((t - j) << 1) + j;
  cfloat a = x[lo], b = x[lo + half];
  butterfly(a, b, twiddle[j * (n / (2 * half))]);
  x[lo] = a;
  x[lo + half] = b;
}

// As fft_shared_c32 with twiddles from the fast sine and cosine.
extern "C" __global__ void fft_sincos_c32(cfloat *data, int log2n) {
  __shared__ cfloat s[2048];
  int n = 1 << log2n;
  cfloat *x = data + (long)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[__brev(i) >> (32 - log2n)] = x[i];
  __syncthreads();
  for (int half = 1; half < n; half <<= 1) {
    int t = threadIdx.x;
    int j = t & (half - 1);
    int lo = ((t - j) << 1) + j;
    float angle = -3.14159265358979f * (float)j / (float)half;
    cfloat w = {__cosf(angle), __sinf(angle)};
    cfloat a = s[lo], b = s[lo + half];
    butterfly(a, b, w);
    s[lo] = a;
    s[lo + half] = b;
    __syncthreads();
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = s[i];
}
