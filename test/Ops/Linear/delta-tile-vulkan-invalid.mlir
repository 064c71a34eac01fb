// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the Vulkan config rules of ejk.delta_attention
// (lib/Ops/Linear/Vulkan/DeltaRules.cpp, with gla's layout rules) give
// for a config, as ejk-tile-dispatches reports it.

// No config: ejk-select-configs did not run.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{'ejk.delta_attention' op has no #ejk.config; run ejk-select-configs first}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{config #ejk.config<chunk_size = 64> is invalid: config needs 'chunk_size' and 'block_v'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<chunk_size = 64>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'chunk_size' (512) must be in [1, 256]}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 512>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'block_v' (2048) must be in [1, 1024] (the device's invocations per workgroup)}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 2048, chunk_size = 16>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x1056xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: head_dim_k (1056) over the 32 lanes of a column leaves 33 state entries per thread (at most 32)}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 1, chunk_size = 1>} : tensor<1x64x2x1056xf32>, tensor<1x64x2x1056xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'block_v' (64) columns of 32 threads exceed 1024 invocations per workgroup}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 64, chunk_size = 16>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: 'block_v' (1) columns of 16 threads must fill whole subgroups of 32}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 1, chunk_size = 16>} : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: the kernel sums q . S over the 32 lanes of a column with subgroup shuffles, which the target lacks ('subgroup_shuffle')}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 16>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

// gla's layout rule: q, k (256 x 32 each) and v, o (256 x 32 each).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: stages 131072 bytes of shared memory per chunk, the device has 32768}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 256>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

// gla's stage fits exactly (4 x 64 x (2 x 32 + 2 x 32) = 32768 bytes);
// the rates and the per-head decays (64 each) do not.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %beta: tensor<1x64x2xf32>) -> tensor<1x64x2x32xf32> {
  // expected-error @+1 {{is invalid: stages 33280 bytes of shared memory per chunk, the device has 32768}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64>} : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xbf16>, %v: tensor<1x64x2x32xbf16>, %beta: tensor<1x64x2xbf16>) -> tensor<1x64x2x32xbf16> {
  // expected-error @+1 {{is invalid: f16 and bf16 buffers need the device feature 'storage16'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xbf16>) {config = #ejk.config<block_v = 32, chunk_size = 16>} : tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2xbf16> -> tensor<1x64x2x32xbf16>
  return %o : tensor<1x64x2x32xbf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xf16>, %v: tensor<1x64x2x32xf16>, %beta: tensor<1x64x2xf16>) -> tensor<1x64x2x32xf16> {
  // expected-error @+1 {{is invalid: f16 buffers need the device feature 'float16'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 16>} : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2xf16> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}
}

// -----

// bf16 with 16-bit storage but without 16-bit integers (bf16 is read and
// written as i16 bit patterns): the op's own error, not the dispatch's.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x32xbf16>, %v: tensor<1x64x2x32xbf16>, %beta: tensor<1x64x2xbf16>) -> tensor<1x64x2x32xbf16> {
  // expected-error @+1 {{is invalid: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xbf16>) {config = #ejk.config<block_v = 32, chunk_size = 16>} : tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2xbf16> -> tensor<1x64x2x32xbf16>
  return %o : tensor<1x64x2x32xbf16>
}
}
