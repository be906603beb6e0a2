// Twin of warp_reduce in bench.cu: the device's own subgroups (whatever their size) reduce
// with subgroupAdd, then the first subgroup reduces the subgroup sums.
#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 256) in;
layout(push_constant) uniform P { Uints src; Uints dst; } p;
shared uint sums[256];
void main() {
  uint t = gl_LocalInvocationID.x;
  uint v = subgroupAdd(p.src.v[gl_WorkGroupID.x * 256 + t]);
  if (subgroupElect()) sums[gl_SubgroupID] = v;
  barrier();
  if (gl_SubgroupID == 0) {
    uint w = 0;
    for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) w += sums[i];
    w = subgroupAdd(w);
    if (subgroupElect()) p.dst.v[gl_WorkGroupID.x] = w;
  }
}
