func.func @main(%x: tensor<1x100x2x16xf16>, %dt: tensor<1x100x2xf16>, %A: tensor<2xf32>, %B: tensor<1x100x1x16xf16>, %C: tensor<1x100x1x16xf16>, %D: tensor<2xf32>, %initial_state: tensor<1x2x16x16xf32>) -> (tensor<1x100x2x16xf16>, tensor<1x2x16x16xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<2xf32>) initial_state(%initial_state : tensor<1x2x16x16xf32>) {dt_softplus, config = #ejk.config<block_n = 16, block_p = 16, chunk_size = 16, num_subgroups = 1, chunk_parallel = 1, cooperative = 1>}
      : tensor<1x100x2x16xf16>, tensor<1x100x2xf16>, tensor<2xf32>, tensor<1x100x1x16xf16>, tensor<1x100x1x16xf16> -> tensor<1x100x2x16xf16>, tensor<1x2x16x16xf32>
  return %y, %h : tensor<1x100x2x16xf16>, tensor<1x2x16x16xf32>
}
