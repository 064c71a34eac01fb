// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the CPU config rules of ejk.mla and ejk.paged_mla
// (lib/Ops/Latent/Cpu/Rules.cpp and the reader of
// ejk/Ops/Latent/Config.h) give for a config, as ejk-tile-dispatches
// reports it; both ops share the rules.

// (A config entry below 1 is refused by #ejk.config's own parser, before
// the rules see it: test/Dialect covers it.)
// The reader: block_k is required.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{config needs 'block_k'}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<num_splits = 2>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// No kernel for a 0-wide RoPE part yet.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x0xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x0xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{rope_dim 0 has no kernel yet (pass a RoPE key of at least one element)}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x0xf32>, tensor<2x48x64xf32>, tensor<2x48x0xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// block_k in whole vectors.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 128}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 12>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// block_k at most 128.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'block_k' (136) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 128}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 136>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// num_splits at most 64.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'num_splits' (65) must be at most 64}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8, num_splits = 65>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// block_h and head_lanes are Vulkan's.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'block_h', 'head_lanes' and 'cooperative' are Vulkan entries; the CPU kernel takes every head of a row in one workgroup}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8, head_lanes = 4>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// paged_mla: the same rules.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%ql: tensor<4x8x64xf32>, %qr: tensor<4x8x16xf32>, %c: tensor<32x16x80xf32>, %lens: tensor<4xi32>, %tables: tensor<4x6xi32>, %starts: tensor<5xi32>) -> tensor<4x8x64xf32> {
  // expected-error @+1 {{'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 128}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 12>}
      : tensor<4x8x64xf32>, tensor<4x8x16xf32>, tensor<32x16x80xf32>, tensor<4xi32>, tensor<4x6xi32>, tensor<5xi32> -> tensor<4x8x64xf32>
  return %o : tensor<4x8x64xf32>
}
}
