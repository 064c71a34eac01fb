// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs
// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs=target=vulkan

// Configs the ragged kernels reject, on both targets.

func.func @no_block_k(%q: tensor<2x4x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x4x4x32xf32> {
  // expected-error @+1 {{config needs 'block_k'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_q = 1>} : tensor<2x4x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x4x4x32xf32>
  return %o : tensor<2x4x4x32xf32>
}
