func.func @main(%q: tensor<1x100x4x64xf16>, %k: tensor<1x100x2x64xf16>, %v: tensor<1x100x2x64xf16>) -> tensor<1x100x4x64xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x100x4x64xf16>, tensor<1x100x2x64xf16>, tensor<1x100x2x64xf16> -> tensor<1x100x4x64xf16>
  return %o : tensor<1x100x4x64xf16>
}
