// Kernels calling into lib.cu, compiled separately (`nvcc -rdc=true`) and linked: out[i] =
// apply(in[i]) + scale * bias, with this module's `bias`, not lib.cu's.
extern __device__ int scale;
__device__ int apply(int x);
static __device__ int bias = 7;

extern "C" __global__ void linked_apply(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = apply(in[i]) + scale * bias;
}

// Raises lib.cu's `scale`: a store to another module's variable.
extern "C" __global__ void linked_set_scale(int s) { scale = s; }
