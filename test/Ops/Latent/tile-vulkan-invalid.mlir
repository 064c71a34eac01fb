// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the Vulkan config rules of ejk.mla and ejk.paged_mla
// (lib/Ops/Latent/Vulkan/Rules.cpp and the reader of
// ejk/Ops/Latent/Config.h) give for a config, as ejk-tile-dispatches
// reports it; both ops share the rules.

// The reader: block_k is required.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{config needs 'block_k'}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<num_splits = 2>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// No kernel for a 0-wide RoPE part yet.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x0xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x0xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{rope_dim 0 has no kernel yet (pass a RoPE key of at least one element)}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x0xf32>, tensor<2x48x64xf32>, tensor<2x48x0xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// head_lanes a power of two.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'head_lanes' (3) must be a power of two of at most the subgroup size (32)}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8, head_lanes = 3>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// head_lanes within a subgroup.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'head_lanes' (64) must be a power of two of at most the subgroup size (32)}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8, head_lanes = 64>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// Whole subgroups of threads.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'block_h' x 'head_lanes' (24 threads) must be a multiple of the subgroup size (32) and at most 1024}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8, block_h = 3, head_lanes = 8>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// No more threads than the device has.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'block_h' x 'head_lanes' (2048 threads) must be a multiple of the subgroup size (32) and at most 1024}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8, block_h = 64, head_lanes = 32>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// block_k at most 32.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'block_k' (64) must be at most 32}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 64>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// num_splits at most 64.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{'num_splits' (65) must be at most 64}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8, num_splits = 65>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}

// -----

// The lane state must stay in registers.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x512xf32>, %qr: tensor<2x1x8x64xf32>, %c: tensor<2x48x512xf32>, %kr: tensor<2x48x64xf32>) -> tensor<2x1x8x512xf32> {
  // expected-error @+1 {{'head_lanes' (1) leaves 1088 registers of queries and accumulator per lane, more than 160}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 8, block_h = 32, head_lanes = 1>}
      : tensor<2x1x8x512xf32>, tensor<2x1x8x64xf32>, tensor<2x48x512xf32>, tensor<2x48x64xf32> -> tensor<2x1x8x512xf32>
  return %o : tensor<2x1x8x512xf32>
}
}

// -----

// The staged rows must fit workgroup memory.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x512xf32>, %qr: tensor<2x1x8x64xf32>, %c: tensor<2x48x512xf32>, %kr: tensor<2x48x64xf32>) -> tensor<2x1x8x512xf32> {
  // expected-error @+1 {{'block_k' (32) stages 73728 bytes of rows, more than the 32768 bytes of workgroup memory}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 32>}
      : tensor<2x1x8x512xf32>, tensor<2x1x8x64xf32>, tensor<2x48x512xf32>, tensor<2x48x64xf32> -> tensor<2x1x8x512xf32>
  return %o : tensor<2x1x8x512xf32>
}
}

// -----

// paged_mla: the same rules.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x8x64xf32>, %qr: tensor<4x8x16xf32>, %c: tensor<32x16x80xf32>, %lens: tensor<4xi32>, %tables: tensor<4x6xi32>, %starts: tensor<5xi32>) -> tensor<4x8x64xf32> {
  // expected-error @+1 {{'block_k' (64) must be at most 32}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64>}
      : tensor<4x8x64xf32>, tensor<4x8x16xf32>, tensor<32x16x80xf32>, tensor<4xi32>, tensor<4x6xi32>, tensor<5xi32> -> tensor<4x8x64xf32>
  return %o : tensor<4x8x64xf32>
}
}

// The cooperative-matrix kernel's rules (getCoopLayout).

// -----

// Buffer loads of matrices need SPIR-V 1.6.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{'cooperative' needs SPIR-V 1.6 (cooperative-matrix loads from buffers)}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, cooperative = 1>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// 'cooperative' is 0, 1, 2 or 3.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{'cooperative' must be 0, 1, 2 or 3}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, cooperative = 4>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// f32 inputs have no cooperative kernel.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf32>, %qr: tensor<4x32x16xf32>, %c: tensor<16x16x144xf32>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf32> {
  // expected-error @+1 {{'cooperative' needs f16 inputs and a device with 16x16x16 f16 cooperative matrices, or bf16 inputs and a device with bf16 ones}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, cooperative = 1>}
      : tensor<4x32x128xf32>, tensor<4x32x16xf32>, tensor<16x16x144xf32>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf32>
  return %o : tensor<4x32x128xf32>
}
}

// -----

// The latent columns split evenly over 8 subgroups of 16-column matrices.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x64xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x80xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x64xf16> {
  // expected-error @+1 {{'cooperative' needs a latent dim that is a multiple of 128 and a RoPE dim and page size that are multiples of 16}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, cooperative = 1>}
      : tensor<4x32x64xf16>, tensor<4x32x16xf16>, tensor<16x16x80xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x64xf16>
  return %o : tensor<4x32x64xf16>
}
}

// -----

// head_lanes is the portable kernel's.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{'head_lanes' applies to the portable kernel only}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, head_lanes = 8, cooperative = 1>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// Heads in whole 16-row matrices.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{'block_h' (8) must be 16 or 32 and divide the 32 heads for the cooperative kernel}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, block_h = 8, cooperative = 1>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// The score matrices and their parts share out the subgroups evenly.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{'block_k' (48) must be a multiple of 16 whose 16x16 score matrices (with 32 heads) divide the 8 subgroups and split the 9 products of a score evenly among them}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 48, cooperative = 1>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// 256 threads must fit.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 128 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{the cooperative kernel's 256 threads do not fit the device (subgroup 32, at most 128 invocations)}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, cooperative = 1>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// Splits are bounded.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{'num_splits' (65) must be at most 64}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, num_splits = 65, cooperative = 1>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// Workgroup memory: the step's latent rows, score parts, P, row factors.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 8192 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{the cooperative kernel needs 31744 bytes of workgroup memory, more than the 8192}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, cooperative = 1>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// The register softmax (cooperative = 2) reads the matrices' elements in
// NVIDIA's layout: a device without it is refused.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{'cooperative' 2 needs NVIDIA's cooperative-matrix layout (cooperative_matrix_nv_layout, subgroups of 32)}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 32, cooperative = 2>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// With the register softmax the whole rows are staged: 64 tokens of 576 +
// 8 f16 (74752 bytes) exceed 48 KiB.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_nv_layout", "float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x512xf16>, %qr: tensor<4x32x64xf16>, %c: tensor<16x64x576xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x512xf16> {
  // expected-error @+1 {{the cooperative kernel needs 83456 bytes of workgroup memory, more than the 49152}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 64, block_h = 16, cooperative = 2>}
      : tensor<4x32x512xf16>, tensor<4x32x64xf16>, tensor<16x64x576xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x512xf16>
  return %o : tensor<4x32x512xf16>
}
}

// -----

// The pipelined register softmax (cooperative = 3) too needs NVIDIA's
// layout.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x128xf16>, %qr: tensor<4x32x16xf16>, %c: tensor<16x16x144xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x128xf16> {
  // expected-error @+1 {{'cooperative' 3 needs NVIDIA's cooperative-matrix layout (cooperative_matrix_nv_layout, subgroups of 32)}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 16, cooperative = 3>}
      : tensor<4x32x128xf16>, tensor<4x32x16xf16>, tensor<16x16x144xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x128xf16>
  return %o : tensor<4x32x128xf16>
}
}

// -----

// Pipelined, two stages of 32 whole rows (2 x 32 x 584 f16 = 74752 bytes)
// + the parts in 16 rows of 136 f32 (8704) + the probe's f16 tile (512)
// exceed 48 KiB: at DeepSeek's dims it takes 16-token steps.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_nv_layout", "float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<4x32x512xf16>, %qr: tensor<4x32x64xf16>, %c: tensor<16x64x576xf16>, %lens: tensor<4xi32>, %tables: tensor<4x4xi32>, %starts: tensor<5xi32>) -> tensor<4x32x512xf16> {
  // expected-error @+1 {{the cooperative kernel needs 83968 bytes of workgroup memory, more than the 49152}}
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 32, block_h = 32, cooperative = 3>}
      : tensor<4x32x512xf16>, tensor<4x32x64xf16>, tensor<16x64x576xf16>, tensor<4xi32>, tensor<4x4xi32>, tensor<5xi32> -> tensor<4x32x512xf16>
  return %o : tensor<4x32x512xf16>
}
}

// -----

// The device features the kernels need (these failed to legalize
// 'memref.load' or 'gpu.subgroup_mma_load_matrix', or named 'gpu.shuffle').
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf16>, %qr: tensor<2x1x8x16xf16>, %c: tensor<2x48x64xf16>, %kr: tensor<2x48x16xf16>) -> tensor<2x1x8x64xf16> {
  // expected-error @+1 {{is invalid: f16 and bf16 buffers need the device feature 'storage16'}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 4>}
      : tensor<2x1x8x64xf16>, tensor<2x1x8x16xf16>, tensor<2x48x64xf16>, tensor<2x48x16xf16> -> tensor<2x1x8x64xf16>
  return %o : tensor<2x1x8x64xf16>
}
}

// -----

// f16 arithmetic.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["storage16", "int16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xf16>, %qr: tensor<2x1x8x16xf16>, %c: tensor<2x48x64xf16>, %kr: tensor<2x48x16xf16>) -> tensor<2x1x8x64xf16> {
  // expected-error @+1 {{is invalid: f16 buffers need the device feature 'float16'}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 4>}
      : tensor<2x1x8x64xf16>, tensor<2x1x8x16xf16>, tensor<2x48x64xf16>, tensor<2x48x16xf16> -> tensor<2x1x8x64xf16>
  return %o : tensor<2x1x8x64xf16>
}
}

// -----

// bf16 buffers are read as 16-bit integers.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%ql: tensor<2x1x8x64xbf16>, %qr: tensor<2x1x8x16xbf16>, %c: tensor<2x48x64xbf16>, %kr: tensor<2x48x16xbf16>) -> tensor<2x1x8x64xbf16> {
  // expected-error @+1 {{is invalid: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 4>}
      : tensor<2x1x8x64xbf16>, tensor<2x1x8x16xbf16>, tensor<2x48x64xbf16>, tensor<2x48x16xbf16> -> tensor<2x1x8x64xbf16>
  return %o : tensor<2x1x8x64xbf16>
}
}

// -----

// Subgroup shuffles.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "int16", "subgroup_basic"]}} {
func.func @f(%ql: tensor<2x1x8x64xf32>, %qr: tensor<2x1x8x16xf32>, %c: tensor<2x48x64xf32>, %kr: tensor<2x48x16xf32>) -> tensor<2x1x8x64xf32> {
  // expected-error @+1 {{is invalid: the kernels reduce across the lanes of a subgroup with shuffles, which the target lacks ('subgroup_shuffle')}}
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 4>}
      : tensor<2x1x8x64xf32>, tensor<2x1x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x1x8x64xf32>
  return %o : tensor<2x1x8x64xf32>
}
}
