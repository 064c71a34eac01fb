// test/Vulkan/cm2-select-invalid.mlir: a cm2 config on a CPU target.
func.func @cpu(%q: tensor<1x256x2x64xf32>, %k: tensor<1x256x2x64xf32>, %v: tensor<1x256x2x64xf32>) -> tensor<1x256x2x64xf32> {
  // expected-error @+1 {{'cm2' applies to Vulkan targets only}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 64, block_k = 64, cm2 = 1>} : tensor<1x256x2x64xf32>, tensor<1x256x2x64xf32>, tensor<1x256x2x64xf32> -> tensor<1x256x2x64xf32>
  return %o : tensor<1x256x2x64xf32>
}
