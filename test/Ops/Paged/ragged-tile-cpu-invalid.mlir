// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs=vector-bits=256

// The CPU-only config errors of the ragged kernels.

func.func @block_k_lanes(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 512}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 1, block_k = 12>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}

// -----

func.func @subgroups(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'num_subgroups' is a Vulkan entry; the CPU kernel takes none}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_k = 16, num_subgroups = 2>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}

// -----

func.func @block_q(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'block_q' (4) must be 1: the kernel takes one query row a workgroup}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 4, block_k = 64>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}

// -----

func.func @prefill_block_k(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'prefill_block_k' is a Vulkan entry; the CPU kernel takes none}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_k = 16, prefill_block_k = 32>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}
