// Device functions that stay calls (noinline): scalar arguments and a loop, results through
// pointers to locals, a struct returned by value, and a call chain.
#include "ptxvk_cuda.h"

PTXVK_NOINLINE __device__ unsigned gcd_u32(unsigned a, unsigned b) {
  while (b != 0) {
    unsigned t = a % b;
    a = b;
    b = t;
  }
  return a;
}

extern "C" __global__ void call_gcd(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = gcd_u32(a[i], b[i]);
}

// Floor division and modulo (the remainder has the divisor's sign), results through pointers.
PTXVK_NOINLINE __device__ void floor_divmod(int a, int b, int *q, int *r) {
  int qq = a / b, rr = a % b;
  if (rr != 0 && ((rr < 0) != (b < 0))) {
    qq -= 1;
    rr += b;
  }
  *q = qq;
  *r = rr;
}

extern "C" __global__ void call_divmod(const int *a, const int *b, int *q, int *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int qq, rr;
  floor_divmod(a[i], b[i] == 0 ? 1 : b[i], &qq, &rr);
  q[i] = qq;
  r[i] = rr;
}

struct stats {
  int lo, hi;
  long long sum;
};

// Minimum, maximum and sum of a window, returned as a struct.
PTXVK_NOINLINE __device__ stats window_stats(const int *p, int len) {
  stats s = {p[0], p[0], 0};
  for (int j = 0; j < len; j++) {
    s.lo = p[j] < s.lo ? p[j] : s.lo;
    s.hi = p[j] > s.hi ? p[j] : s.hi;
    s.sum += p[j];
  }
  return s;
}

// Windows of `w` starting at each i (shorter at the end).
extern "C" __global__ void call_struct_return(const int *in, int *lo, int *hi, long long *sum,
                                              int w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  stats s = window_stats(in + i, i + w <= n ? w : n - i);
  lo[i] = s.lo;
  hi[i] = s.hi;
  sum[i] = s.sum;
}

// A chain of calls: mix3 -> mix2 -> mix1.
PTXVK_NOINLINE __device__ unsigned mix1(unsigned x) { return (x ^ (x >> 16)) * 0x45d9f3bu; }
PTXVK_NOINLINE __device__ unsigned mix2(unsigned x) { return mix1(mix1(x) + 0x9e3779b9u); }
PTXVK_NOINLINE __device__ unsigned mix3(unsigned x, unsigned y) { return mix2(x) ^ mix2(y + 1); }

extern "C" __global__ void call_chain(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mix3(in[i], (unsigned)i);
}
