// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches
// Every rejection of an in-order cooperative gla config (chunk_parallel = 0,
// cooperative = 1, or 2: the same rules, conversions inside each subgroup)
// by the Vulkan rules (lib/Ops/Linear/Vulkan/CoopInOrder.cpp).

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @per_step_gate(%q: tensor<1x64x2x32xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 1) takes one constant decay per head or none; per-step gates need 'chunk_parallel' = 1 or 'cooperative' = 0}}
  %o = ejk.gla %q, %q, %q g(%q : tensor<1x64x2x32xf16>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 1>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @no_matrices(%q: tensor<1x64x2x32xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs a device with 16x16x16 f16 cooperative matrices}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 1>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle"]}} {
func.func @bf16_without_bf16_matrices(%q: tensor<1x64x2x32xbf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x32xbf16> {
  // expected-error @+1 {{is invalid: the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 1) multiplies bf16 inputs on bf16 matrices, which the device lacks ('cooperative_matrix_bf16')}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 1>} : tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16> -> tensor<1x64x2x32xbf16>
  return %o : tensor<1x64x2x32xbf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f32_inputs(%q: tensor<1x64x2x32xf32>, %gg: tensor<2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'cooperative' takes f16 or bf16 inputs (f32 runs the SIMT kernel)}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @key_dim_not_16(%q: tensor<1x64x2x24xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x24xf16> {
  // expected-error @+1 {{is invalid: the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 1) stages head_dim_k (24) in whole 16x16 tiles: a multiple of 16}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 16, chunk_size = 32, cooperative = 1>} : tensor<1x64x2x24xf16>, tensor<1x64x2x24xf16>, tensor<1x64x2x24xf16> -> tensor<1x64x2x24xf16>
  return %o : tensor<1x64x2x24xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @chunk_too_long(%q: tensor<1x64x2x32xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: 'chunk_size' (80) must be a multiple of 16 in [16, 64] with the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 1)}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 80, cooperative = 1>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @chunk_not_16(%q: tensor<1x64x2x32xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: 'chunk_size' (24) must be a multiple of 16 in [16, 64] with the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 1)}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 24, cooperative = 1>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @block_v_not_16(%q: tensor<1x64x2x32xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: 'block_v' (24) must be a positive multiple of 16 with the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 1)}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 24, chunk_size = 32, cooperative = 1>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @too_many_matrices(%q: tensor<1x64x2x256xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x256xf16> {
  // expected-error @+1 {{is invalid: the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 1) would keep 19 matrices per subgroup (at most 16): smaller 'block_v'}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 128, chunk_size = 16, cooperative = 1>} : tensor<1x64x2x256xf16>, tensor<1x64x2x256xf16>, tensor<1x64x2x256xf16> -> tensor<1x64x2x256xf16>
  return %o : tensor<1x64x2x256xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @shared_memory(%q: tensor<1x64x2x128xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x128xf16> {
  // expected-error @+1 {{is invalid: the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 1) stages 80896 bytes of shared memory, the device has 49152: smaller 'chunk_size' or 'block_v'}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, cooperative = 1>} : tensor<1x64x2x128xf16>, tensor<1x64x2x128xf16>, tensor<1x64x2x128xf16> -> tensor<1x64x2x128xf16>
  return %o : tensor<1x64x2x128xf16>
}
}

// -----

// Form 2 takes the same rules (and names its form).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @form2_per_step_gate(%q: tensor<1x64x2x32xf16>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 2) takes one constant decay per head or none; per-step gates need 'chunk_parallel' = 1 or 'cooperative' = 0}}
  %o = ejk.gla %q, %q, %q g(%q : tensor<1x64x2x32xf16>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 2>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

// Form 2's f32 stage holds no C x C scores, but C = 64 still exceeds 48 KiB:
// q, k 2 x 64 x 136, v, w v 2 x 64 x 40, S16 128 x 40, A16 64 x 72 halves
// and 16 tiles of 256 floats.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @form2_shared_memory(%q: tensor<1x64x2x128xf16>, %gg: tensor<2xf32>) -> tensor<1x64x2x128xf16> {
  // expected-error @+1 {{is invalid: the in-order cooperative kernel ('chunk_parallel' = 0, 'cooperative' = 2) stages 80896 bytes of shared memory, the device has 49152: smaller 'chunk_size' or 'block_v'}}
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, cooperative = 2>} : tensor<1x64x2x128xf16>, tensor<1x64x2x128xf16>, tensor<1x64x2x128xf16> -> tensor<1x64x2x128xf16>
  return %o : tensor<1x64x2x128xf16>
}
}
