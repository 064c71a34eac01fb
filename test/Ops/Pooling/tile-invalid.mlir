// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every error of the pooling config verifiers (lib/Ops/Pooling/*/Rules.cpp)
// that textual IR can reach.

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<2x8x32xf32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{config #ejk.config<block_d = 12, block_s = 4> is invalid: 'block_d' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector, at most 512}}
  %y = ejk.mean_pooling %x {config = #ejk.config<block_d = 12, block_s = 4>} : tensor<2x8x32xf32> -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<2x8x32xf32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{is invalid: config needs 'block_d' and 'block_s'}}
  %y = ejk.mean_pooling %x {config = #ejk.config<block_d = 16>} : tensor<2x8x32xf32> -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%dy: tensor<2x32xf32>) -> tensor<2x8x32xf32> {
  // expected-error @+1 {{is invalid: 'block_s' (5000) must be at most 4096}}
  %dx = ejk.mean_pooling_grad %dy {config = #ejk.config<block_d = 16, block_s = 5000>} : tensor<2x32xf32> -> tensor<2x8x32xf32>
  return %dx : tensor<2x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<2x8x32xf32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{is invalid: 'block_d' (48) is the workgroup's thread count: a multiple of the 32-lane subgroup, at most 1024}}
  %y = ejk.mean_pooling %x {config = #ejk.config<block_d = 48, block_s = 4>} : tensor<2x8x32xf32> -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}
}

// -----

// The device features the inputs' type needs (without them an f16 kernel
// failed to legalize 'memref.load', a bf16 one named its dispatch).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16"]}} {
func.func @f(%x: tensor<2x8x64xf16>) -> tensor<2x64xf16> {
  // expected-error @+1 {{is invalid: f16 and bf16 buffers need the device feature 'storage16'}}
  %y = ejk.mean_pooling %x {config = #ejk.config<block_d = 64, block_s = 4>} : tensor<2x8x64xf16> -> tensor<2x64xf16>
  return %y : tensor<2x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["int16", "storage16"]}} {
func.func @f(%x: tensor<2x8x64xf16>) -> tensor<2x64xf16> {
  // expected-error @+1 {{is invalid: f16 buffers need the device feature 'float16'}}
  %y = ejk.mean_pooling %x {config = #ejk.config<block_d = 64, block_s = 4>} : tensor<2x8x64xf16> -> tensor<2x64xf16>
  return %y : tensor<2x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @f(%x: tensor<2x8x64xbf16>) -> tensor<2x64xbf16> {
  // expected-error @+1 {{is invalid: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %y = ejk.mean_pooling %x {config = #ejk.config<block_d = 64, block_s = 4>} : tensor<2x8x64xbf16> -> tensor<2x64xbf16>
  return %y : tensor<2x64xbf16>
}
}
