// Loops with break and continue, a nested search left with goto, a data-dependent while loop,
// do-while, and an unrolled loop with a remainder.
#include "ptxvk_cuda.h"

// Sum of the row's elements, skipping multiples of 3 (continue) and stopping at the first
// negative one (break).
extern "C" __global__ void loop_break_continue(const int *rows, int *out, int width, int nrows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrows) return;
  const int *row = rows + r * width;
  int acc = 0;
  for (int j = 0; j < width; j++) {
    int v = row[j];
    if (v < 0) break;
    if (v % 3 == 0) continue;
    acc += v;
  }
  out[r] = acc;
}

// The first (a, b), a <= b < limit, with a * a + b * b == target (encoded a * 65536 + b), or -1.
extern "C" __global__ void loop_nested_goto(const int *targets, int *out, int limit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int t = targets[i];
  int found = -1;
  for (int a = 0; a < limit; a++) {
    for (int b = a; b < limit; b++) {
      int s = a * a + b * b;
      if (s > t) break;
      if (s == t) {
        found = a * 65536 + b;
        goto done;
      }
    }
  }
done:
  out[i] = found;
}

// Collatz steps to reach 1 (capped at `cap`).
extern "C" __global__ void loop_collatz(const unsigned *in, unsigned *steps, unsigned cap, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = in[i];
  unsigned s = 0;
  while (x > 1 && s < cap) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    s++;
  }
  steps[i] = s;
}

// Digit sum in base `base` (do-while: 0 has one digit), and the number of digits.
extern "C" __global__ void loop_do_while_digits(const unsigned *in, unsigned *sum, unsigned *count,
                                                unsigned base, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], s = 0, c = 0;
  do {
    s += x % base;
    x /= base;
    c++;
  } while (x != 0);
  sum[i] = s;
  count[i] = c;
}

// Polynomial hash of each row of `len` bytes, the loop unrolled by 4 with a remainder.
extern "C" __global__ void loop_unrolled_hash(const unsigned char *data, unsigned *out, int len,
                                              int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const unsigned char *p = data + (long)r * len;
  unsigned h = 2166136261u;
#pragma unroll 4
  for (int j = 0; j < len; j++) h = (h ^ p[j]) * 16777619u;
  out[r] = h;
}
