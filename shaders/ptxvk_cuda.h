// ptxvk_cuda.h: the CUDA names our kernels use, for clang's NVPTX back end without the CUDA
// headers (`-nocudainc`). Only what the sources in this directory need.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))

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


// Synchronization and warp intrinsics, as clang's NVPTX builtins.
// `__syncthreads()` is a clang builtin for NVPTX (`bar.sync 0`, as nvcc emits it).
#define PTXVK_FULL_MASK 0xffffffffu
static __device__ __forceinline__ int __shfl_down_sync(unsigned mask, int v, int delta) {
  return __nvvm_shfl_sync_down_i32(mask, v, delta, 0x1f);
}
static __device__ __forceinline__ int __shfl_up_sync(unsigned mask, int v, int delta) {
  return __nvvm_shfl_sync_up_i32(mask, v, delta, 0);
}
static __device__ __forceinline__ int __shfl_xor_sync(unsigned mask, int v, int lane_mask) {
  return __nvvm_shfl_sync_bfly_i32(mask, v, lane_mask, 0x1f);
}
static __device__ __forceinline__ int __shfl_sync(unsigned mask, int v, int lane) {
  return __nvvm_shfl_sync_idx_i32(mask, v, lane, 0x1f);
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned mask, int p) {
  return __nvvm_vote_ballot_sync(mask, p);
}
static __device__ __forceinline__ int __any_sync(unsigned mask, int p) { return __nvvm_vote_any_sync(mask, p); }
static __device__ __forceinline__ int __all_sync(unsigned mask, int p) { return __nvvm_vote_all_sync(mask, p); }
static __device__ __forceinline__ unsigned __activemask() { return __nvvm_activemask(); }
// `__nvvm_fma_rn_f` is a clang builtin for NVPTX: no declaration needed.
