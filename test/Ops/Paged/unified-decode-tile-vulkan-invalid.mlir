// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Vulkan config errors of ejk.unified_attention (the ragged rules over the
// paged decode layout) and ejk.ragged_decode_attention (the paged decode
// rules; its window bounds the tokens a query sees to left + 1). The target
// has subgroups of 32 lanes.

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @unified_teams(%q: tensor<8x4x64xf32>, %kc: tensor<8x16x2x64xf32>, %vc: tensor<8x16x2x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %starts: tensor<3xi32>) -> tensor<8x4x64xf32> {
  // expected-error @+1 {{'block_k' (3) tokens per step over 32 threads make teams of 32 / 3 lanes; a team must be a power of two of at most 32 lanes that divides head_dim 64}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {config = #ejk.config<block_q = 1, block_k = 3, num_subgroups = 1>} : tensor<8x4x64xf32>, tensor<8x16x2x64xf32>, tensor<8x16x2x64xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32> -> tensor<8x4x64xf32>
  return %o : tensor<8x4x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @decode_splits_window(%q: tensor<2x8x64xf32>, %k: tensor<2x64x2x64xf32>, %v: tensor<2x64x2x64xf32>, %s: tensor<2xi32>, %e: tensor<2xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{'num_splits' (8) is more than the 4 tokens a query can see}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %s, %e {sliding_window = array<i64: 3, 0>, config = #ejk.config<block_k = 4, num_splits = 8>} : tensor<2x8x64xf32>, tensor<2x64x2x64xf32>, tensor<2x64x2x64xf32>, tensor<2xi32>, tensor<2xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "subgroup_shuffle"]}} {
func.func @decode_storage16(%q: tensor<2x8x64xbf16>, %k: tensor<2x64x2x64xbf16>, %v: tensor<2x64x2x64xbf16>, %s: tensor<2xi32>, %e: tensor<2xi32>) -> tensor<2x8x64xbf16> {
  // expected-error @+1 {{f16 and bf16 buffers need the device feature 'storage16'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %s, %e {config = #ejk.config<block_k = 32>} : tensor<2x8x64xbf16>, tensor<2x64x2x64xbf16>, tensor<2x64x2x64xbf16>, tensor<2xi32>, tensor<2xi32> -> tensor<2x8x64xbf16>
  return %o : tensor<2x8x64xbf16>
}
}
