// A device function called with a struct by value and returning a struct: the call sequence,
// .param structs, and the local-memory depot clang emits for them.
#include "ptxvk_cuda.h"

struct pair {
  int a;
  float b;
};

__device__ __attribute__((noinline)) pair mix(int x, pair p, const float *table) {
  pair r;
  r.a = x * p.a + (int)table[x & 3];
  r.b = p.b * 0.5f + table[(x + 1) & 3];
  return r;
}

extern "C" __global__ void calls(const float *table, int *oi, float *of, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  pair p = {i + 1, (float)i};
  pair q = mix(i, p, table);
  oi[i] = q.a;
  of[i] = q.b;
}
