// Twin of softmax in bench.cu (exp2 of x * log2(e), as __expf is).
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 256) in;
layout(push_constant) uniform P { Floats src; Floats dst; } p;
shared float s[256];
void main() {
  uint t = gl_LocalInvocationID.x, row = gl_WorkGroupID.x * 1024;
  float m = -3.4e38;
  for (uint i = t; i < 1024; i += 256) m = max(m, p.src.v[row + i]);
  s[t] = m;
  barrier();
  for (uint st = 128; st > 0; st >>= 1) {
    if (t < st) s[t] = max(s[t], s[t + st]);
    barrier();
  }
  m = s[0];
  barrier();
  float sum = 0.0;
  for (uint i = t; i < 1024; i += 256) sum += exp2((p.src.v[row + i] - m) * 1.4426950408889634);
  s[t] = sum;
  barrier();
  for (uint st = 128; st > 0; st >>= 1) {
    if (t < st) s[t] += s[t + st];
    barrier();
  }
  float inv = 1.0 / s[0];
  for (uint i = t; i < 1024; i += 256)
    p.dst.v[row + i] = exp2((p.src.v[row + i] - m) * 1.4426950408889634) * inv;
}
