func.func @f(%q: tensor<2x1099511627776x64xf16>, %kc: tensor<16x1x16x64xf16>, %vc: tensor<16x1x16x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x8xi32>) -> tensor<2x1099511627776x64xf16> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x1099511627776x64xf16>, tensor<16x1x16x64xf16>, tensor<16x1x16x64xf16>, tensor<2xi32>, tensor<2x8xi32> -> tensor<2x1099511627776x64xf16>
  return %o : tensor<2x1099511627776x64xf16>
}
