// Structs: array-of-structs to struct-of-arrays, a particle step on a struct, a struct passed
// by value as a kernel parameter, and a packed record with mixed field sizes.
#include "ptxvk_cuda.h"

struct particle {
  float x, y, z;
  int id;
};

extern "C" __global__ void aos_to_soa(const particle *p, float *xs, float *ys, float *zs, int *ids,
                                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  particle q = p[i];
  xs[i] = q.x;
  ys[i] = q.y;
  zs[i] = q.z;
  ids[i] = q.id;
}

struct body {
  float pos[3];
  float vel[3];
};

// pos += dt * vel; vel *= damping (each a rounded operation).
extern "C" __global__ void particle_step(body *b, float dt, float damping, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  body q = b[i];
  for (int d = 0; d < 3; d++) {
    q.pos[d] = __fmaf_rn(dt, q.vel[d], q.pos[d]);
    q.vel[d] = __fmul_rn(q.vel[d], damping);
  }
  b[i] = q;
}

struct affine_params {
  int n;
  float scale;
  float offset;
  int stride;
  unsigned char flags;
};

// out[i] = in[i * stride] * scale + offset (fused); flags bit 0 negates, bit 1 takes |.|.
extern "C" __global__ void struct_param_affine(affine_params p, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  float v = __fmaf_rn(in[i * p.stride], p.scale, p.offset);
  if (p.flags & 1) v = -v;
  if (p.flags & 2) v = fabsf(v);
  out[i] = v;
}

struct record {
  unsigned char tag;
  short delta;
  int value;
  long long total;
};

// total += value * delta for tag != 0, tag counts down, records in place.
extern "C" __global__ void struct_record_update(record *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  record q = r[i];
  if (q.tag != 0) {
    q.total += (long long)q.value * q.delta;
    q.tag--;
  }
  r[i] = q;
}
