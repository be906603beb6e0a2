// Twin of bitonic_step in bench.cu.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 256) in;
layout(push_constant) uniform P { Uints keys; uint j; uint k; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint q = i ^ p.j;
  if (q > i) {
    uint a = p.keys.v[i], b = p.keys.v[q];
    bool up = (i & p.k) == 0;
    if ((a > b) == up) {
      p.keys.v[i] = b;
      p.keys.v[q] = a;
    }
  }
}
