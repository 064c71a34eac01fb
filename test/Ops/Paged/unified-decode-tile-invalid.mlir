// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs
// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs=target=vulkan

// Configs the kernels of ejk.unified_attention (the ragged rules) and
// ejk.ragged_decode_attention (the paged decode rules) reject, on both
// targets.

func.func @unified_no_block_k(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %starts: tensor<3xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{config needs 'block_k'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {config = #ejk.config<block_q = 1>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}

// -----

func.func @decode_no_block_k(%q: tensor<2x4x32xf32>, %k: tensor<2x64x2x32xf32>, %v: tensor<2x64x2x32xf32>, %s: tensor<2xi32>, %e: tensor<2xi32>) -> tensor<2x4x32xf32> {
  // expected-error @+1 {{config needs 'block_k'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %s, %e {config = #ejk.config<num_splits = 2>} : tensor<2x4x32xf32>, tensor<2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<2xi32>, tensor<2xi32> -> tensor<2x4x32xf32>
  return %o : tensor<2x4x32xf32>
}

