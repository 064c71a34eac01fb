func.func @main(%q: tensor<1x100x4x64xbf16>, %k: tensor<1x100x2x64xbf16>, %v: tensor<1x100x2x64xbf16>) -> tensor<1x100x4x64xbf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x100x4x64xbf16>, tensor<1x100x2x64xbf16>, tensor<1x100x2x64xbf16> -> tensor<1x100x4x64xbf16>
  return %o : tensor<1x100x4x64xbf16>
}
