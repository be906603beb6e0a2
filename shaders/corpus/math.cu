// Math functions: correctly rounded sqrt and division, the fast approximations (rsqrt, exp,
// log, sin, cos, divide), rounding to integers, min/max/saturate, and double sqrt.
#include "ptxvk_cuda.h"

extern "C" __global__ void math_sqrt_div_f32(const float *a, const float *b, float *sq, float *q,
                                             float *rcp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sq[i] = sqrtf(a[i]);
  q[i] = __fdiv_rn(a[i], b[i]);
  rcp[i] = __frcp_rn(b[i]);
}

extern "C" __global__ void math_rsqrt_f32(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = rsqrtf(x[i]);
}

extern "C" __global__ void math_exp_log_f32(const float *x, float *e, float *l, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  e[i] = __expf(x[i]);
  l[i] = __logf(fabsf(x[i]) + 1.0f);
}

extern "C" __global__ void math_sincos_f32(const float *x, float *s, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[i] = __sinf(x[i]);
  c[i] = __cosf(x[i]);
}

extern "C" __global__ void math_fast_divide_f32(const float *a, const float *b, float *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = __fdividef(a[i], b[i]);
}

// floor, ceil, trunc, rint (nearest even) of x, as four outputs in one array (4 per element).
extern "C" __global__ void math_round_f32(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  out[4 * i + 0] = floorf(v);
  out[4 * i + 1] = ceilf(v);
  out[4 * i + 2] = truncf(v);
  out[4 * i + 3] = rintf(v);
}

// fminf, fmaxf (a NaN operand gives the other one), saturate to [0, 1], and |a|.
extern "C" __global__ void math_minmax_sat_f32(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[4 * i + 0] = fminf(a[i], b[i]);
  out[4 * i + 1] = fmaxf(a[i], b[i]);
  out[4 * i + 2] = __saturatef(a[i]);
  out[4 * i + 3] = fabsf(a[i]);
}

// Correctly rounded sqrt and quotient in double, and float <-> int conversions.
extern "C" __global__ void math_sqrt_f64_convert(const double *x, double *sq, int *to_int,
                                                 float *to_float, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sq[i] = sqrt(x[i]);
  to_int[i] = __float2int_rn((float)x[i]);
  to_float[i] = __int2float_rn((int)(long long)x[i]);
}
