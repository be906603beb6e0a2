// Twin of transpose_tiled in bench.cu.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 32, local_size_y = 8) in;
layout(push_constant) uniform P { Floats src; Floats dst; uint n; } p;
shared float tile[32][33];
void main() {
  uvec2 l = gl_LocalInvocationID.xy, g = gl_WorkGroupID.xy;
  uint x = g.x * 32 + l.x, y = g.y * 32 + l.y;
  for (uint j = 0; j < 32; j += 8)
    if (x < p.n && y + j < p.n) tile[l.y + j][l.x] = p.src.v[(y + j) * p.n + x];
  barrier();
  x = g.y * 32 + l.x;
  y = g.x * 32 + l.y;
  for (uint j = 0; j < 32; j += 8)
    if (x < p.n && y + j < p.n) p.dst.v[(y + j) * p.n + x] = tile[l.x][l.y + j];
}
