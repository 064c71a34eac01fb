// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every error of the CPU delta_attention config rules
// (lib/Ops/Linear/Cpu/DeltaRules.cpp) that textual IR can reach (the
// Vulkan rules': delta-tile-vulkan-invalid.mlir).

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{'ejk.delta_attention' op has no #ejk.config; run ejk-select-configs first}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{config #ejk.config<chunk_size = 64> is invalid: config needs 'chunk_size' and 'block_v'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<chunk_size = 64>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{config #ejk.config<block_v = 12, chunk_size = 64> is invalid: 'block_v' (12) must be a positive multiple of the 8 f32 lanes of a 256-bit vector}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 12, chunk_size = 64>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{#ejk.config entry 'chunk_size' must be positive, got 0}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 8, chunk_size = 0>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'chunk_size' (512) must be in [1, 256]}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 8, chunk_size = 512>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: working set of}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 4096, chunk_size = 256>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'cooperative' has no CPU kernel: cooperative matrices are Vulkan's}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, cooperative = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}
