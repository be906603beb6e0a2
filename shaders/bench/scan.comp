// Twin of scan in bench.cu.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 256) in;
layout(push_constant) uniform P { Uints src; Uints dst; uint n; } p;
shared uint s[2][256];
void main() {
  uint t = gl_LocalInvocationID.x, i = gl_WorkGroupID.x * 256 + t;
  uint cur = 0;
  s[0][t] = i < p.n ? p.src.v[i] : 0;
  barrier();
  for (uint d = 1; d < 256; d <<= 1) {
    uint v = s[cur][t];
    if (t >= d) v += s[cur][t - d];
    s[cur ^ 1][t] = v;
    cur ^= 1;
    barrier();
  }
  if (i < p.n) p.dst.v[i] = s[cur][t];
}
