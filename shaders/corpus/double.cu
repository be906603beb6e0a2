// Double precision: daxpy, a dot product reduced in shared memory, a 2-norm with sqrt, Horner
// polynomial evaluation, Newton's iteration for the reciprocal, and division.
#include "ptxvk_cuda.h"

extern "C" __global__ void daxpy_f64(int n, double a, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fma_rn(a, x[i], y[i]);
}

// Products rounded, then a shared tree over 128 threads (stride 64, 32, ..., 1).
extern "C" __global__ void __launch_bounds__(128)
    ddot_partial_f64(const double *x, const double *y, double *partial, int n) {
  __shared__ double s[128];
  int t = threadIdx.x;
  int i = blockIdx.x * 128 + t;
  s[t] = i < n ? __dmul_rn(x[i], y[i]) : 0.0;
  __syncthreads();
  for (int stride = 64; stride > 0; stride >>= 1) {
    if (t < stride) s[t] = __dadd_rn(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// sqrt(x^2 + y^2) with each operation correctly rounded.
extern "C" __global__ void dnorm2_f64(const double *x, const double *y, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrt(__dadd_rn(__dmul_rn(x[i], x[i]), __dmul_rn(y[i], y[i])));
}

// p(x) = c[0] + x (c[1] + x (c[2] + ...)) by Horner's rule with fused multiply-adds.
extern "C" __global__ void dhorner_f64(const double *x, const double *c, int degree, double *out,
                                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = c[degree];
  for (int d = degree - 1; d >= 0; d--) acc = __fma_rn(acc, x[i], c[d]);
  out[i] = acc;
}

// r = 1 / x by Newton's iteration r' = r (2 - x r) from a float estimate, `iters` times, with
// rounded multiplications (no fused operations); and the correctly rounded quotient.
extern "C" __global__ void drecip_newton_f64(const double *x, double *newton, double *quotient,
                                             int iters, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  double r = (double)__frcp_rn((float)v);
  for (int k = 0; k < iters; k++) r = __dmul_rn(r, __dadd_rn(2.0, -__dmul_rn(v, r)));
  newton[i] = r;
  quotient[i] = __ddiv_rn(1.0, v);
}
