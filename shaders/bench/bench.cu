// Kernels for `cargo xtask bench kernels`: each has a GLSL twin of ours (NAME.comp beside this
// file) that does the same work the way a person writes a Vulkan compute shader, and the
// benchmark runs both on the same device in the same run. Compiled by clang-19 into bench.ptx
// (`cargo xtask shaders`).
#include "ptxvk_cuda.h"

// y = a * x + y
extern "C" __global__ void saxpy(unsigned n, float a, const float *x, float *y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// One partial sum per block of 256 threads, each thread adding two elements first.
extern "C" __global__ void reduce(const float *in, float *out, unsigned n) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * 512 + t;
  float v = (i < n ? in[i] : 0.0f) + (i + 256 < n ? in[i + 256] : 0.0f);
  s[t] = v;
  __syncthreads();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// out = in^T for an n x n matrix, one element per thread.
extern "C" __global__ void transpose_naive(const float *in, float *out, unsigned n) {
  unsigned x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x < n && y < n) out[x * n + y] = in[y * n + x];
}

// The same through 32 x 32 tiles in shared memory (padded against bank conflicts), 32 x 8
// threads moving four rows each.
extern "C" __global__ void transpose_tiled(const float *in, float *out, unsigned n) {
  __shared__ float tile[32][33];
  unsigned x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (unsigned j = 0; j < 32; j += 8)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (unsigned j = 0; j < 32; j += 8)
    if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// C = A * B, n x n, 16 x 16 tiles; n a multiple of 16.
extern "C" __global__ void sgemm(const float *a, const float *b, float *c, unsigned n) {
  __shared__ float ta[16][16];
  __shared__ float tb[16][16];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (unsigned k0 = 0; k0 < n; k0 += 16) {
    ta[ty][tx] = a[row * n + k0 + tx];
    tb[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (unsigned k = 0; k < 16; ++k) acc += ta[ty][k] * tb[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// A 7-point stencil on an n^3 grid; the boundary is copied.
extern "C" __global__ void stencil3d(const float *in, float *out, unsigned n) {
  unsigned x = blockIdx.x * 8 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y,
           z = blockIdx.z * 4 + threadIdx.z;
  if (x >= n || y >= n || z >= n) return;
  unsigned i = (z * n + y) * n + x;
  if (x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1) {
    out[i] = in[i];
    return;
  }
  unsigned s = n * n;
  out[i] = 0.4f * in[i] + 0.1f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n] + in[i - s] +
                                  in[i + s]);
}

// Inclusive scan of each block of 256 elements (Hillis-Steele, double-buffered).
extern "C" __global__ void scan(const unsigned *in, unsigned *out, unsigned n) {
  __shared__ unsigned s[2][256];
  unsigned t = threadIdx.x, i = blockIdx.x * 256 + t;
  unsigned cur = 0;
  s[0][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned d = 1; d < 256; d <<= 1) {
    unsigned v = s[cur][t];
    if (t >= d) v += s[cur][t - d];
    s[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n) out[i] = s[cur][t];
}

// 256-bin histogram of bytes: per-block bins in shared memory, then one global atomic per bin.
extern "C" __global__ void histogram(const unsigned *words, unsigned n_words, unsigned *bins) {
  __shared__ unsigned local[256];
  unsigned t = threadIdx.x;
  local[t] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * 256 + t; i < n_words; i += gridDim.x * 256) {
    unsigned w = words[i];
    atomicAdd(&local[w & 255], 1u);
    atomicAdd(&local[(w >> 8) & 255], 1u);
    atomicAdd(&local[(w >> 16) & 255], 1u);
    atomicAdd(&local[w >> 24], 1u);
  }
  __syncthreads();
  if (local[t] != 0) atomicAdd(&bins[t], local[t]);
}

// One step of a bitonic sort of n keys (n a power of two): compare-exchange at distance j
// within sequences of k.
extern "C" __global__ void bitonic_step(unsigned *keys, unsigned j, unsigned k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned p = i ^ j;
  if (p > i) {
    unsigned a = keys[i], b = keys[p];
    bool up = (i & k) == 0;
    if ((a > b) == up) {
      keys[i] = b;
      keys[p] = a;
    }
  }
}

// Softmax of each row of 1024 floats, one block of 256 threads per row.
extern "C" __global__ void softmax(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  const float *row = in + blockIdx.x * 1024;
  float m = -3.4e38f;
  for (unsigned i = t; i < 1024; i += 256) m = fmaxf(m, row[i]);
  s[t] = m;
  __syncthreads();
  for (unsigned st = 128; st > 0; st >>= 1) {
    if (t < st) s[t] = fmaxf(s[t], s[t + st]);
    __syncthreads();
  }
  m = s[0];
  __syncthreads();
  float sum = 0.0f;
  for (unsigned i = t; i < 1024; i += 256) sum += __expf(row[i] - m);
  s[t] = sum;
  __syncthreads();
  for (unsigned st = 128; st > 0; st >>= 1) {
    if (t < st) s[t] += s[t + st];
    __syncthreads();
  }
  float inv = 1.0f / s[0];
  for (unsigned i = t; i < 1024; i += 256) out[blockIdx.x * 1024 + i] = __expf(row[i] - m) * inv;
}

// Block sums of 256 integers through warp shuffles: each warp reduces with __shfl_down_sync,
// then warp 0 reduces the eight warp sums.
extern "C" __global__ void warp_reduce(const unsigned *in, unsigned *out) {
  __shared__ unsigned warps[8];
  unsigned t = threadIdx.x;
  unsigned v = in[blockIdx.x * 256 + t];
  for (unsigned d = 16; d > 0; d >>= 1) v += __shfl_down_sync(PTXVK_FULL_MASK, v, d);
  if ((t & 31) == 0) warps[t >> 5] = v;
  __syncthreads();
  if (t < 32) {
    v = t < 8 ? warps[t] : 0;
    for (unsigned d = 4; d > 0; d >>= 1) v += __shfl_down_sync(PTXVK_FULL_MASK, v, d);
    if (t == 0) out[blockIdx.x] = v;
  }
}
