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

// -----

// The cooperative attend dispatch: Vulkan only.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x4x32xf16>, %k: tensor<1x64x2x32xf16>, %gc: tensor<1x64x4xf16>) -> tensor<1x64x4x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' applies to Vulkan targets only}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x4x32xf16>
  return %o : tensor<1x64x4x32xf16>
}
}

// -----

// 'cooperative' is 0 or 1.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @f(%q: tensor<1x64x4x32xf16>, %k: tensor<1x64x2x32xf16>, %gc: tensor<1x64x4xf16>) -> tensor<1x64x4x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' must be 0 or 1, got 2}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 2>}
      : tensor<1x64x4x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x4x32xf16>
  return %o : tensor<1x64x4x32xf16>
}
}

// -----

// A device without cooperative matrices.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @f(%q: tensor<1x64x4x32xf16>, %k: tensor<1x64x2x32xf16>, %gc: tensor<1x64x4xf16>) -> tensor<1x64x4x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs a device with cooperative matrices}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x4x32xf16>
  return %o : tensor<1x64x4x32xf16>
}
}

// -----

// f32 inputs.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @f(%q: tensor<1x64x4x32xf32>, %k: tensor<1x64x2x32xf32>, %gc: tensor<1x64x4xf32>) -> tensor<1x64x4x32xf32> {
  // expected-error @+1 {{is invalid: 'cooperative' needs f16 or bf16 inputs (the matrices' operands), got f32}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x4x32xf32>
  return %o : tensor<1x64x4x32xf32>
}
}

// -----

// bf16 without bf16 matrices.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x4x32xbf16>, %k: tensor<1x64x2x32xbf16>, %gc: tensor<1x64x4xbf16>) -> tensor<1x64x4x32xbf16> {
  // expected-error @+1 {{is invalid: 'cooperative' with bf16 inputs needs bf16 cooperative matrices (the device feature 'cooperative_matrix_bf16')}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xbf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16> -> tensor<1x64x4x32xbf16>
  return %o : tensor<1x64x4x32xbf16>
}
}

// -----

// head_dim 40 is not whole tiles.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @f(%q: tensor<1x64x4x40xf16>, %k: tensor<1x64x2x40xf16>, %gc: tensor<1x64x4xf16>) -> tensor<1x64x4x40xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs a head_dim in whole 16-column tiles, got 40}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x40xf16>, tensor<1x64x2x40xf16>, tensor<1x64x2x40xf16> -> tensor<1x64x4x40xf16>
  return %o : tensor<1x64x4x40xf16>
}
}

// -----

// 32 query heads per KV head: more than a matrix's 16 rows.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @f(%q: tensor<1x64x32x32xf16>, %k: tensor<1x64x1x32xf16>, %gc: tensor<1x64x32xf16>) -> tensor<1x64x32x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' puts the 32 query heads of a KV head in the 16 rows of a matrix: at most 16}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x32xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x32x32xf16>, tensor<1x64x1x32xf16>, tensor<1x64x1x32xf16> -> tensor<1x64x32x32xf16>
  return %o : tensor<1x64x32x32xf16>
}
}

// -----

// Subgroups of 8 lanes.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @f(%q: tensor<1x64x4x32xf16>, %k: tensor<1x64x2x32xf16>, %gc: tensor<1x64x4xf16>) -> tensor<1x64x4x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs a subgroup of 16, 32, 64, 128 or 256 lanes, got 8}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x4x32xf16>
  return %o : tensor<1x64x4x32xf16>
}
}

// -----

// Rows shared by two lanes need shuffles.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @f(%q: tensor<1x64x4x32xf16>, %k: tensor<1x64x2x32xf16>, %gc: tensor<1x64x4xf16>) -> tensor<1x64x4x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' combines each row over 2 lanes with subgroup shuffles ('subgroup_shuffle')}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x4x32xf16>
  return %o : tensor<1x64x4x32xf16>
}
}

// -----

// head_dim 512: the stages do not fit 16 KiB.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 16384 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @f(%q: tensor<1x64x4x512xf16>, %k: tensor<1x64x2x512xf16>, %gc: tensor<1x64x4xf16>) -> tensor<1x64x4x512xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' stages 53248 bytes of workgroup memory, the device has 16384}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x4xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x512xf16>, tensor<1x64x2x512xf16>, tensor<1x64x2x512xf16> -> tensor<1x64x4x512xf16>
  return %o : tensor<1x64x4x512xf16>
}
}

// -----

// CPU: the one-subgroup-per-token selection is Vulkan's.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x1x16xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{is invalid: 'subgroup_select' applies to Vulkan targets only}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 8, subgroup_select = 1>}
      : tensor<1x64x2x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: without g_cmp there is no selection to run on subgroups.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x50x4x32xf32>, %k: tensor<1x50x2x32xf32>, %gslc: tensor<1x50x4xf32>, %bi: tensor<1x50x2x3xi32>) -> tensor<1x50x4x32xf32> {
  // expected-error @+1 {{is invalid: 'subgroup_select' runs the compression branch's selection, which needs 'g_cmp'}}
  %o = ejk.native_sparse_attention %q, %k, %k g_slc(%gslc : tensor<1x50x4xf32>) block_indices(%bi : tensor<1x50x2x3xi32>) {block_size = 16 : i64, block_counts = 3 : i64, config = #ejk.config<block_t = 8, subgroup_select = 1>}
      : tensor<1x50x4x32xf32>, tensor<1x50x2x32xf32>, tensor<1x50x2x32xf32> -> tensor<1x50x4x32xf32>
  return %o : tensor<1x50x4x32xf32>
}
}

// -----

// Vulkan: the lanes share blocks through subgroup shuffles.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x1x16xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{is invalid: 'subgroup_select' shares blocks across lanes with subgroup shuffles ('subgroup_shuffle')}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 8, subgroup_select = 1>}
      : tensor<1x64x2x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: one workgroup a token along x, at most the 65535 Vulkan
// guarantees.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x65536x2x16xf32>, %k: tensor<1x65536x1x16xf32>, %gc: tensor<1x65536x2xf32>) -> tensor<1x65536x2x16xf32> {
  // expected-error @+1 {{is invalid: 'subgroup_select' runs one workgroup a token: 65536 tokens exceed the 65535 workgroups Vulkan guarantees along a dimension}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x65536x2xf32>) {block_size = 64 : i64, config = #ejk.config<block_t = 8, subgroup_select = 1>}
      : tensor<1x65536x2x16xf32>, tensor<1x65536x1x16xf32>, tensor<1x65536x1x16xf32> -> tensor<1x65536x2x16xf32>
  return %o : tensor<1x65536x2x16xf32>
}
}

// -----

// Vulkan: a subgroup_select flag other than 0 or 1.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x1x16xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{is invalid: 'subgroup_select' must be 0 or 1, got 2}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 8, subgroup_select = 2>}
      : tensor<1x64x2x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: the lanes' butterflies need a power-of-two subgroup.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 24 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x1x16xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{is invalid: 'subgroup_select' needs a subgroup size that is a power of two, got 24}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 8, subgroup_select = 1>}
      : tensor<1x64x2x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// The device features the inputs' type needs (without them an f16 kernel
// failed to legalize 'memref.load', a bf16 one named its dispatch).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16"]}} {
func.func @f(%q: tensor<1x64x2x16xf16>, %k: tensor<1x64x1x16xf16>, %gc: tensor<1x64x2xf16>) -> tensor<1x64x2x16xf16> {
  // expected-error @+1 {{is invalid: f16 and bf16 buffers need the device feature 'storage16'}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32>}
      : tensor<1x64x2x16xf16>, tensor<1x64x1x16xf16>, tensor<1x64x1x16xf16> -> tensor<1x64x2x16xf16>
  return %o : tensor<1x64x2x16xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["int16", "storage16"]}} {
func.func @f(%q: tensor<1x64x2x16xf16>, %k: tensor<1x64x1x16xf16>, %gc: tensor<1x64x2xf16>) -> tensor<1x64x2x16xf16> {
  // expected-error @+1 {{is invalid: f16 buffers need the device feature 'float16'}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32>}
      : tensor<1x64x2x16xf16>, tensor<1x64x1x16xf16>, tensor<1x64x1x16xf16> -> tensor<1x64x2x16xf16>
  return %o : tensor<1x64x2x16xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @f(%q: tensor<1x64x2x16xbf16>, %k: tensor<1x64x1x16xbf16>, %gc: tensor<1x64x2xbf16>) -> tensor<1x64x2x16xbf16> {
  // expected-error @+1 {{is invalid: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x64x2xbf16>) {block_size = 16 : i64, config = #ejk.config<block_t = 32>}
      : tensor<1x64x2x16xbf16>, tensor<1x64x1x16xbf16>, tensor<1x64x1x16xbf16> -> tensor<1x64x2x16xbf16>
  return %o : tensor<1x64x2x16xbf16>
}
}

// -----

// The CPU kernels unroll a token's rows over head_dim: a head_dim of 2^40
// ran the compiler out of memory (LLVM ERROR: out of memory, SIGABRT).
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x1099511627776xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x1099511627776xf32> {
  // expected-error @+1 {{config #ejk.config<block_t = 16> is invalid: working set of a token's rows of 17592186044480 bytes exceeds the 1048576-byte L2 cache}}
  %o = ejk.native_sparse_attention %q, %q, %q g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 16>}
      : tensor<1x64x2x1099511627776xf32>, tensor<1x64x2x1099511627776xf32>, tensor<1x64x2x1099511627776xf32> -> tensor<1x64x2x1099511627776xf32>
  return %o : tensor<1x64x2x1099511627776xf32>
}
}

// -----

// Vulkan: the kernels unroll a token's head_dim accumulators into a
// thread's registers (a head_dim of 2^40 ran the compiler out of memory).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x2048xf32>, %gc: tensor<1x64x2xf32>) -> tensor<1x64x2x2048xf32> {
  // expected-error @+1 {{is invalid: head_dim 2048 is unrolled into each thread's registers: at most 1024 on Vulkan}}
  %o = ejk.native_sparse_attention %q, %q, %q g_cmp(%gc : tensor<1x64x2xf32>) {block_size = 16 : i64, config = #ejk.config<block_t = 32>}
      : tensor<1x64x2x2048xf32>, tensor<1x64x2x2048xf32>, tensor<1x64x2x2048xf32> -> tensor<1x64x2x2048xf32>
  return %o : tensor<1x64x2x2048xf32>
}
}

// -----

// The subgroup selection unrolls each lane's blocks: 16384 blocks over 32
// lanes are 512 a lane.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x16384x1x16xf32>, %gc: tensor<1x16384x1xf32>) -> tensor<1x16384x1x16xf32> {
  // expected-error @+1 {{is invalid: 'subgroup_select' unrolls each lane's 512 blocks and 1 head_dim elements into registers: at most 256 each}}
  %o = ejk.native_sparse_attention %q, %q, %q g_cmp(%gc : tensor<1x16384x1xf32>) {block_size = 1 : i64, config = #ejk.config<block_t = 1, subgroup_select = 1>}
      : tensor<1x16384x1x16xf32>, tensor<1x16384x1x16xf32>, tensor<1x16384x1x16xf32> -> tensor<1x16384x1x16xf32>
  return %o : tensor<1x16384x1x16xf32>
}
}
