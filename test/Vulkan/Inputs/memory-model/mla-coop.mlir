func.func @main(%ql: tensor<3x1x48x512xf16>, %qr: tensor<3x1x48x64xf16>, %c: tensor<3x208x512xf16>, %kr: tensor<3x208x64xf16>) -> tensor<3x1x48x512xf16> {
  %o = ejk.mla %ql, %qr, %c, %kr {softmax_scale = 0.07216878364870323 : f32, config = #ejk.config<block_k = 32, block_h = 16, cooperative = 1, num_splits = 3>}
      : tensor<3x1x48x512xf16>, tensor<3x1x48x64xf16>, tensor<3x208x512xf16>, tensor<3x208x64xf16> -> tensor<3x1x48x512xf16>
  return %o : tensor<3x1x48x512xf16>
}
