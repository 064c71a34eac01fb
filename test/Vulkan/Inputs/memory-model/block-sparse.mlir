func.func @main(%q: tensor<1x320x2x64xf16>, %k: tensor<1x320x2x64xf16>, %v: tensor<1x320x2x64xf16>, %bm: tensor<1x2x5x5xi1>) -> (tensor<1x320x2x64xf16>, tensor<1x2x320xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 64 : i64, kv_block_size = 64 : i64}
      : tensor<1x320x2x64xf16>, tensor<1x320x2x64xf16>, tensor<1x320x2x64xf16>, tensor<1x2x5x5xi1> -> tensor<1x320x2x64xf16>, tensor<1x2x320xf32>
  return %o, %lse : tensor<1x320x2x64xf16>, tensor<1x2x320xf32>
}
