// y = x * scale + offset for i < n, all three from push constants.
#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Params {
  float scale;
  float offset;
  uint n;
} params;
layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.n)
    y[i] = x[i] * params.scale + params.offset;
}
