func.func @fa(%q: tensor<1x64x2x64xf32>) -> tensor<1x64x2x64xf32> {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x64x2x64xf32>, tensor<1x64x2x64xf32>, tensor<1x64x2x64xf32> -> tensor<1x64x2x64xf32>
  return %o : tensor<1x64x2x64xf32>
}
