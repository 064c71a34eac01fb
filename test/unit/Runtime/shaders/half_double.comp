// y = 2 * x over f16 storage with f16 arithmetic: needs the float16 and
// storage16 device features, which the SPIR-V declares as capabilities.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float16_t x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float16_t y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  y[i] = x[i] * float16_t(2.0);
}
