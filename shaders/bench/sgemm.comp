// Twin of sgemm in bench.cu.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform P { Floats a; Floats b; Floats c; uint n; } p;
shared float ta[16][16];
shared float tb[16][16];
void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint row = gl_WorkGroupID.y * 16 + ty, col = gl_WorkGroupID.x * 16 + tx;
  float acc = 0.0;
  for (uint k0 = 0; k0 < p.n; k0 += 16) {
    ta[ty][tx] = p.a.v[row * p.n + k0 + tx];
    tb[ty][tx] = p.b.v[(k0 + ty) * p.n + col];
    barrier();
    for (uint k = 0; k < 16; ++k) acc = fma(ta[ty][k], tb[k][tx], acc);
    barrier();
  }
  p.c.v[row * p.n + col] = acc;
}
