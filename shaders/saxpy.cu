// saxpy in CUDA C: y[i] = a * x[i] + y[i] for i < n.
// `cargo xtask shaders` compiles it to saxpy_clang.ptx with clang-19's NVPTX back end.
#include "ptxvk_cuda.h"

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}
