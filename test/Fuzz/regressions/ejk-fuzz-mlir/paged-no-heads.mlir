func.func @f(%q: tensor<8x0x128xf32>, %kc: tensor<1024x16x8x128xf16>, %vc: tensor<1024x16x8x128xf16>, %lens: tensor<8xi32>, %tables: tensor<8x256xi32>) -> tensor<8x0x128xf32> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<8x0x128xf32>, tensor<1024x16x8x128xf16>, tensor<1024x16x8x128xf16>, tensor<8xi32>, tensor<8x256xi32> -> tensor<8x0x128xf32>
  return %o : tensor<8x0x128xf32>
}
