// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches
// Every rejection of a split cooperative gla config (chunk_parallel = 1,
// cooperative = 3: lib/Ops/Linear/Vulkan/CoopSplit.cpp, Rules.cpp).

// 'cooperative' = 3 is the chunk-parallel split form.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_needs_chunk_parallel(%q: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' = 3 needs 'chunk_parallel' = 1}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, cooperative = 3>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// Per-step gates have no constant decay to factor.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_per_step_gates(%q: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %g: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) takes one constant decay per head or none; per-step gates need 'cooperative' = 0, 1 or 2}}
  %o = ejk.gla %q, %q, %v g(%g : tensor<1x256x2x64xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// Reversed (and packed) sequences are not read as batch rows.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_reverse(%q: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) reads batch rows forward only (no cu_seqlens, no reverse)}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {reverse, config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// Packed sequences.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_packed(%q: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %gg: tensor<2xf32>, %cu: tensor<3xi32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) reads batch rows forward only (no cu_seqlens, no reverse)}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) cu_seqlens(%cu : tensor<3xi32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// The words of the state and the outputs are packed through 16-bit integers.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @split_no_int16(%q: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) needs cooperative matrices (bf16 ones for bf16 inputs, 'cooperative_matrix_bf16'), 'int16' and subgroups of 32}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// Each lane of a subgroup of 32 writes one word of a 16x16 tile.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 64 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_subgroup_64(%q: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) needs cooperative matrices (bf16 ones for bf16 inputs, 'cooperative_matrix_bf16'), 'int16' and subgroups of 32}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// Whole chunks only: T = 200 is no multiple of 64.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_partial_chunk(%q: tensor<1x200x2x64xf16>, %v: tensor<1x200x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x200x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) takes 'chunk_size' a multiple of 16 in [16, 64] that divides the sequence (200)}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x200x2x64xf16>, tensor<1x200x2x64xf16>, tensor<1x200x2x64xf16> -> tensor<1x200x2x64xf16>
  return %o : tensor<1x200x2x64xf16>
}
}

// -----

// Chunks of at most 64 steps.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_chunk_128(%q: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) takes 'chunk_size' a multiple of 16 in [16, 64] that divides the sequence (256)}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 128, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// head_dim_k 48: 3 key tiles x 2 V tiles do not deal evenly to 8 subgroups.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_uneven_tiles(%q: tensor<1x256x2x48xf16>, %v: tensor<1x256x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) takes head dims that are multiples of 16, 'block_v' a multiple of 16 that divides head_dim_v with the state's tiles a whole number per subgroup, and an output block whose tiles deal evenly to the subgroups}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x48xf16>, tensor<1x256x2x48xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// V = 48 with chunks of 64: no output block of 16, 32 or 48 columns deals 4 rows evenly.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_no_output_block(%q: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x48xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x48xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) takes head dims that are multiples of 16, 'block_v' a multiple of 16 that divides head_dim_v with the state's tiles a whole number per subgroup, and an output block whose tiles deal evenly to the subgroups}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 16, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x48xf16> -> tensor<1x256x2x48xf16>
  return %o : tensor<1x256x2x48xf16>
}
}

// -----

// K = 256 in V blocks of 128: 16 state tiles and 8 K^T matrices a subgroup.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_too_many_matrices(%q: tensor<1x256x2x256xf16>, %v: tensor<1x256x2x128xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x128xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) would keep 24 matrices per subgroup (at most 16), 4 chunk workgroups (at most 65535) and 262144 state elements (under 2^31)}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 128, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x256xf16>, tensor<1x256x2x256xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}
}

// -----

// The outputs' tables, A, value and tile stages on a device of 16 KiB.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 16384 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_shared_memory(%q: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{is invalid: the split cooperative kernel ('chunk_parallel' = 1, 'cooperative' = 3) stages 34816 bytes of shared memory, the device has 16384}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
}

// -----

// Head dims of 2^32: the state's 2^64 elements overflow int64 (once wrapped
// to 0 in this message).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle", "cooperative_matrix_bf16"]}} {
func.func @split_state_overflow(%q: tensor<1x64x1x4294967296xf16>, %v: tensor<1x64x1x4294967296xf16>, %gg: tensor<1xf32>) -> tensor<1x64x1x4294967296xf16> {
  // expected-error @+1 {{chunk workgroups (at most 65535) and more than 2^63 state elements (under 2^31)}}
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<1xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x64x1x4294967296xf16>, tensor<1x64x1x4294967296xf16>, tensor<1x64x1x4294967296xf16> -> tensor<1x64x1x4294967296xf16>
  return %o : tensor<1x64x1x4294967296xf16>
}
}
