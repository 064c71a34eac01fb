// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the config rules of the chunk-parallel delta rule on Vulkan
// (VulkanDeltaChunkLayout::compute, lib/Ops/Linear/Vulkan/DeltaChunk.cpp)
// give for a config, as ejk-tile-dispatches reports it.

// Chunks: multiples of 16 up to 64 (A, chunk x chunk, in shared memory).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'chunk_size' (128) must be a multiple of 16 in [16, 64] with 'chunk_parallel' = 1}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 128, chunk_parallel = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'chunk_size' (24) must be a multiple of 16 in [16, 64] with 'chunk_parallel' = 1}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 24, chunk_parallel = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

// State blocks: whole columns of the 16 x 16 thread grid.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'block_v' (24) must be a positive multiple of 16 with 'chunk_parallel' = 1}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 24, chunk_size = 32, chunk_parallel = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

// head_dim_k 160 (10 rows a thread) x block_v 128 (8 columns): 80 state
// entries a thread.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x160xf32>, %v: tensor<1x64x2x128xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x128xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel delta rule would keep 80 state entries per thread (at most 64): smaller 'block_v'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 128, chunk_size = 16, chunk_parallel = 1>} : tensor<1x64x2x160xf32>, tensor<1x64x2x160xf32>, tensor<1x64x2x128xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x128xf32>
  return %o : tensor<1x64x2x128xf32>
}
}

// -----

// Chunks of 64 (4 rows a thread) x block_v 272 (17 columns): 68 new values.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %v: tensor<1x64x2x272xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x272xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel delta rule would keep 68 new-value entries per thread (at most 64): smaller 'block_v'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 272, chunk_size = 64, chunk_parallel = 1>} : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x272xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x272xf32>
  return %o : tensor<1x64x2x272xf32>
}
}

// -----

// 256 threads a workgroup.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 128 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel delta rule runs 256 threads per workgroup in whole subgroups; the device allows 128 in subgroups of 32}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, chunk_parallel = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

// 1100 batch rows x 60 chunks: 66000 chunk workgroups along x.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1100x3840x2x16xf32>, %v: tensor<1100x3840x2x16xf32>, %beta: tensor<1100x3840x2xf32>) -> tensor<1100x3840x2x16xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel delta rule launches 66000 chunk workgroups along x, more than 65535}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1100x3840x2xf32>) {config = #ejk.config<block_v = 16, chunk_size = 64, chunk_parallel = 1>} : tensor<1100x3840x2x16xf32>, tensor<1100x3840x2x16xf32>, tensor<1100x3840x2x16xf32>, tensor<1100x3840x2xf32> -> tensor<1100x3840x2x16xf32>
  return %o : tensor<1100x3840x2x16xf32>
}
}

// -----

// Per-key decay, chunks of 64: A (64 x 64), key and B tiles (64 rows of 17
// floats each), 3 x 64 per-step arrays: 4 x 6464 = 25856 bytes.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 16384 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel delta rule's prepare pass stages 25856 bytes of shared memory, the device has 16384}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%q : tensor<1x64x2x32xf32>) {config = #ejk.config<block_v = 16, chunk_size = 64, chunk_parallel = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

// head_dim_k 256, block_v 64: S (256 x 64), the new values (16 x 64), Kd
// tiles of 8 steps, transposed with key rows padded by 4 (256 x 12):
// 4 x 20480 = 81920 bytes.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x256xf32>, %v: tensor<1x64x2x64xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x64xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel delta rule's state pass stages 81920 bytes of shared memory, the device has 32768}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 64, chunk_size = 16, chunk_parallel = 1>} : tensor<1x64x2x256xf32>, tensor<1x64x2x256xf32>, tensor<1x64x2x64xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x64xf32>
  return %o : tensor<1x64x2x64xf32>
}
}

// -----

// The outputs' V block halves down to 16 columns: A (64 x 64), q, k and B
// tiles (64 rows of 17 floats each), state rows (16 x 16), B (64): 4 x 7680
// = 30720 bytes.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 28000 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %v: tensor<1x64x2x16xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel delta rule's outputs pass stages 30720 bytes of shared memory, the device has 28000}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%q : tensor<1x64x2x16xf32>) {config = #ejk.config<block_v = 16, chunk_size = 64, chunk_parallel = 1>} : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// The cooperative forms (1: the outputs on matrices, 2: the state pass;
// DeltaCoopOutputs.cpp, DeltaCoopState.cpp) run chunk-parallel only.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x32xf16>, %v: tensor<1x128x2x32xf16>, %beta: tensor<1x128x2xf16>, %g: tensor<1x128x2xf16>) -> tensor<1x128x2x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs 'chunk_parallel' = 1}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, cooperative = 1>} : tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x32xf16>
  return %o : tensor<1x128x2x32xf16>
}
}

// -----

// The delta rule has cooperative forms 1 and 2 only (gla's config also
// reads 3, for gla's own kernels; before that the config rejected it
// itself, with the same words).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x32xf16>, %v: tensor<1x128x2x32xf16>, %beta: tensor<1x128x2xf16>, %g: tensor<1x128x2xf16>) -> tensor<1x128x2x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' (3) must be 0, 1 or 2}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x32xf16>
  return %o : tensor<1x128x2x32xf16>
}
}

// -----

// f32 inputs keep the SIMT kernel's precision.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x32xf32>, %v: tensor<1x128x2x32xf32>, %beta: tensor<1x128x2xf32>, %g: tensor<1x128x2xf32>) -> tensor<1x128x2x32xf32> {
  // expected-error @+1 {{is invalid: 'cooperative' takes f16 or bf16 inputs (f32 runs the SIMT kernel)}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 1>} : tensor<1x128x2x32xf32>, tensor<1x128x2x32xf32>, tensor<1x128x2x32xf32>, tensor<1x128x2xf32> -> tensor<1x128x2x32xf32>
  return %o : tensor<1x128x2x32xf32>
}
}

// -----

// A device without cooperative matrices.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x32xf16>, %v: tensor<1x128x2x32xf16>, %beta: tensor<1x128x2xf16>, %g: tensor<1x128x2xf16>) -> tensor<1x128x2x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs a device with 16x16x16 f16 cooperative matrices}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x32xf16>
  return %o : tensor<1x128x2x32xf16>
}
}

// -----

// Per-key decays (KDA) stay on SIMT.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x32xf16>, %v: tensor<1x128x2x32xf16>, %beta: tensor<1x128x2xf16>, %g: tensor<1x128x2x32xf16>) -> tensor<1x128x2x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' takes per-head or no decay: per-key decays (KDA) run the SIMT kernel}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2x32xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 1>} : tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x32xf16>
  return %o : tensor<1x128x2x32xf16>
}
}

// -----

// The cooperative outputs at chunks of 32 and a V block of 16 stage
// 14208 bytes (the SIMT outputs 9344, which fit).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 12288 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x32xf16>, %v: tensor<1x128x2x16xf16>, %beta: tensor<1x128x2xf16>, %g: tensor<1x128x2xf16>) -> tensor<1x128x2x16xf16> {
  // expected-error @+1 {{is invalid: the cooperative delta-rule outputs do not fit: 14208 bytes of shared memory (the device has 12288) or 2 matrices per subgroup (at most 12): smaller 'chunk_size'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 16, chunk_size = 32, chunk_parallel = 1, cooperative = 1>} : tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2x16xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x16xf16>
  return %o : tensor<1x128x2x16xf16>
}
}

// -----

// The cooperative state pass at head_dim_k 256, block_v 64: the f16 state
// and new values ((256 + 64) rows of 64 + 8 halves) and 8 subgroups' 16x16
// f32 stages take 46080 + 8192 = 54272 bytes.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x256xf16>, %v: tensor<1x128x2x64xf16>, %beta: tensor<1x128x2xf16>, %g: tensor<1x128x2xf16>) -> tensor<1x128x2x64xf16> {
  // expected-error @+1 {{is invalid: the cooperative delta-rule state pass stages 54272 bytes of shared memory, the device has 49152: smaller 'block_v'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 64, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<1x128x2x256xf16>, tensor<1x128x2x256xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x64xf16>
  return %o : tensor<1x128x2x64xf16>
}
}

// -----

// The cooperative state pass reads whole 16x16 tiles from memory:
// head_dim_k a multiple of 16, block_v a divisor of head_dim_v.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x40xf16>, %v: tensor<1x128x2x32xf16>, %beta: tensor<1x128x2xf16>, %g: tensor<1x128x2xf16>) -> tensor<1x128x2x32xf16> {
  // expected-error @+1 {{is invalid: the cooperative delta-rule state pass ('cooperative' = 2) reads whole 16x16 tiles: head_dim_k (40) a multiple of 16 and 'block_v' (32) a divisor of head_dim_v (32)}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<1x128x2x40xf16>, tensor<1x128x2x40xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x32xf16>
  return %o : tensor<1x128x2x32xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x128x2x32xf16>, %v: tensor<1x128x2x48xf16>, %beta: tensor<1x128x2xf16>, %g: tensor<1x128x2xf16>) -> tensor<1x128x2x48xf16> {
  // expected-error @+1 {{is invalid: the cooperative delta-rule state pass ('cooperative' = 2) reads whole 16x16 tiles: head_dim_k (32) a multiple of 16 and 'block_v' (32) a divisor of head_dim_v (48)}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2x48xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x48xf16>
  return %o : tensor<1x128x2x48xf16>
}
}
