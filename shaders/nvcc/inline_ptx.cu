// Inline PTX as CUDA C++ libraries write it: a 64-bit add through the carry chain, a byte
// permute, a bit-field extract, a three-input logic op, funnel shift, a warp shuffle and the
// lane id from its special register.
#include <cstdint>

__device__ uint64_t add_carry(uint64_t a, uint64_t b) {
  uint32_t lo, hi;
  asm("add.cc.u32 %0, %2, %4;\n\t"
      "addc.u32 %1, %3, %5;"
      : "=r"(lo), "=r"(hi)
      : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b),
        "r"((uint32_t)(b >> 32)));
  return ((uint64_t)hi << 32) | lo;
}

extern "C" __global__ void inline_ops(const uint32_t *x, const uint32_t *y, uint32_t *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t a = x[i], b = y[i], r;
  uint64_t s = add_carry(((uint64_t)a << 32) | b, ((uint64_t)b << 32) | a);
  out[8 * i + 0] = (uint32_t)s;
  out[8 * i + 1] = (uint32_t)(s >> 32);
  asm("prmt.b32 %0, %1, %2, 0x5140;" : "=r"(r) : "r"(a), "r"(b));
  out[8 * i + 2] = r;
  asm("bfe.u32 %0, %1, 4, 12;" : "=r"(r) : "r"(a));
  out[8 * i + 3] = r;
  // An arbitrary truth table of three inputs.
  asm("lop3.b32 %0, %1, %2, %3, 0x95;" : "=r"(r) : "r"(a), "r"(b), "r"(~a));
  out[8 * i + 4] = r;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(b), "r"(a), "r"(i));
  out[8 * i + 5] = r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(r) : "r"(a));
  out[8 * i + 6] = r;
  asm("mov.u32 %0, %%laneid;" : "=r"(r));
  out[8 * i + 7] = r;
}
