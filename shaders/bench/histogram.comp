// Twin of histogram in bench.cu. Relaxed atomics at workgroup and queue-family scope, as ptxvk
// uses (a device may offer the Vulkan memory model without device scope).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) buffer Uints { uint v[]; };
layout(local_size_x = 256) in;
layout(push_constant) uniform P { Uints words; Uints bins; uint n_words; } p;
shared uint local_bins[256];
void main() {
  uint t = gl_LocalInvocationID.x;
  local_bins[t] = 0;
  barrier();
  for (uint i = gl_WorkGroupID.x * 256 + t; i < p.n_words; i += gl_NumWorkGroups.x * 256) {
    uint w = p.words.v[i];
    atomicAdd(local_bins[w & 255], 1u, gl_ScopeWorkgroup, 0, 0);
    atomicAdd(local_bins[(w >> 8) & 255], 1u, gl_ScopeWorkgroup, 0, 0);
    atomicAdd(local_bins[(w >> 16) & 255], 1u, gl_ScopeWorkgroup, 0, 0);
    atomicAdd(local_bins[w >> 24], 1u, gl_ScopeWorkgroup, 0, 0);
  }
  barrier();
  if (local_bins[t] != 0) atomicAdd(p.bins.v[t], local_bins[t], gl_ScopeQueueFamily, 0, 0);
}
