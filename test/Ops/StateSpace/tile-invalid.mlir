// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every error of ejk-tile-state-space and of the state-space config
// verifiers (StateSpaceTuning.cpp) that textual IR can reach.

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{'ejk.selective_scan' op has no #ejk.config; run ejk-select-configs first}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B  : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{config #ejk.config<block_d = 12, chunk_l = 16> is invalid: 'block_d' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 12, chunk_l = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: working set of 12615680 bytes exceeds the 1048576-byte L2 cache}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 256, chunk_l = 4096>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: config needs 'block_d' and 'chunk_l'}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{'ejk.ssd' op has no #ejk.config; run ejk-select-configs first}}
  %y = ejk.ssd %x, %dt, %A, %B, %B  : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: config needs 'block_p', 'block_n' and 'chunk_size'}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_p = 16>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: 'block_n' (5) must divide d_state (16)}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 5, block_p = 16, chunk_size = 8>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: 'block_p' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 12, chunk_size = 8>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: working set of 4334592 bytes exceeds the 1048576-byte L2 cache}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 16, chunk_size = 1024>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func private @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> attributes {ejk.dispatch} {
  // expected-error @+1 {{'ejk.selective_scan' op is not in dispatch form; run ejk-form-dispatches first}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 16, chunk_l = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func private @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> attributes {ejk.dispatch} {
  // expected-error @+1 {{'ejk.ssd' op is not in dispatch form; run ejk-form-dispatches first}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 16, chunk_size = 8>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'block_d' (1) channels of 16 threads must fill whole subgroups of 32}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 1, chunk_l = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'block_d' (128) channels of 16 threads exceed 1024 invocations per workgroup}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 128, chunk_l = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x2048xf32>, %B: tensor<1x8x1x2048xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: each thread would keep 64 states (at most 32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 2, chunk_l = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x2048xf32>, tensor<1x8x1x2048xf32>, tensor<1x8x1x2048xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: stages 114688 bytes of shared memory, the device has 32768}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 64, chunk_l = 128>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x64xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x128xf32>) -> tensor<1x8x2x64xf32> {
  // expected-error @+1 {{is invalid: 'num_subgroups' (3) must be a power of two}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 16, chunk_size = 16, num_subgroups = 3>} : tensor<1x8x2x64xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x128xf32>, tensor<1x8x1x128xf32> -> tensor<1x8x2x64xf32>
  return %y : tensor<1x8x2x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x64xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x128xf32>) -> tensor<1x8x2x64xf32> {
  // expected-error @+1 {{is invalid: 64 subgroups of 32 exceed 1024 invocations per workgroup}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 16, chunk_size = 16, num_subgroups = 64>} : tensor<1x8x2x64xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x128xf32>, tensor<1x8x1x128xf32> -> tensor<1x8x2x64xf32>
  return %y : tensor<1x8x2x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x64xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x128xf32>) -> tensor<1x8x2x64xf32> {
  // expected-error @+1 {{is invalid: each thread would keep 128 accumulators (at most 64); use more subgroups or smaller blocks}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_size = 64, num_subgroups = 1>} : tensor<1x8x2x64xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x128xf32>, tensor<1x8x1x128xf32> -> tensor<1x8x2x64xf32>
  return %y : tensor<1x8x2x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x64xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x128xf32>) -> tensor<1x8x2x64xf32> {
  // expected-error @+1 {{is invalid: stages 83712 bytes of shared memory, the device has 32768}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_size = 64, num_subgroups = 8>} : tensor<1x8x2x64xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x128xf32>, tensor<1x8x1x128xf32> -> tensor<1x8x2x64xf32>
  return %y : tensor<1x8x2x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x64xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x128xf32>) -> tensor<1x8x2x64xf32> {
  // expected-error @+1 {{is invalid: 'num_subgroups' applies to Vulkan targets only}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 16, chunk_size = 16, num_subgroups = 2>} : tensor<1x8x2x64xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x128xf32>, tensor<1x8x1x128xf32> -> tensor<1x8x2x64xf32>
  return %y : tensor<1x8x2x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'split_l', 'state_lanes', 'time_lanes', 'lane_batch', 'double_buffer', 'time_segments', 'channel_lanes', 'poly_exp', 'fetch_ahead' and 'carry_pass' apply to Vulkan targets only}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 8, chunk_l = 4, split_l = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'split_l', 'state_lanes', 'time_lanes', 'lane_batch', 'double_buffer', 'time_segments', 'channel_lanes', 'poly_exp', 'fetch_ahead' and 'carry_pass' apply to Vulkan targets only}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 8, chunk_l = 4, state_lanes = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'state_lanes' (3) must be a power of two no larger than the subgroup size (32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, chunk_l = 4, state_lanes = 3>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'state_lanes' (64) must be a power of two no larger than the subgroup size (32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 1, chunk_l = 4, state_lanes = 64>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'block_d' (8) channels of 2 threads must fill whole subgroups of 32}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 8, chunk_l = 4, state_lanes = 2>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'split_l' (8) must be positive and shorter than the sequence (8); leave it out for one pass over the sequence}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 8, chunk_l = 4, split_l = 8>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'split_l' (100) must be positive and shorter than the sequence (8); leave it out for one pass over the sequence}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 8, chunk_l = 4, split_l = 100>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: 'split_l' applies to Vulkan targets only}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 8, chunk_size = 4, split_l = 4>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: 'split_l' (6) must be a multiple of 'chunk_size' (4) shorter than the sequence (8); leave it out for one pass over the sequence}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 16, chunk_size = 4, num_subgroups = 1, split_l = 6>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: 'split_l' (8) must be a multiple of 'chunk_size' (4) shorter than the sequence (8); leave it out for one pass over the sequence}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 16, chunk_size = 4, num_subgroups = 1, split_l = 8>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// The time-lanes scan (`time_lanes`, Vulkan): with split_l, state groups
// (`state_lanes`) past the subgroup with the lanes, lanes that are no power
// of two or past the subgroup, chunks that are not
// lanes times at most 32 steps, more than 32 states, partial subgroups or
// too many threads, shared memory.

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'time_lanes' is one pass over the sequence: leave 'split_l' out}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 2, chunk_l = 64, split_l = 16, time_lanes = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'state_lanes' (4) with 'time_lanes' must be a power of two dividing d_state (16) whose product with 'time_lanes' (16) is at most the subgroup size (32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 2, chunk_l = 64, state_lanes = 4, time_lanes = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'time_lanes' (3) must be a power of two no larger than the subgroup size (32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, chunk_l = 48, time_lanes = 3>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'time_lanes' (64) must be a power of two no larger than the subgroup size (32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 1, chunk_l = 64, time_lanes = 64>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'chunk_l' (48) must be 'time_lanes' (32) times at most 32 steps per thread}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 1, chunk_l = 48, time_lanes = 32>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'chunk_l' (2048) must be 'time_lanes' (32) times at most 32 steps per thread}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 1, chunk_l = 2048, time_lanes = 32>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x64xf32>, %B: tensor<1x8x1x64xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'time_lanes' keeps 64 states of a channel in each thread (at most 32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 1, chunk_l = 64, time_lanes = 32>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x64xf32>, tensor<1x8x1x64xf32>, tensor<1x8x1x64xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'block_d' (1) channels of 16 threads must fill whole subgroups of 32 and at most 1024 invocations}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 1, chunk_l = 64, time_lanes = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'block_d' (128) channels of 16 threads must fill whole subgroups of 32 and at most 1024 invocations}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 128, chunk_l = 64, time_lanes = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: stages 33536 bytes of shared memory, the device has 32768}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 16, chunk_l = 128, time_lanes = 32>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// `lane_batch` and `double_buffer` (the time-lanes scan's options): without
// time lanes, a batch past the states a thread keeps, a double buffer
// other than 1, the second u / y stage past shared memory (12
// channels fit with one stage: 29344 bytes).

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'lane_batch' and 'double_buffer' need 'time_lanes'}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 2, chunk_l = 16, lane_batch = 2>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'lane_batch' and 'double_buffer' need 'time_lanes'}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 2, chunk_l = 16, double_buffer = 1>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'lane_batch' (9) must be between 1 and the states a thread keeps (8)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 1, chunk_l = 64, lane_batch = 9, state_lanes = 2, time_lanes = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'double_buffer' (2) must be 1 (leave it out for one u / y stage)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 2, chunk_l = 64, double_buffer = 2, time_lanes = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: stages 35632 bytes of shared memory, the device has 32768}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 12, chunk_l = 128, double_buffer = 1, time_lanes = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

// `time_segments` (the channels along the lanes, each chunk's steps split
// across subgroups): with the time lanes, a count that does not divide the
// chunk, state groups with a block that is no power of two, too many
// (step, state) pairs a thread, too many threads, too much shared memory.

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'time_segments' is one pass with the channels along the lanes: leave 'split_l' and 'time_lanes' out}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 16, chunk_l = 64, time_lanes = 16, time_segments = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'time_segments' (3) must be positive and divide 'chunk_l' (64)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 16, chunk_l = 64, time_segments = 3>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'state_lanes' (2) with 'time_segments' must be a power of two dividing d_state (16); with more than one, 'block_d' (12) must be a power of two whose product with it is at most the subgroup size (32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 12, chunk_l = 64, state_lanes = 2, time_segments = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'time_segments' keeps 32 steps x 8 states of decay products and states in each thread (at most 128 pairs, 32 states)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 16, chunk_l = 64, state_lanes = 2, time_segments = 2>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'block_d' (16) channels x 2 state groups x 64 segments must be at most 1024 invocations (whole subgroups of 32 with state groups)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 16, chunk_l = 64, state_lanes = 2, time_segments = 64>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: segments 34560 bytes of shared memory, the device has 32768}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 16, chunk_l = 64, state_lanes = 2, time_segments = 8>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

// `channel_lanes` (a lane = a channel with every state) and `poly_exp`:
// poly_exp (or fetch_ahead) without it, a value other than 1, beside the
// other lane forms, a split no shorter than the sequence, more than 32
// states a lane, too many (step, state) pairs fetched ahead, poly_exp past
// d_state, more than 32 steps of delta, u and z in flight, carry_pass
// without split_l or other than 1; the CPU rejects the keys (above, and
// here with channel_lanes alone).

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'poly_exp', 'fetch_ahead' and 'carry_pass' need 'channel_lanes'}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, chunk_l = 2, poly_exp = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'channel_lanes' (2) must be 1 (leave it out for the other forms)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, channel_lanes = 2, chunk_l = 2>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'channel_lanes' keeps every state of a channel in one lane: leave 'state_lanes', 'time_lanes', 'time_segments', 'lane_batch' and 'double_buffer' out}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 2, state_lanes = 2>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'channel_lanes' keeps every state of a channel in one lane: leave 'state_lanes', 'time_lanes', 'time_segments', 'lane_batch' and 'double_buffer' out}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 8, time_segments = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'split_l' (8) must be positive and shorter than the sequence (8); leave it out for one pass over the sequence}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 2, split_l = 8>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x33xf32>, %B: tensor<1x8x1x33xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'channel_lanes' keeps all 33 states of a channel in one thread (at most 32)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 2>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x33xf32>, tensor<1x8x1x33xf32>, tensor<1x8x1x33xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'channel_lanes' fetches 'chunk_l' (9) steps x 16 states of B and C a group ahead (at most 128 pairs)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 9>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'poly_exp' (17) must be at most d_state (16)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 2, poly_exp = 17>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'split_l', 'state_lanes', 'time_lanes', 'lane_batch', 'double_buffer', 'time_segments', 'channel_lanes', 'poly_exp', 'fetch_ahead' and 'carry_pass' apply to Vulkan targets only}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 8, channel_lanes = 1, chunk_l = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'fetch_ahead' (9) groups of 'chunk_l' (4) steps of delta, u and z in flight: at most 32 steps}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 4, fetch_ahead = 9>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'carry_pass' (1) must be 1, with 'split_l' (it joins the splits)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, carry_pass = 1, channel_lanes = 1, chunk_l = 2>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'carry_pass' (2) must be 1, with 'split_l' (it joins the splits)}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, carry_pass = 2, channel_lanes = 1, chunk_l = 2, split_l = 4>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}
