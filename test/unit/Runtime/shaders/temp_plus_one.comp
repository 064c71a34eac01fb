// Second half of a two-dispatch chain: out = tmp + 1. Reading the previous
// dispatch's result checks the barrier between dispatches.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Tmp { float tmp[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  y[i] = tmp[i] + 1.0;
}
