// Twin of transpose_naive in bench.cu.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform P { Floats src; Floats dst; uint n; } p;
void main() {
  uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
  if (x < p.n && y < p.n) p.dst.v[x * p.n + y] = p.src.v[y * p.n + x];
}
