func.func @main(%q: tensor<2x512x4x64xf16>, %k: tensor<2x512x4x64xf16>, %v: tensor<2x512x4x64xf16>, %gg: tensor<4xf32>) -> (tensor<2x512x4x64xf16>) {
  %o = ejk.gla %q, %k, %v g_gamma(%gg : tensor<4xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<2x512x4x64xf16>, tensor<2x512x4x64xf16>, tensor<2x512x4x64xf16> -> tensor<2x512x4x64xf16>
  return %o : tensor<2x512x4x64xf16>
}
