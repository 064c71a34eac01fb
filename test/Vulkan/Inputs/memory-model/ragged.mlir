func.func @main(%q: tensor<69x12x64xf16>, %kc: tensor<25x16x4x64xf16>, %vc: tensor<25x16x4x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x5xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<69x12x64xf16> {
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n
      : tensor<69x12x64xf16>, tensor<25x16x4x64xf16>, tensor<25x16x4x64xf16>, tensor<5xi32>, tensor<5x5xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<69x12x64xf16>
  return %o : tensor<69x12x64xf16>
}
