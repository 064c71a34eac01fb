// A causal, grouped-query flash attention (8 query heads over 2 key/value
// heads) that also returns the log-sum-exp, as a model's prefill would call
// it. Run it with:  bash scripts/run-example.sh
func.func @attention(%q: tensor<1x256x8x64xf32>, %k: tensor<1x256x2x64xf32>,
                     %v: tensor<1x256x2x64xf32>)
    -> (tensor<1x256x8x64xf32>, tensor<1x8x256xf32>) {
  %out, %lse = ejk.flash_attention %q, %k, %v {causal}
      : tensor<1x256x8x64xf32>, tensor<1x256x2x64xf32>, tensor<1x256x2x64xf32>
      -> tensor<1x256x8x64xf32>, tensor<1x8x256xf32>
  return %out, %lse : tensor<1x256x8x64xf32>, tensor<1x8x256xf32>
}
