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


// `__syncthreads()` (a `bar.sync 0`) and `__nvvm_fma_rn_f` are clang builtins for NVPTX: no
// declaration needed.
