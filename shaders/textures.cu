// Texture objects as CUDA C uses them (runtime/tests/texture_api.rs): a bilinear resize through
// tex2D and a gather (tex2Dgather). CUDA's headers implement both with inline PTX for a
// `cudaTextureObject_t` (a 64-bit handle); so do these helpers, without the headers.
#include "ptxvk_cuda.h"

typedef unsigned long long cudaTextureObject_t;

struct ptxvk_float4 {
  float x, y, z, w;
};

static __device__ __forceinline__ ptxvk_float4 ptxvk_tex2D(cudaTextureObject_t t, float x, float y) {
  ptxvk_float4 r;
  asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
      : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
      : "l"(t), "f"(x), "f"(y));
  return r;
}

static __device__ __forceinline__ ptxvk_float4 ptxvk_tex2Dgather_r(cudaTextureObject_t t, float x,
                                                                   float y) {
  ptxvk_float4 r;
  asm("tld4.r.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
      : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
      : "l"(t), "f"(x), "f"(y));
  return r;
}

// out (w x h) = the texture resampled at each output pixel's centre, in normalized coordinates.
extern "C" __global__ void resize(cudaTextureObject_t src, float *out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float u = (x + 0.5f) / w;
    float v = (y + 0.5f) / h;
    out[y * w + x] = ptxvk_tex2D(src, u, v).x;
  }
}

// out[4i .. 4i + 4] = the red channels of the 2x2 footprint at (xs[i], ys[i]).
extern "C" __global__ void gather(cudaTextureObject_t src, const float *xs, const float *ys,
                                  float *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    ptxvk_float4 g = ptxvk_tex2Dgather_r(src, xs[i], ys[i]);
    out[4 * i] = g.x;
    out[4 * i + 1] = g.y;
    out[4 * i + 2] = g.z;
    out[4 * i + 3] = g.w;
  }
}
