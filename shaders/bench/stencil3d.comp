// Twin of stencil3d in bench.cu.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 8, local_size_y = 8, local_size_z = 4) in;
layout(push_constant) uniform P { Floats src; Floats dst; uint n; } p;
void main() {
  uvec3 g = gl_GlobalInvocationID;
  uint n = p.n;
  if (g.x >= n || g.y >= n || g.z >= n) return;
  uint i = (g.z * n + g.y) * n + g.x;
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.x == n - 1 || g.y == n - 1 || g.z == n - 1) {
    p.dst.v[i] = p.src.v[i];
    return;
  }
  uint s = n * n;
  p.dst.v[i] = 0.4 * p.src.v[i] + 0.1 * (p.src.v[i - 1] + p.src.v[i + 1] + p.src.v[i - n] +
                                         p.src.v[i + n] + p.src.v[i - s] + p.src.v[i + s]);
}
