// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the config rules of ejk.block_sparse_attention give
// (lib/Ops/Attention/Cpu/BlockSparse.cpp, Vulkan/BlockSparse.cpp, and the
// alignment rule of LiveBlocks.cpp), as ejk-tile-dispatches reports it.

// CPU: the flash attention rules first (whole vectors of keys).
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 12>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// CPU: num_subgroups is Vulkan's.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'num_subgroups' applies to Vulkan targets only}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, num_subgroups = 2>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// CPU: the working set must fit L2.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x512x2x256xf32>, %k: tensor<1x512x2x256xf32>) -> tensor<1x512x2x256xf32> {
  // expected-error @+1 {{working set of 3145728 bytes exceeds the 1048576-byte L2 cache}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 512 : i64, kv_block_size = 512 : i64, config = #ejk.config<block_q = 512, block_k = 512>}
      : tensor<1x512x2x256xf32>, tensor<1x512x2x256xf32>, tensor<1x512x2x256xf32> -> tensor<1x512x2x256xf32>
  return %o : tensor<1x512x2x256xf32>
}
}

// -----

// CPU: key splits need one row block per head.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'key_splits' > 1 needs one row block per head: 64 rows per head exceed 'block_q' (16)}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, key_splits = 2>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// CPU: grouped rows would mix the block masks of several heads.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x4x4x16xf32>, %k: tensor<1x64x1x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'block_q' (16) must not exceed seq_q (4) with grouped heads: a block-sparse query block holds the rows of one head}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 4 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16>}
      : tensor<1x4x4x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x4x4x16xf32>
  return %o : tensor<1x4x4x16xf32>
}
}

// -----

// CPU: a query block reads one row of the block mask.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'block_q' (16) must divide 'q_block_size' (24): a query block reads one block-mask row}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 24 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// CPU: a key block is live or dead as a whole.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'block_k' (16) must divide 'kv_block_size' (24): a key block is live or dead as a whole}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 24 : i64, config = #ejk.config<block_q = 16, block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: no key splits.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'key_splits' applies to CPU targets only for block-sparse attention}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, key_splits = 2>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: f16 needs the device's f16 features.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf16>, %k: tensor<1x64x2x16xf16>) -> tensor<1x64x2x16xf16> {
  // expected-error @+1 {{f16 inputs need the device features 'float16' and 'storage16'}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16>}
      : tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16> -> tensor<1x64x2x16xf16>
  return %o : tensor<1x64x2x16xf16>
}
}

// -----

// Vulkan: bf16 is read as 16-bit integers (without 'int16' the dispatch was
// refused in its own name, not the op's).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xbf16>, %k: tensor<1x64x2x16xbf16>) -> tensor<1x64x2x16xbf16> {
  // expected-error @+1 {{bf16 inputs, read as 16-bit integers, need the device features 'storage16' and 'int16'}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16>}
      : tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16> -> tensor<1x64x2x16xbf16>
  return %o : tensor<1x64x2x16xbf16>
}
}

// -----

// Vulkan: the portable layout must exist.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{40 subgroups of 32 exceed 1024 invocations per workgroup}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, num_subgroups = 40>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: a query block reads one row of the block mask.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'block_q' (32) must divide 'q_block_size' (16): a query block reads one block-mask row}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 32, block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: a key block is live or dead as a whole.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'block_k' (32) must divide 'kv_block_size' (16): a key block is live or dead as a whole}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 32>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}
