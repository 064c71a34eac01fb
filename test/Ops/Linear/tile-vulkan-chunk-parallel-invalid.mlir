// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches
// Every rejection of a chunk_parallel = 1 config by the Vulkan rules of
// ejk.gla (lib/Ops/Linear/Vulkan/ChunkParallel.cpp, Config.h).

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @value_gate(%q: tensor<1x64x2x32xf32>, %gv: tensor<1x64x2x32xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel kernel has no value gate ('gv'); use 'chunk_parallel' = 0}}
  %o = ejk.recurrent %q, %q, %q gv(%gv : tensor<1x64x2x32xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, chunk_parallel = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @chunk_not_16(%q: tensor<1x64x2x32xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'chunk_size' (24) must be a multiple of 16 in [16, 128] with 'chunk_parallel' = 1}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 32, chunk_size = 24, chunk_parallel = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @block_v(%q: tensor<1x64x2x32xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'block_v' (24) must be a positive multiple of 16 with 'chunk_parallel' = 1}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 24, chunk_size = 32, chunk_parallel = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @head_dim_k(%q: tensor<1x64x1x512xf32>, %v: tensor<1x64x1x16xf32>) -> tensor<1x64x1x16xf32> {
  // expected-error @+1 {{is invalid: head_dim_k (512) exceeds the 256 threads of the chunk-parallel kernel}}
  %o = ejk.gla %q, %q, %v {config = #ejk.config<block_v = 16, chunk_size = 16, chunk_parallel = 1>} : tensor<1x64x1x512xf32>, tensor<1x64x1x512xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x1x16xf32>
  return %o : tensor<1x64x1x16xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @registers(%q: tensor<1x64x1x256xf32>, %v: tensor<1x64x1x128xf32>) -> tensor<1x64x1x128xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel kernel would keep 128 state entries per thread (at most 64): smaller 'chunk_size' or 'block_v'}}
  %o = ejk.gla %q, %q, %v {config = #ejk.config<block_v = 128, chunk_size = 16, chunk_parallel = 1>} : tensor<1x64x1x256xf32>, tensor<1x64x1x256xf32>, tensor<1x64x1x128xf32> -> tensor<1x64x1x128xf32>
  return %o : tensor<1x64x1x128xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @shared_memory(%q: tensor<1x256x1x32xf32>) -> tensor<1x256x1x32xf32> {
  // expected-error @+1 {{is invalid: the chunk-parallel kernel stages 76800 bytes of shared memory, the device has 32768}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 32, chunk_size = 128, chunk_parallel = 1>} : tensor<1x256x1x32xf32>, tensor<1x256x1x32xf32>, tensor<1x256x1x32xf32> -> tensor<1x256x1x32xf32>
  return %o : tensor<1x256x1x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @not_0_or_1(%q: tensor<1x64x2x32xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'chunk_parallel' (2) must be 0 or 1}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 32, chunk_size = 32, chunk_parallel = 2>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

// Cooperative matrices (`cooperative`, CoopOutputs.cpp): the device must have them.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @coop_without_device(%q: tensor<1x64x2x32xf16>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' needs a device with 16x16x16 f16 cooperative matrices}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 32, chunk_size = 32, chunk_parallel = 1, cooperative = 1>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

// f32 inputs keep the SIMT kernel's precision.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @coop_f32(%q: tensor<1x64x2x32xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'cooperative' takes f16 or bf16 inputs (f32 runs the SIMT kernel)}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 32, chunk_size = 32, chunk_parallel = 1, cooperative = 1>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @coop_not_0_to_3(%q: tensor<1x64x2x32xf16>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: 'cooperative' (4) must be 0, 1, 2 or 3}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 32, chunk_size = 32, chunk_parallel = 1, cooperative = 4>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

// The chunk's scores are staged whole (f32 and f16): chunks of at most 64.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @coop_chunk_128(%q: tensor<1x64x2x32xf16>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: 'chunk_size' (128) must be at most 64 with 'cooperative' (the chunk's scores are staged whole)}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 32, chunk_size = 128, chunk_parallel = 1, cooperative = 1>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

// Subgroups of 64 (4 per workgroup): the update's 8 x 8 dS tiles are 16 per subgroup.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 64 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @coop_matrices(%q: tensor<1x64x2x128xf16>) -> tensor<1x64x2x128xf16> {
  // expected-error @+1 {{is invalid: the cooperative chunk-parallel kernel would keep 16 state matrices per subgroup (at most 12): smaller 'chunk_size' or 'block_v'}}
  %o = ejk.gla %q, %q, %q {config = #ejk.config<block_v = 128, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<1x64x2x128xf16>, tensor<1x64x2x128xf16>, tensor<1x64x2x128xf16> -> tensor<1x64x2x128xf16>
  return %o : tensor<1x64x2x128xf16>
}
}
