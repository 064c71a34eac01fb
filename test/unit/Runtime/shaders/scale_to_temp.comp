// First half of a two-dispatch chain: tmp = 2 * in.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Tmp { float tmp[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  tmp[i] = 2.0 * x[i];
}
