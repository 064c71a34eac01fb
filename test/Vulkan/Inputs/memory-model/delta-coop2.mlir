func.func @main(%q: tensor<2x100x3x32xf16>, %k: tensor<2x100x3x32xf16>, %v: tensor<2x100x3x48xf16>, %beta: tensor<2x100x3xf16>, %g: tensor<2x100x3xf16>) -> (tensor<2x100x3x48xf16>) {
  %o = ejk.delta_attention %q, %k, %v, %beta decay(%g : tensor<2x100x3xf16>) {config = #ejk.config<block_v = 16, chunk_size = 32, chunk_parallel = 1, cooperative = 2>}
      : tensor<2x100x3x32xf16>, tensor<2x100x3x32xf16>, tensor<2x100x3x48xf16>, tensor<2x100x3xf16> -> tensor<2x100x3x48xf16>
  return %o : tensor<2x100x3x48xf16>
}
