// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every error of the paged attention CPU config verifier (Paged/Cpu/Rules.cpp)
// that textual IR can reach.

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<2x4x16xf32>, %kc: tensor<4x2x8x16xf32>, %vc: tensor<4x2x8x16xf32>, %lens: tensor<2xi32>, %tables: tensor<2x3xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{config #ejk.config<block_k = 12> is invalid: 'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 512}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 12>} : tensor<2x4x16xf32>, tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32>, tensor<2xi32>, tensor<2x3xi32> -> tensor<2x4x16xf32>
  return %o : tensor<2x4x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<2x4x16xf32>, %kc: tensor<4x2x8x16xf32>, %vc: tensor<4x2x8x16xf32>, %lens: tensor<2xi32>, %tables: tensor<2x3xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{is invalid: 'block_k' (1024) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 512}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 1024>} : tensor<2x4x16xf32>, tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32>, tensor<2xi32>, tensor<2x3xi32> -> tensor<2x4x16xf32>
  return %o : tensor<2x4x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<2x4x16xf32>, %kc: tensor<4x2x8x16xf32>, %vc: tensor<4x2x8x16xf32>, %lens: tensor<2xi32>, %tables: tensor<2x3xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{is invalid: 'num_splits' (65) must be at most 64}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 16, num_splits = 65>} : tensor<2x4x16xf32>, tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32>, tensor<2xi32>, tensor<2x3xi32> -> tensor<2x4x16xf32>
  return %o : tensor<2x4x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<2x4x16xf32>, %kc: tensor<4x2x8x16xf32>, %vc: tensor<4x2x8x16xf32>, %lens: tensor<2xi32>, %tables: tensor<2x3xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{is invalid: config needs 'block_k'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<num_splits = 2>} : tensor<2x4x16xf32>, tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32>, tensor<2xi32>, tensor<2x3xi32> -> tensor<2x4x16xf32>
  return %o : tensor<2x4x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<2x4x16xf32>, %kc: tensor<4x2x8x16xf32>, %vc: tensor<4x2x8x16xf32>, %lens: tensor<2xi32>, %tables: tensor<2x3xi32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{is invalid: 'num_subgroups' is a Vulkan entry; the CPU kernel takes none}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 16, num_subgroups = 2>} : tensor<2x4x16xf32>, tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32>, tensor<2xi32>, tensor<2x3xi32> -> tensor<2x4x16xf32>
  return %o : tensor<2x4x16xf32>
}
}
