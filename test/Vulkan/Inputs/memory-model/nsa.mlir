func.func @main(%q: tensor<1x96x16x32xf16>, %k: tensor<1x96x1x32xf16>, %v: tensor<1x96x1x32xf16>, %gc: tensor<1x96x16xf16>) -> tensor<1x96x16x32xf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x96x16xf16>) {block_size = 16 : i64, block_counts = 4 : i64, softmax_scale = 0.17677669529663687 : f32, window_size = 24 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x96x16x32xf16>, tensor<1x96x1x32xf16>, tensor<1x96x1x32xf16> -> tensor<1x96x16x32xf16>
  return %o : tensor<1x96x16x32xf16>
}
