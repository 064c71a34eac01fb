// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs
// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs=target=vulkan

// Configs the ragged kernels reject, on both targets.

func.func @block_q(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'block_q' (4) must be 1: the kernel takes one query row a workgroup}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 4, block_k = 64>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}

// -----

func.func @no_block_k(%q: tensor<2x4x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x4x4x32xf32> {
  // expected-error @+1 {{config needs 'block_k'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_q = 1>} : tensor<2x4x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x4x4x32xf32>
  return %o : tensor<2x4x4x32xf32>
}
