// ptxvk_cuda.h: the CUDA names our kernels use, for three compilers.
//  - clang's NVPTX back end without the CUDA headers (`-nocudainc -nocudalib`): defined here with
//    clang's NVVM builtins (no libdevice, so only functions that are one PTX instruction or a few).
//  - NVIDIA's NVRTC (`__CUDACC_RTC__`), which has CUDA's device functions built in: only what it
//    lacks without `cuda_fp16.h` (half precision) is defined here. nvcc (`__NVCC__`) takes the
//    same branch, so that its PTX and NVRTC's come from the same half-precision code.
// Only what the sources in shaders/ need; our own, kept small.
#pragma once

#define PTXVK_FULL_MASK 0xffffffffu
#define PTXVK_NOINLINE __attribute__((noinline))

#if defined(__CUDACC_RTC__) || defined(__NVCC__)

// Half precision as NVRTC has no cuda_fp16.h: a 16-bit value and the PTX f16 instructions.
struct ptxvk_half {
  unsigned short bits;
};
static __device__ __forceinline__ ptxvk_half ptxvk_f2h(float f) {
  ptxvk_half h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
}
static __device__ __forceinline__ float ptxvk_h2f(ptxvk_half h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
}
#define PTXVK_HALF_BINOP(NAME, INST)                                                             \
  static __device__ __forceinline__ ptxvk_half NAME(ptxvk_half a, ptxvk_half b) {               \
    ptxvk_half r;                                                                                \
    asm(INST " %0, %1, %2;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits));                          \
    return r;                                                                                    \
  }
PTXVK_HALF_BINOP(ptxvk_hadd, "add.rn.f16")
PTXVK_HALF_BINOP(ptxvk_hsub, "sub.rn.f16")
PTXVK_HALF_BINOP(ptxvk_hmul, "mul.rn.f16")
static __device__ __forceinline__ ptxvk_half ptxvk_hfma(ptxvk_half a, ptxvk_half b, ptxvk_half c) {
  ptxvk_half r;
  asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits), "h"(c.bits));
  return r;
}
static __device__ __forceinline__ bool ptxvk_hlt(ptxvk_half a, ptxvk_half b) {
  unsigned short r;
  asm("{ .reg .pred p; setp.lt.f16 p, %1, %2; selp.u16 %0, 1, 0, p; }"
      : "=h"(r)
      : "h"(a.bits), "h"(b.bits));
  return r != 0;
}

// Two halves in one 32-bit register (CUDA's __half2).
struct ptxvk_half2 {
  unsigned bits;
};
static __device__ __forceinline__ ptxvk_half2 ptxvk_hfma2(ptxvk_half2 a, ptxvk_half2 b,
                                                          ptxvk_half2 c) {
  ptxvk_half2 r;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r.bits) : "r"(a.bits), "r"(b.bits), "r"(c.bits));
  return r;
}
static __device__ __forceinline__ ptxvk_half2 ptxvk_hadd2(ptxvk_half2 a, ptxvk_half2 b) {
  ptxvk_half2 r;
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r.bits) : "r"(a.bits), "r"(b.bits));
  return r;
}

#else // clang

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

struct ptxvk_uint3 {
  unsigned int x, y, z;
};

static __device__ __forceinline__ ptxvk_uint3 ptxvk_tid() {
  return {(unsigned)__nvvm_read_ptx_sreg_tid_x(), (unsigned)__nvvm_read_ptx_sreg_tid_y(),
          (unsigned)__nvvm_read_ptx_sreg_tid_z()};
}
static __device__ __forceinline__ ptxvk_uint3 ptxvk_ntid() {
  return {(unsigned)__nvvm_read_ptx_sreg_ntid_x(), (unsigned)__nvvm_read_ptx_sreg_ntid_y(),
          (unsigned)__nvvm_read_ptx_sreg_ntid_z()};
}
static __device__ __forceinline__ ptxvk_uint3 ptxvk_ctaid() {
  return {(unsigned)__nvvm_read_ptx_sreg_ctaid_x(), (unsigned)__nvvm_read_ptx_sreg_ctaid_y(),
          (unsigned)__nvvm_read_ptx_sreg_ctaid_z()};
}
static __device__ __forceinline__ ptxvk_uint3 ptxvk_nctaid() {
  return {(unsigned)__nvvm_read_ptx_sreg_nctaid_x(), (unsigned)__nvvm_read_ptx_sreg_nctaid_y(),
          (unsigned)__nvvm_read_ptx_sreg_nctaid_z()};
}

#define threadIdx (ptxvk_tid())
#define blockDim (ptxvk_ntid())
#define blockIdx (ptxvk_ctaid())
#define gridDim (ptxvk_nctaid())
#define warpSize 32

// Synchronization. `__syncthreads()` is a clang builtin for NVPTX (`bar.sync 0`, as nvcc emits).
#define __syncwarp(mask) __nvvm_bar_warp_sync(mask)
#define __threadfence() __nvvm_membar_gl()
#define __threadfence_block() __nvvm_membar_cta()

// Warp shuffles: `c` packs the segment mask ((32 - width) << 8) and the clamp lane, as CUDA's own.
#define PTXVK_SHFL(T, SUFFIX)                                                                    \
  static __device__ __forceinline__ T __shfl_sync(unsigned mask, T v, int lane, int width = 32) { \
    return __nvvm_shfl_sync_idx_##SUFFIX(mask, v, lane, ((32 - width) << 8) | 0x1f);             \
  }                                                                                              \
  static __device__ __forceinline__ T __shfl_up_sync(unsigned mask, T v, unsigned delta,         \
                                                     int width = 32) {                           \
    return __nvvm_shfl_sync_up_##SUFFIX(mask, v, delta, (32 - width) << 8);                      \
  }                                                                                              \
  static __device__ __forceinline__ T __shfl_down_sync(unsigned mask, T v, unsigned delta,       \
                                                       int width = 32) {                         \
    return __nvvm_shfl_sync_down_##SUFFIX(mask, v, delta, ((32 - width) << 8) | 0x1f);           \
  }                                                                                              \
  static __device__ __forceinline__ T __shfl_xor_sync(unsigned mask, T v, int lane_mask,         \
                                                      int width = 32) {                          \
    return __nvvm_shfl_sync_bfly_##SUFFIX(mask, v, lane_mask, ((32 - width) << 8) | 0x1f);       \
  }
PTXVK_SHFL(int, i32)
PTXVK_SHFL(float, f32)
#undef PTXVK_SHFL
static __device__ __forceinline__ unsigned __shfl_sync(unsigned mask, unsigned v, int lane,
                                                       int width = 32) {
  return (unsigned)__shfl_sync(mask, (int)v, lane, width);
}
static __device__ __forceinline__ unsigned __shfl_up_sync(unsigned mask, unsigned v,
                                                          unsigned delta, int width = 32) {
  return (unsigned)__shfl_up_sync(mask, (int)v, delta, width);
}
static __device__ __forceinline__ unsigned __shfl_down_sync(unsigned mask, unsigned v,
                                                            unsigned delta, int width = 32) {
  return (unsigned)__shfl_down_sync(mask, (int)v, delta, width);
}
static __device__ __forceinline__ unsigned __shfl_xor_sync(unsigned mask, unsigned v,
                                                           int lane_mask, int width = 32) {
  return (unsigned)__shfl_xor_sync(mask, (int)v, lane_mask, width);
}
// A double moves as two 32-bit halves, as in CUDA.
static __device__ __forceinline__ double __shfl_xor_sync(unsigned mask, double v, int lane_mask,
                                                         int width = 32) {
  long long b = __builtin_bit_cast(long long, v);
  int lo = __shfl_xor_sync(mask, (int)b, lane_mask, width);
  int hi = __shfl_xor_sync(mask, (int)(b >> 32), lane_mask, width);
  return __builtin_bit_cast(double, ((long long)hi << 32) | (unsigned)lo);
}

// Votes and matches.
static __device__ __forceinline__ unsigned __ballot_sync(unsigned mask, int p) {
  return __nvvm_vote_ballot_sync(mask, p);
}
static __device__ __forceinline__ int __any_sync(unsigned mask, int p) { return __nvvm_vote_any_sync(mask, p); }
static __device__ __forceinline__ int __all_sync(unsigned mask, int p) { return __nvvm_vote_all_sync(mask, p); }
static __device__ __forceinline__ unsigned __activemask() { return __nvvm_activemask(); }
static __device__ __forceinline__ unsigned __match_any_sync(unsigned mask, unsigned v) {
  return __nvvm_match_any_sync_i32(mask, v);
}
static __device__ __forceinline__ unsigned __match_all_sync(unsigned mask, unsigned v, int *pred) {
  return __nvvm_match_all_sync_i32p(mask, v, pred);
}
#if __CUDA_ARCH__ >= 800
static __device__ __forceinline__ unsigned __reduce_add_sync(unsigned mask, unsigned v) {
  return __nvvm_redux_sync_add(v, mask);
}
static __device__ __forceinline__ unsigned __reduce_max_sync(unsigned mask, unsigned v) {
  return __nvvm_redux_sync_umax(v, mask);
}
#endif

// Atomics: generic-address forms; the back end picks .global or .shared where it can tell.
static __device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
static __device__ __forceinline__ unsigned long long atomicAdd(unsigned long long *p,
                                                               unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
static __device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
static __device__ __forceinline__ int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
static __device__ __forceinline__ int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicExch(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_xchg_gen_i((int *)p, (int)v);
}
static __device__ __forceinline__ int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicMin(unsigned *p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
static __device__ __forceinline__ unsigned atomicMax(unsigned *p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
static __device__ __forceinline__ long long atomicMin(long long *p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
static __device__ __forceinline__ long long atomicMax(long long *p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
static __device__ __forceinline__ unsigned atomicInc(unsigned *p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
static __device__ __forceinline__ unsigned atomicDec(unsigned *p, unsigned v) { return __nvvm_atom_dec_gen_ui(p, v); }
static __device__ __forceinline__ int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
static __device__ __forceinline__ unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v);
}
static __device__ __forceinline__ unsigned long long atomicCAS(unsigned long long *p,
                                                               unsigned long long cmp,
                                                               unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)cmp, (long long)v);
}
static __device__ __forceinline__ int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
static __device__ __forceinline__ int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
static __device__ __forceinline__ int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }

// Integer intrinsics.
static __device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
static __device__ __forceinline__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static __device__ __forceinline__ int __clz(int x) { return __builtin_clzg((unsigned)x, 32); }
static __device__ __forceinline__ int __clzll(long long x) {
  return __builtin_clzg((unsigned long long)x, 64);
}
static __device__ __forceinline__ int __ffs(int x) { return __builtin_ffs(x); }
static __device__ __forceinline__ unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
static __device__ __forceinline__ unsigned long long __brevll(unsigned long long x) {
  return __builtin_bitreverse64(x);
}
static __device__ __forceinline__ unsigned __umulhi(unsigned a, unsigned b) { return __nvvm_mulhi_ui(a, b); }
static __device__ __forceinline__ int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }
static __device__ __forceinline__ unsigned long long __umul64hi(unsigned long long a,
                                                               unsigned long long b) {
  return __nvvm_mulhi_ull(a, b);
}
static __device__ __forceinline__ long long __mul64hi(long long a, long long b) {
  return __nvvm_mulhi_ll(a, b);
}
static __device__ __forceinline__ unsigned __byte_perm(unsigned a, unsigned b, unsigned s) {
  return __nvvm_prmt(a, b, s);
}
static __device__ __forceinline__ unsigned __usad(unsigned a, unsigned b, unsigned c) {
  return __nvvm_sad_ui(a, b, c);
}
// CUDA's own definitions of the funnel shifts are inline PTX too.
static __device__ __forceinline__ unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  unsigned r;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s));
  return r;
}
static __device__ __forceinline__ unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  unsigned r;
  asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s));
  return r;
}
static __device__ __forceinline__ unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  unsigned r;
  asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(s));
  return r;
}
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static __device__ __forceinline__ int abs(int a) { return __builtin_abs(a); }

// Reinterpretations.
static __device__ __forceinline__ unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
static __device__ __forceinline__ float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
static __device__ __forceinline__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
static __device__ __forceinline__ double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }

// Math: only what is one instruction (or CUDA's intrinsic definition of a few).
static __device__ __forceinline__ float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
static __device__ __forceinline__ double sqrt(double x) { return __nvvm_sqrt_rn_d(x); }
static __device__ __forceinline__ float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
static __device__ __forceinline__ float fabsf(float x) { return __builtin_fabsf(x); }
static __device__ __forceinline__ double fabs(double x) { return __builtin_fabs(x); }
static __device__ __forceinline__ float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
static __device__ __forceinline__ double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
static __device__ __forceinline__ double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }
static __device__ __forceinline__ float floorf(float x) { return __builtin_floorf(x); }
static __device__ __forceinline__ float ceilf(float x) { return __builtin_ceilf(x); }
static __device__ __forceinline__ float truncf(float x) { return __builtin_truncf(x); }
static __device__ __forceinline__ float rintf(float x) { return __builtin_rintf(x); }
static __device__ __forceinline__ double floor(double x) { return __builtin_floor(x); }
static __device__ __forceinline__ float __saturatef(float x) { return __nvvm_saturate_f(x); }
static __device__ __forceinline__ float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
static __device__ __forceinline__ float exp2f(float x) { return __nvvm_ex2_approx_f(x); }
static __device__ __forceinline__ float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
static __device__ __forceinline__ float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
static __device__ __forceinline__ float __sinf(float x) { return __nvvm_sin_approx_f(x); }
static __device__ __forceinline__ float __cosf(float x) { return __nvvm_cos_approx_f(x); }
static __device__ __forceinline__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
static __device__ __forceinline__ float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
static __device__ __forceinline__ float __fmul_rn(float a, float b) { return __nvvm_mul_rn_f(a, b); }
static __device__ __forceinline__ float __fadd_rn(float a, float b) { return __nvvm_add_rn_f(a, b); }
static __device__ __forceinline__ float __fsub_rn(float a, float b) { return __nvvm_add_rn_f(a, -b); }
static __device__ __forceinline__ float __fdiv_rn(float a, float b) { return __nvvm_div_rn_f(a, b); }
static __device__ __forceinline__ float __frcp_rn(float a) { return __nvvm_rcp_rn_f(a); }
static __device__ __forceinline__ float __fsqrt_rn(float a) { return __nvvm_sqrt_rn_f(a); }
static __device__ __forceinline__ double __fma_rn(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
static __device__ __forceinline__ double __dmul_rn(double a, double b) { return __nvvm_mul_rn_d(a, b); }
static __device__ __forceinline__ double __dadd_rn(double a, double b) { return __nvvm_add_rn_d(a, b); }
static __device__ __forceinline__ double __ddiv_rn(double a, double b) { return __nvvm_div_rn_d(a, b); }
static __device__ __forceinline__ double __dsqrt_rn(double a) { return __nvvm_sqrt_rn_d(a); }
static __device__ __forceinline__ int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
static __device__ __forceinline__ int __float2int_rz(float x) { return __nvvm_f2i_rz(x); }
static __device__ __forceinline__ float __int2float_rn(int x) { return __nvvm_i2f_rn(x); }
static __device__ __forceinline__ float __uint2float_rz(unsigned x) { return __nvvm_ui2f_rz(x); }

// Half precision: clang's _Float16 is PTX .f16 (sm_53 and later).
typedef _Float16 ptxvk_half;
static __device__ __forceinline__ ptxvk_half ptxvk_f2h(float f) { return (ptxvk_half)f; }
static __device__ __forceinline__ float ptxvk_h2f(ptxvk_half h) { return (float)h; }
// No contraction: an add of a product stays two roundings, as with NVRTC's inline PTX.
static __device__ __forceinline__ ptxvk_half ptxvk_hadd(ptxvk_half a, ptxvk_half b) {
#pragma clang fp contract(off)
  return a + b;
}
static __device__ __forceinline__ ptxvk_half ptxvk_hsub(ptxvk_half a, ptxvk_half b) {
#pragma clang fp contract(off)
  return a - b;
}
static __device__ __forceinline__ ptxvk_half ptxvk_hmul(ptxvk_half a, ptxvk_half b) {
#pragma clang fp contract(off)
  return a * b;
}
static __device__ __forceinline__ ptxvk_half ptxvk_hfma(ptxvk_half a, ptxvk_half b, ptxvk_half c) {
  return __nvvm_fma_rn_f16(a, b, c);
}
static __device__ __forceinline__ bool ptxvk_hlt(ptxvk_half a, ptxvk_half b) { return a < b; }
typedef _Float16 ptxvk_half2v __attribute__((ext_vector_type(2)));
struct ptxvk_half2 {
  ptxvk_half2v v;
};
static __device__ __forceinline__ ptxvk_half2 ptxvk_hfma2(ptxvk_half2 a, ptxvk_half2 b, ptxvk_half2 c) {
  return {__nvvm_fma_rn_f16x2(a.v, b.v, c.v)};
}
static __device__ __forceinline__ ptxvk_half2 ptxvk_hadd2(ptxvk_half2 a, ptxvk_half2 b) {
#pragma clang fp contract(off)
  return {a.v + b.v};
}

#endif

static __device__ __forceinline__ ptxvk_half ptxvk_hmax(ptxvk_half a, ptxvk_half b) {
  return ptxvk_hlt(b, a) ? a : b;
}
