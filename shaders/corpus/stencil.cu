// Stencils: 1D (radius 3, shared memory with halos), 2D 5-point Jacobi (global and through a
// shared tile with halos), and 3D 7-point. Out-of-range neighbours count as 0 (1D) or the
// boundary keeps its value (2D, 3D).
#include "ptxvk_cuda.h"

#define RADIUS 3
#define S1_BLOCK 128

extern "C" __global__ void __launch_bounds__(S1_BLOCK)
    stencil_1d_i32(const int *in, int *out, int n) {
  __shared__ int s[S1_BLOCK + 2 * RADIUS];
  int g = blockIdx.x * S1_BLOCK + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  s[l] = g < n ? in[g] : 0;
  if (threadIdx.x < RADIUS) {
    int left = g - RADIUS, right = g + S1_BLOCK;
    s[l - RADIUS] = left >= 0 && left < n ? in[left] : 0;
    s[l + S1_BLOCK] = right < n ? in[right] : 0;
  }
  __syncthreads();
  int acc = 0;
  for (int o = -RADIUS; o <= RADIUS; o++) acc += s[l + o] * (RADIUS + 1 - (o < 0 ? -o : o));
  if (g < n) out[g] = acc;
}

// out = 0.25 * (((up + down) + left) + right) inside, copy on the border.
extern "C" __global__ void jacobi_2d_f32(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.25f * (((in[i - w] + in[i + w]) + in[i - 1]) + in[i + 1]);
}

// The same result through a (16 + 2)^2 shared tile; blockDim = (16, 16).
extern "C" __global__ void jacobi_2d_shared_f32(const float *in, float *out, int w, int h) {
  __shared__ float t[18][18];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * 16 - 1, y0 = blockIdx.y * 16 - 1;
  for (int j = ty * 16 + tx; j < 18 * 18; j += 256) {
    int lx = j % 18, ly = j / 18;
    int gx = x0 + lx, gy = y0 + ly;
    t[ly][lx] = gx >= 0 && gy >= 0 && gx < w && gy < h ? in[gy * w + gx] : 0.0f;
  }
  __syncthreads();
  int x = x0 + 1 + tx, y = y0 + 1 + ty;
  if (x >= w || y >= h) return;
  float v = t[ty + 1][tx + 1];
  if (!(x == 0 || y == 0 || x == w - 1 || y == h - 1))
    v = 0.25f * (((t[ty][tx + 1] + t[ty + 2][tx + 1]) + t[ty + 1][tx]) + t[ty + 1][tx + 2]);
  out[y * w + x] = v;
}

// out = fma(c1, ((((x- + x+) + y-) + y+) + z-) + z+, c0 * centre) inside, copy on the border.
extern "C" __global__ void stencil_3d_7pt_f32(const float *in, float *out, int nx, int ny, int nz,
                                              float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  long i = ((long)z * ny + y) * nx + x;
  if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
    out[i] = in[i];
    return;
  }
  long sy = nx, sz = (long)nx * ny;
  float s = ((((in[i - 1] + in[i + 1]) + in[i - sy]) + in[i + sy]) + in[i - sz]) + in[i + sz];
  out[i] = __fmaf_rn(c1, s, __fmul_rn(c0, in[i]));
}
