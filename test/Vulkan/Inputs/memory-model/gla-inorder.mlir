func.func @main(%q: tensor<2x100x3x32xf16>, %k: tensor<2x100x3x32xf16>, %v: tensor<2x100x3x48xf16>, %gg: tensor<3xf32>) -> (tensor<2x100x3x48xf16>) {
  %o = ejk.gla %q, %k, %v g_gamma(%gg : tensor<3xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 1>} : tensor<2x100x3x32xf16>, tensor<2x100x3x32xf16>, tensor<2x100x3x48xf16> -> tensor<2x100x3x48xf16>
  return %o : tensor<2x100x3x48xf16>
}
