// test/Vulkan/cm2-select-invalid.mlir: a cm2 config on a Vulkan device
// without VK_NV_cooperative_matrix2.
func.func @no_feature(%q: tensor<4x2048x16x128xf16>, %k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  // expected-error @+1 {{config #ejk.config<block_k = 64, block_q = 128, cm2 = 2, num_subgroups = 8> from the override tier is invalid for this target: 'cm2' needs the device feature 'cooperative_matrix2'}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 2>} : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}
