// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches
// The config errors of the chunk-parallel SSD (chunk_parallel = 1): its
// value, split_l beside it, the chunk-state tile, the shared memory of its
// two chunk dispatches, and the CPU (which has no such path).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x16xf32>, %dt: tensor<1x128x2xf32>, %A: tensor<2xf32>, %B: tensor<1x128x1x16xf32>) -> tensor<1x128x2x16xf32> {
  // expected-error @+1 {{is invalid: 'chunk_parallel' (2) must be 0 or 1}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 2, chunk_size = 32, num_subgroups = 4>} : tensor<1x128x2x16xf32>, tensor<1x128x2xf32>, tensor<2xf32>, tensor<1x128x1x16xf32>, tensor<1x128x1x16xf32> -> tensor<1x128x2x16xf32>
  return %y : tensor<1x128x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x16xf32>, %dt: tensor<1x128x2xf32>, %A: tensor<2xf32>, %B: tensor<1x128x1x16xf32>) -> tensor<1x128x2x16xf32> {
  // expected-error @+1 {{is invalid: 'chunk_parallel' runs every chunk in parallel: leave 'split_l' out}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 32, num_subgroups = 4, split_l = 64>} : tensor<1x128x2x16xf32>, tensor<1x128x2xf32>, tensor<2xf32>, tensor<1x128x1x16xf32>, tensor<1x128x1x16xf32> -> tensor<1x128x2x16xf32>
  return %y : tensor<1x128x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x64xf32>, %dt: tensor<1x128x2xf32>, %A: tensor<2xf32>, %B: tensor<1x128x1x128xf32>) -> tensor<1x128x2x64xf32> {
  // expected-error @+1 {{is invalid: each thread would keep 256 accumulators of a chunk's state (block_p x d_state; at most 64); use more subgroups or a smaller block_p}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 8, block_p = 64, chunk_parallel = 1, chunk_size = 8, num_subgroups = 1>} : tensor<1x128x2x64xf32>, tensor<1x128x2xf32>, tensor<2xf32>, tensor<1x128x1x128xf32>, tensor<1x128x1x128xf32> -> tensor<1x128x2x64xf32>
  return %y : tensor<1x128x2x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x64xf32>, %dt: tensor<1x128x2xf32>, %A: tensor<2xf32>, %B: tensor<1x128x1x32xf32>) -> tensor<1x128x2x64xf32> {
  // expected-error @+1 {{is invalid: the chunk outputs stage 50688 bytes of shared memory, the device has 32768}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_parallel = 1, chunk_size = 64, num_subgroups = 8>} : tensor<1x128x2x64xf32>, tensor<1x128x2xf32>, tensor<2xf32>, tensor<1x128x1x32xf32>, tensor<1x128x1x32xf32> -> tensor<1x128x2x64xf32>
  return %y : tensor<1x128x2x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x1xf32>, %dt: tensor<1x128x2xf32>, %A: tensor<2xf32>, %B: tensor<1x128x1x16384xf32>) -> tensor<1x128x2x1xf32> {
  // expected-error @+1 {{is invalid: the chunk states stage 65588 bytes of shared memory, the device has 32768}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 1, block_p = 1, chunk_parallel = 1, chunk_size = 4, num_subgroups = 32>} : tensor<1x128x2x1xf32>, tensor<1x128x2xf32>, tensor<2xf32>, tensor<1x128x1x16384xf32>, tensor<1x128x1x16384xf32> -> tensor<1x128x2x1xf32>
  return %y : tensor<1x128x2x1xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x16xf32>, %dt: tensor<1x128x2xf32>, %A: tensor<2xf32>, %B: tensor<1x128x1x16xf32>) -> tensor<1x128x2x16xf32> {
  // expected-error @+1 {{is invalid: 'chunk_parallel' applies to Vulkan targets only}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 32>} : tensor<1x128x2x16xf32>, tensor<1x128x2xf32>, tensor<2xf32>, tensor<1x128x1x16xf32>, tensor<1x128x1x16xf32> -> tensor<1x128x2x16xf32>
  return %y : tensor<1x128x2x16xf32>
}
}

// The cooperative-matrix chunk kernels (cooperative = 1): its value, the
// chunk-parallel path it needs, f16 inputs and a device with matrices,
// whole 16x16 tiles, tiles shared evenly among the subgroups, shared
// memory, and the CPU.

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x64xf16>, %dt: tensor<1x128x2xf16>, %A: tensor<2xf32>, %B: tensor<1x128x1x64xf16>) -> tensor<1x128x2x64xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' (3) must be 0, 1 or 2 (padded matrix stages)}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_parallel = 1, chunk_size = 64, cooperative = 3, num_subgroups = 8>} : tensor<1x128x2x64xf16>, tensor<1x128x2xf16>, tensor<2xf32>, tensor<1x128x1x64xf16>, tensor<1x128x1x64xf16> -> tensor<1x128x2x64xf16>
  return %y : tensor<1x128x2x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x64xf16>, %dt: tensor<1x128x2xf16>, %A: tensor<2xf32>, %B: tensor<1x128x1x64xf16>) -> tensor<1x128x2x64xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs 'chunk_parallel' = 1}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_size = 32, cooperative = 1, num_subgroups = 8>} : tensor<1x128x2x64xf16>, tensor<1x128x2xf16>, tensor<2xf32>, tensor<1x128x1x64xf16>, tensor<1x128x1x64xf16> -> tensor<1x128x2x64xf16>
  return %y : tensor<1x128x2x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x64xf32>, %dt: tensor<1x128x2xf32>, %A: tensor<2xf32>, %B: tensor<1x128x1x64xf32>) -> tensor<1x128x2x64xf32> {
  // expected-error @+1 {{is invalid: 'cooperative' needs f16 x, B and C and a device with 16x16x16 f16 cooperative matrices}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_parallel = 1, chunk_size = 32, cooperative = 1, num_subgroups = 8>} : tensor<1x128x2x64xf32>, tensor<1x128x2xf32>, tensor<2xf32>, tensor<1x128x1x64xf32>, tensor<1x128x1x64xf32> -> tensor<1x128x2x64xf32>
  return %y : tensor<1x128x2x64xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x64xf16>, %dt: tensor<1x128x2xf16>, %A: tensor<2xf32>, %B: tensor<1x128x1x64xf16>) -> tensor<1x128x2x64xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs f16 x, B and C and a device with 16x16x16 f16 cooperative matrices}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_parallel = 1, chunk_size = 32, cooperative = 1, num_subgroups = 8>} : tensor<1x128x2x64xf16>, tensor<1x128x2xf16>, tensor<2xf32>, tensor<1x128x1x64xf16>, tensor<1x128x1x64xf16> -> tensor<1x128x2x64xf16>
  return %y : tensor<1x128x2x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x24xf16>, %dt: tensor<1x128x2xf16>, %A: tensor<2xf32>, %B: tensor<1x128x1x64xf16>) -> tensor<1x128x2x24xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs 'chunk_size' (32), 'block_p' (24), 'block_n' (32) and d_state (64) in whole 16x16 tiles}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 24, chunk_parallel = 1, chunk_size = 32, cooperative = 1, num_subgroups = 8>} : tensor<1x128x2x24xf16>, tensor<1x128x2xf16>, tensor<2xf32>, tensor<1x128x1x64xf16>, tensor<1x128x1x64xf16> -> tensor<1x128x2x24xf16>
  return %y : tensor<1x128x2x24xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x16xf16>, %dt: tensor<1x128x2xf16>, %A: tensor<2xf32>, %B: tensor<1x128x1x64xf16>) -> tensor<1x128x2x16xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' shares 1 output and 4 state tiles among 8 subgroups: each count must be a multiple}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 16, cooperative = 1, num_subgroups = 8>} : tensor<1x128x2x16xf16>, tensor<1x128x2xf16>, tensor<2xf32>, tensor<1x128x1x64xf16>, tensor<1x128x1x64xf16> -> tensor<1x128x2x16xf16>
  return %y : tensor<1x128x2x16xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x64xf16>, %dt: tensor<1x128x2xf16>, %A: tensor<2xf32>, %B: tensor<1x128x1x64xf16>) -> tensor<1x128x2x64xf16> {
  // expected-error @+1 {{is invalid: the cooperative chunk kernels stage 41728 bytes of shared memory, the device has 32768}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_parallel = 1, chunk_size = 64, cooperative = 1, num_subgroups = 8>} : tensor<1x128x2x64xf16>, tensor<1x128x2xf16>, tensor<2xf32>, tensor<1x128x1x64xf16>, tensor<1x128x1x64xf16> -> tensor<1x128x2x64xf16>
  return %y : tensor<1x128x2x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%x: tensor<1x128x2x64xf16>, %dt: tensor<1x128x2xf16>, %A: tensor<2xf32>, %B: tensor<1x128x1x64xf16>) -> tensor<1x128x2x64xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' applies to Vulkan targets only}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 64, chunk_size = 32, cooperative = 1>} : tensor<1x128x2x64xf16>, tensor<1x128x2xf16>, tensor<2xf32>, tensor<1x128x1x64xf16>, tensor<1x128x1x64xf16> -> tensor<1x128x2x64xf16>
  return %y : tensor<1x128x2x64xf16>
}
}
