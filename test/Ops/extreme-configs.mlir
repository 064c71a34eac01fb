// Block sizes of 2^61 and more: config verification rejects them with the
// reason (checked arithmetic), on both targets, before anything is compiled
// or allocated.
// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @scan(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: working set of more than 2^63 bytes exceeds the 1048576-byte L2 cache}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 2305843009213693952, chunk_l = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @ssd(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: working set of more than 2^63 bytes exceeds the 1048576-byte L2 cache}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<chunk_size = 2305843009213693952, block_p = 8, block_n = 16>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @attention(%q: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{is invalid: working set of more than 2^63 bytes exceeds the 1048576-byte L2 cache}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 8, block_k = 2305843009213693952>} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @scan(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x32xf32> {
  // expected-error @+1 {{is invalid: 'block_d' (2305843009213693952) or 'chunk_l' (16) exceeds the device's 1024 invocations or 32768 bytes of shared memory per workgroup}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 2305843009213693952, chunk_l = 16>} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return %y : tensor<1x8x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @ssd(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{exceeds the device's 1024 invocations or 32768 bytes of shared memory per workgroup}}
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<chunk_size = 16, block_p = 2305843009213693952, block_n = 16, num_subgroups = 1>} : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x16xf32>
  return %y : tensor<1x8x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @attention(%q: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{exceeds the device's 1024 invocations or 32768 bytes of shared memory per workgroup}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 2305843009213693952, block_k = 16, num_subgroups = 1>} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}
}
