// Half precision (binary16): axpy with fused multiply-add, a dot product with half products
// accumulated in float, packed half2 arithmetic, conversions and a ReLU with max.
#include "ptxvk_cuda.h"

extern "C" __global__ void haxpy_f16(int n, float a, const ptxvk_half *x, ptxvk_half *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = ptxvk_hfma(ptxvk_f2h(a), x[i], y[i]);
}

// Per thread: sum over j = i, i + stride, ... of float(x[j] * y[j]) (each product rounded to half).
extern "C" __global__ void hdot_partial_f16(const ptxvk_half *x, const ptxvk_half *y, float *partial,
                                            int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  float acc = 0.0f;
  for (int j = i; j < n; j += stride) acc = __fadd_rn(acc, ptxvk_h2f(ptxvk_hmul(x[j], y[j])));
  partial[i] = acc;
}

// Pairs of halves: out = a * b + c (fused, per lane) then + c again (rounded add).
extern "C" __global__ void hfma2_f16x2(const ptxvk_half2 *a, const ptxvk_half2 *b,
                                       const ptxvk_half2 *c, ptxvk_half2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ptxvk_hadd2(ptxvk_hfma2(a[i], b[i], c[i]), c[i]);
}

// float -> half (nearest even) -> ReLU (max with 0) -> minus 1 -> float.
extern "C" __global__ void hrelu_convert(const float *in, float *out, ptxvk_half *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  ptxvk_half v = ptxvk_hmax(ptxvk_f2h(in[i]), ptxvk_f2h(0.0f));
  h[i] = v;
  out[i] = ptxvk_h2f(ptxvk_hsub(v, ptxvk_f2h(1.0f)));
}
