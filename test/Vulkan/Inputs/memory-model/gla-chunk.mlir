func.func @main(%q: tensor<2x100x3x32xf16>, %k: tensor<2x100x3x32xf16>, %v: tensor<2x100x3x48xf16>, %g: tensor<2x100x3x32xf16>) -> (tensor<2x100x3x48xf16>) {
  %o = ejk.gla %q, %k, %v g(%g : tensor<2x100x3x32xf16>) {config = #ejk.config<block_v = 48, chunk_size = 32, chunk_parallel = 1, cooperative = 2>} : tensor<2x100x3x32xf16>, tensor<2x100x3x32xf16>, tensor<2x100x3x48xf16> -> tensor<2x100x3x48xf16>
  return %o : tensor<2x100x3x48xf16>
}
