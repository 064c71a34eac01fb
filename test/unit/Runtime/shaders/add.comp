// c = a + b over f32; one invocation per element, 64 per workgroup.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  c[i] = a[i] + b[i];
}
