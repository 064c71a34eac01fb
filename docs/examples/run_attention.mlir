// The kernel of docs/examples/run_attention.c: causal grouped-query flash
// attention (4 query heads over 2 key/value heads) with the log-sum-exp.
//   ejkc docs/examples/run_attention.mlir -o out
//   run_attention out/run_attention.json
func.func @attention(%q: tensor<1x96x4x64xf32>, %k: tensor<1x96x2x64xf32>,
                     %v: tensor<1x96x2x64xf32>)
    -> (tensor<1x96x4x64xf32>, tensor<1x4x96xf32>) {
  %out, %lse = ejk.flash_attention %q, %k, %v {causal}
      : tensor<1x96x4x64xf32>, tensor<1x96x2x64xf32>, tensor<1x96x2x64xf32>
      -> tensor<1x96x4x64xf32>, tensor<1x4x96xf32>
  return %out, %lse : tensor<1x96x4x64xf32>, tensor<1x4x96xf32>
}
