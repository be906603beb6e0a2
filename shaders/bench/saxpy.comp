// Twin of saxpy in bench.cu.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 256) in;
layout(push_constant) uniform P { Floats x; Floats y; uint n; float a; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) p.y.v[i] = p.a * p.x.v[i] + p.y.v[i];
}
