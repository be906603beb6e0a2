// Twin of reduce in bench.cu.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 256) in;
layout(push_constant) uniform P { Floats src; Floats dst; uint n; } p;
shared float s[256];
void main() {
  uint t = gl_LocalInvocationID.x;
  uint i = gl_WorkGroupID.x * 512 + t;
  s[t] = (i < p.n ? p.src.v[i] : 0.0) + (i + 256 < p.n ? p.src.v[i + 256] : 0.0);
  barrier();
  for (uint stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    barrier();
  }
  if (t == 0) p.dst.v[gl_WorkGroupID.x] = s[0];
}
