// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the Vulkan config rules of ejk.grouped_matmul and
// ejk.transposed_grouped_matmul (lib/Ops/Moe/Vulkan/Rules.cpp, Layout.cpp)
// give for a config, as ejk-tile-dispatches reports it. The cooperative
// cases use a target with cooperative matrices; the transposed op names
// its entries as they map to the tile (block_k rows of the result, block_m
// rows per step).

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @pow2(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'num_subgroups' (3) must be a power of two}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 64, block_k = 16, num_subgroups = 3>}
      : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @uneven(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{a 3 x 64 tile ('block_m' x 'block_n') does not split evenly over 256 threads (8 subgroups of 32)}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 3, block_n = 64, block_k = 16, num_subgroups = 8>}
      : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @accumulators(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{each thread would keep 512 accumulators (at most 64); use more subgroups or smaller blocks}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 128, block_n = 128, block_k = 8, num_subgroups = 1>}
      : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @shared(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{stages 66592 bytes of shared memory, the device has 32768}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 64, block_k = 128, num_subgroups = 8>}
      : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @missing(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{config needs 'block_m', 'block_n' and 'block_k'}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 64>}
      : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @huge(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xf32>, %sizes: tensor<4xi32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'block_m' (100000), 'block_n' (64), 'block_k' (16) or 'num_subgroups' (8) exceeds the device's 1024 invocations or 32768 bytes of shared memory per workgroup}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 100000, block_n = 64, block_k = 16, num_subgroups = 8>}
      : tensor<64x32xf32>, tensor<4x32x48xf32>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @grid(%lhs: tensor<300000x1xf32>, %rhs: tensor<4x1x8xf32>, %sizes: tensor<4xi32>) -> tensor<300000x8xf32> {
  // expected-error @+1 {{the grid would have 75006 row tiles ('block_m' 4), more than the 65535 workgroups Vulkan guarantees along one dimension}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 4, block_n = 8, block_k = 1, num_subgroups = 1>}
      : tensor<300000x1xf32>, tensor<4x1x8xf32>, tensor<4xi32> -> tensor<300000x8xf32>
  return %out : tensor<300000x8xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = []}} {
func.func @no_storage16(%lhs: tensor<64x32xbf16>, %rhs: tensor<4x32x48xbf16>, %sizes: tensor<4xi32>) -> tensor<64x48xbf16> {
  // expected-error @+1 {{f16 and bf16 buffers need the device feature 'storage16'}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 64, block_k = 16, num_subgroups = 8>}
      : tensor<64x32xbf16>, tensor<4x32x48xbf16>, tensor<4xi32> -> tensor<64x48xbf16>
  return %out : tensor<64x48xbf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["storage16"]}} {
func.func @no_float16(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x48xf16>, %sizes: tensor<4xi32>) -> tensor<64x48xf16> {
  // expected-error @+1 {{f16 buffers need the device feature 'float16'}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 64, block_k = 16, num_subgroups = 8>}
      : tensor<64x32xf16>, tensor<4x32x48xf16>, tensor<4xi32> -> tensor<64x48xf16>
  return %out : tensor<64x48xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @coop_multiple(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x48xf16>, %sizes: tensor<4xi32>) -> tensor<64x48xf16> {
  // expected-error @+1 {{the cooperative-matrix path needs 'block_m' (24), 'block_n' (64) and 'block_k' (32) to be multiples of 16}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 24, block_n = 64, block_k = 32, num_subgroups = 4>}
      : tensor<64x32xf16>, tensor<4x32x48xf16>, tensor<4xi32> -> tensor<64x48xf16>
  return %out : tensor<64x48xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @coop_split(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x48xf16>, %sizes: tensor<4xi32>) -> tensor<64x48xf16> {
  // expected-error @+1 {{8 subgroups cannot split a 16 x 16 tile into whole 16x16 matrices}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 16, block_n = 16, block_k = 16, num_subgroups = 8>}
      : tensor<64x32xf16>, tensor<4x32x48xf16>, tensor<4xi32> -> tensor<64x48xf16>
  return %out : tensor<64x48xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @coop_accumulators(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x48xf16>, %sizes: tensor<4xi32>) -> tensor<64x48xf16> {
  // expected-error @+1 {{each subgroup would keep 64 16x16 accumulators (at most 16); use more subgroups or smaller blocks}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 128, block_n = 128, block_k = 16, num_subgroups = 1>}
      : tensor<64x32xf16>, tensor<4x32x48xf16>, tensor<4xi32> -> tensor<64x48xf16>
  return %out : tensor<64x48xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @tgmm_coop_multiple(%lhs: tensor<64x32xf16>, %rhs: tensor<64x48xf16>, %sizes: tensor<4xi32>) -> tensor<4x32x48xf16> {
  // expected-error @+1 {{the cooperative-matrix path needs 'block_k' (40), 'block_n' (64) and 'block_m' (32) to be multiples of 16}}
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 32, block_n = 64, block_k = 40, num_subgroups = 4>}
      : tensor<64x32xf16>, tensor<64x48xf16>, tensor<4xi32> -> tensor<4x32x48xf16>
  return %out : tensor<4x32x48xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @stages_range(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x48xf16>, %sizes: tensor<4xi32>) -> tensor<64x48xf16> {
  // expected-error @+1 {{'num_stages' (3) must be 1 or 2}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 64, block_k = 32, num_subgroups = 4, num_stages = 3>}
      : tensor<64x32xf16>, tensor<4x32x48xf16>, tensor<4xi32> -> tensor<64x48xf16>
  return %out : tensor<64x48xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @stages_portable(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x48xf16>, %sizes: tensor<4xi32>) -> tensor<64x48xf16> {
  // expected-error @+1 {{'num_stages' 2 applies to the cooperative-matrix path only}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 64, block_k = 16, num_subgroups = 4, num_stages = 2>}
      : tensor<64x32xf16>, tensor<4x32x48xf16>, tensor<4xi32> -> tensor<64x48xf16>
  return %out : tensor<64x48xf16>
}
}

// -----

// Two stages of 256 x (32 + 8) + 32 x (128 + 8) halves do not fit in 48 KiB
// (one does).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @stages_shared(%lhs: tensor<512x64xf16>, %rhs: tensor<4x64x128xf16>, %sizes: tensor<4xi32>) -> tensor<512x128xf16> {
  // expected-error @+1 {{stages 59424 bytes of shared memory, the device has 49152}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 256, block_n = 128, block_k = 32, num_subgroups = 8, num_stages = 2>}
      : tensor<512x64xf16>, tensor<4x64x128xf16>, tensor<4xi32> -> tensor<512x128xf16>
  return %out : tensor<512x128xf16>
}
}

// -----

// The transposed op: two stages of steps of block_m = 64 rows, each 2 x 64
// x (128 + 8) halves (one fits).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @tgmm_stages_shared(%lhs: tensor<64x128xf16>, %rhs: tensor<64x128xf16>, %sizes: tensor<4xi32>) -> tensor<4x128x128xf32> {
  // expected-error @+1 {{stages 70176 bytes of shared memory, the device has 49152}}
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 128, block_k = 128, num_subgroups = 4, num_stages = 2>}
      : tensor<64x128xf16>, tensor<64x128xf16>, tensor<4xi32> -> tensor<4x128x128xf32>
  return %out : tensor<4x128x128xf32>
}
}

// -----

// i8 weights are read as i8 (the portable path) or through 16-byte views
// of an i8 binding: both need 8-bit storage and arithmetic.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "int8"]}} {
func.func @no_storage8(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x48xi8>, %sizes: tensor<4xi32>, %scales: tensor<4x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{i8 weights need the device features 'storage8' and 'int8'}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x48xf32>) {config = #ejk.config<block_m = 64, block_n = 64, block_k = 16, num_subgroups = 4>}
      : tensor<64x32xf32>, tensor<4x32x48xi8>, tensor<4xi32> -> tensor<64x48xf32>
  return %out : tensor<64x48xf32>
}
}

// -----

// bf16 buffers are read as 16-bit integers: without 'int16' the dispatch
// was refused in its own name ('f_dispatch_0'), not the op's.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%lhs: tensor<64x32xbf16>, %rhs: tensor<2x32x16xbf16>, %sizes: tensor<2xi32>) -> tensor<64x16xbf16> {
  // expected-error @+1 {{is invalid: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 16, block_n = 16, block_k = 16>} : tensor<64x32xbf16>, tensor<2x32x16xbf16>, tensor<2xi32> -> tensor<64x16xbf16>
  return %out : tensor<64x16xbf16>
}
}
