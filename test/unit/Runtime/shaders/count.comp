// Grid coverage: hits[linear workgroup id] += 1 once per workgroup, and the
// last element counts every invocation (4 per workgroup).
#version 450
layout(local_size_x = 2, local_size_y = 2) in;
layout(set = 0, binding = 0) buffer Hits { int hits[]; };
void main() {
  uvec3 n = gl_NumWorkGroups;
  uvec3 w = gl_WorkGroupID;
  uint linear = w.x + n.x * (w.y + n.y * w.z);
  if (gl_LocalInvocationIndex == 0)
    atomicAdd(hits[linear], 1);
  atomicAdd(hits[n.x * n.y * n.z], 1);
}
