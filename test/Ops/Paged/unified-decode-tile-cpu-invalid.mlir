// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs=vector-bits=256

// The CPU-only config errors of ejk.unified_attention and
// ejk.ragged_decode_attention.

func.func @unified_block_k_lanes(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %starts: tensor<3xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 512}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {config = #ejk.config<block_q = 1, block_k = 12>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}

// -----

func.func @unified_subgroups(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %starts: tensor<3xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'num_subgroups' is a Vulkan entry; the CPU kernel takes none}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {config = #ejk.config<block_q = 1, block_k = 16, num_subgroups = 2>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}

// -----

func.func @decode_block_k_lanes(%q: tensor<2x4x32xf32>, %k: tensor<2x64x2x32xf32>, %v: tensor<2x64x2x32xf32>, %s: tensor<2xi32>, %e: tensor<2xi32>) -> tensor<2x4x32xf32> {
  // expected-error @+1 {{'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 512}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %s, %e {config = #ejk.config<block_k = 12>} : tensor<2x4x32xf32>, tensor<2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<2xi32>, tensor<2xi32> -> tensor<2x4x32xf32>
  return %o : tensor<2x4x32xf32>
}

// -----

func.func @decode_splits(%q: tensor<2x4x32xf32>, %k: tensor<2x64x2x32xf32>, %v: tensor<2x64x2x32xf32>, %s: tensor<2xi32>, %e: tensor<2xi32>) -> tensor<2x4x32xf32> {
  // expected-error @+1 {{'num_splits' (65) must be at most 64}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %s, %e {config = #ejk.config<block_k = 16, num_splits = 65>} : tensor<2x4x32xf32>, tensor<2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<2xi32>, tensor<2xi32> -> tensor<2x4x32xf32>
  return %o : tensor<2x4x32xf32>
}

// -----

func.func @decode_subgroups(%q: tensor<2x4x32xf32>, %k: tensor<2x64x2x32xf32>, %v: tensor<2x64x2x32xf32>, %s: tensor<2xi32>, %e: tensor<2xi32>) -> tensor<2x4x32xf32> {
  // expected-error @+1 {{'num_subgroups' is a Vulkan entry; the CPU kernel takes none}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %s, %e {config = #ejk.config<block_k = 16, num_subgroups = 2>} : tensor<2x4x32xf32>, tensor<2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<2xi32>, tensor<2xi32> -> tensor<2x4x32xf32>
  return %o : tensor<2x4x32xf32>
}

// -----

func.func @unified_block_q(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %starts: tensor<3xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'block_q' (4) must be 1: the kernel takes one query row a workgroup}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {config = #ejk.config<block_q = 4, block_k = 64>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}
