// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every error of the grouped matmuls' CPU config verifiers (Moe/Cpu/Rules.cpp)
// that textual IR can reach.

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'ejk.grouped_matmul' op has no #ejk.config; run ejk-select-configs first}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes  : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{is invalid: 'num_subgroups' applies to Vulkan targets only}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 12, block_n = 16, block_k = 32, num_subgroups = 4>} : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{is invalid: 'block_n' (20) must be a multiple of the 8 f32 lanes of a 256-bit vector}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 12, block_n = 20, block_k = 32>} : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{is invalid: config needs 'block_m', 'block_n' and 'block_k'}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 12, block_n = 16>} : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{is invalid: working set of 3170304 bytes exceeds the 1048576-byte L2 cache}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 512, block_n = 512, block_k = 512>} : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<64x48xf32>, %sizes: tensor<4xi32>) -> tensor<4x32x48xf32> {
  // expected-error @+1 {{'ejk.transposed_grouped_matmul' op has no #ejk.config; run ejk-select-configs first}}
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes  : tensor<64x32xf32>, tensor<64x48xf32>, tensor<4xi32> -> tensor<4x32x48xf32>
  return %out : tensor<4x32x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<64x48xf32>, %sizes: tensor<4xi32>) -> tensor<4x32x48xf32> {
  // expected-error @+1 {{is invalid: 'num_subgroups' applies to Vulkan targets only}}
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 32, block_n = 16, block_k = 24, num_subgroups = 2>} : tensor<64x32xf32>, tensor<64x48xf32>, tensor<4xi32> -> tensor<4x32x48xf32>
  return %out : tensor<4x32x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<64x48xf32>, %sizes: tensor<4xi32>) -> tensor<4x32x48xf32> {
  // expected-error @+1 {{is invalid: 'block_n' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector}}
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 32, block_n = 12, block_k = 24>} : tensor<64x32xf32>, tensor<64x48xf32>, tensor<4xi32> -> tensor<4x32x48xf32>
  return %out : tensor<4x32x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%lhs: tensor<64x32xf32>, %rhs: tensor<64x48xf32>, %sizes: tensor<4xi32>) -> tensor<4x32x48xf32> {
  // expected-error @+1 {{is invalid: working set of 5865472 bytes exceeds the 1048576-byte L2 cache}}
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 4096, block_n = 256, block_k = 96>} : tensor<64x32xf32>, tensor<64x48xf32>, tensor<4xi32> -> tensor<4x32x48xf32>
  return %out : tensor<4x32x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @stages(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{is invalid: 'num_stages' applies to Vulkan targets only}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 12, block_n = 16, block_k = 32, num_stages = 1>} : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}
