// Per-thread arrays indexed at run time (the compiler keeps them in .local memory): an
// insertion sort of 16 values, a per-thread histogram, and a stack for reverse Polish notation.
#include "ptxvk_cuda.h"

// Sorts in[i * 16 .. i * 16 + 16) ascending into out.
extern "C" __global__ void local_sort16(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int a[16];
  for (int j = 0; j < 16; j++) a[j] = in[i * 16 + j];
  for (int j = 1; j < 16; j++) {
    int v = a[j];
    int k = j - 1;
    while (k >= 0 && a[k] > v) {
      a[k + 1] = a[k];
      k--;
    }
    a[k + 1] = v;
  }
  for (int j = 0; j < 16; j++) out[i * 16 + j] = a[j];
}

// Counts of each nibble value in the thread's `len` words; out[i] = the most frequent nibble
// (smallest on ties) * 256 + its count.
extern "C" __global__ void local_histogram(const unsigned *in, int len, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned counts[16];
  for (int j = 0; j < 16; j++) counts[j] = 0;
  for (int j = 0; j < len; j++) {
    unsigned w = in[i * len + j];
    for (int s = 0; s < 32; s += 4) counts[(w >> s) & 15]++;
  }
  unsigned best = 0;
  for (int j = 1; j < 16; j++)
    if (counts[j] > counts[best]) best = j;
  out[i] = best * 256 + counts[best];
}

// Evaluates programs of `len` tokens: t >= 0 pushes t; -1 add, -2 sub, -3 mul, -4 dup, -5 swap,
// other negatives drop the second value.
// A stack of 32; over- or underflow gives the sentinel 0x80000000.
extern "C" __global__ void local_rpn_eval(const int *prog, int len, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int stack[32];
  int sp = 0;
  const int *p = prog + i * len;
  for (int j = 0; j < len; j++) {
    int t = p[j];
    if (t >= 0) {
      if (sp == 32) goto bad;
      stack[sp++] = t;
    } else if (t == -4) {
      if (sp == 0 || sp == 32) goto bad;
      stack[sp] = stack[sp - 1];
      sp++;
    } else {
      if (sp < 2) goto bad;
      int b = stack[--sp], a = stack[sp - 1];
      stack[sp - 1] = t == -1 ? a + b : t == -2 ? a - b : t == -3 ? a * b : b;
      if (t == -5) stack[sp++] = a;
    }
  }
  out[i] = sp > 0 ? stack[sp - 1] : 0;
  return;
bad:
  out[i] = (int)0x80000000;
}
