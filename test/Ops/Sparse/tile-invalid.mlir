// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the config rules of ejk.native_sparse_attention give
// (lib/Ops/Sparse/{Cpu,Vulkan}/Rules.cpp), as ejk-tile-dispatches reports it
// (a block_t below 1 is an invalid #ejk.config already).

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x1x16xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{config #ejk.config<block_t = 2000> is invalid: 'block_t' (2000) must be at most 1024}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 2000>}
      : tensor<1x64x2x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x1x16xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{is invalid: config needs 'block_t'}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<>}
      : tensor<1x64x2x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x1x16xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{is invalid: 'block_t' (2048) is the workgroup's thread count: at most 1024}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 2048>}
      : tensor<1x64x2x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: two rows of 256 blocks per thread for 64 threads: 128 KiB.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x4096x2x16xf32>, %k: tensor<1x4096x1x16xf32>, %gc: tensor<1x4096x2xf32>) -> tensor<1x4096x2x16xf32> {
  // expected-error @+1 {{is invalid: 'block_t' (64) needs 131072 bytes of workgroup memory for the selection (two rows of 256 blocks per token), more than the 32768 of the device}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x4096x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 64>}
      : tensor<1x4096x2x16xf32>, tensor<1x4096x1x16xf32>, tensor<1x4096x1x16xf32> -> tensor<1x4096x2x16xf32>
  return %o : tensor<1x4096x2x16xf32>
}
}

// -----

// Vulkan: block and window sizes past 32-bit indices.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x9x2x16xf32>, %k: tensor<1x9x1x16xf32>, %gc: tensor<1x9x2xf32>) -> tensor<1x9x2x16xf32> {
  // expected-error @+1 {{is invalid: 'block_size' (16) and 'window_size' (4294967296) must be at most 1073741824 on Vulkan (32-bit indices)}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x9x2xf32>) {block_size = 16 : i64, window_size = 4294967296 : i64, config = #ejk.config<block_t = 8>}
      : tensor<1x9x2x16xf32>, tensor<1x9x1x16xf32>, tensor<1x9x1x16xf32> -> tensor<1x9x2x16xf32>
  return %o : tensor<1x9x2x16xf32>
}
}
