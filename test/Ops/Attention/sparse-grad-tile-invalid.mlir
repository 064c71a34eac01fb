// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the config rules of ejk.block_sparse_attention_grad give
// (lib/Ops/Attention/Cpu/BlockSparseGrad.cpp, Vulkan/BlockSparseGrad.cpp, and
// flash_attention_grad's rules they extend), as ejk-tile-dispatches reports
// it.

// CPU: flash_attention_grad's rules first (whole vectors of keys).
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 12, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// CPU: a dK/dV query block in one mask row.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'block_q' (32) must divide 'q_block_size' (16): a query block reads one block-mask row}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 32, block_k = 16, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// CPU: a dK/dV key block in one mask column.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'block_k' (32) must divide 'kv_block_size' (16): a key block is live or dead as a whole}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 32, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// CPU: the dQ pass's query blocks too.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'dq_block_q' (12) must divide 'q_block_size' (16): a query block reads one block-mask row}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 12, dq_block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// CPU: and its key blocks (kv_block_size 24 takes 8, not 16).
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x3xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'dq_block_k' (16) must divide 'kv_block_size' (24): a key block is live or dead as a whole}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 24 : i64, config = #ejk.config<block_q = 16, block_k = 8, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x3xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// CPU: with fuse_dq the dK/dV blocks are checked, here the key block.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'block_k' (32) must divide 'kv_block_size' (16): a key block is live or dead as a whole}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 32, fuse_dq = 1>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: no fused dQ.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'fuse_dq' has no Vulkan kernel (a workgroup per KV head is too few for a GPU): give 'dq_block_q' and 'dq_block_k' instead}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, fuse_dq = 1>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: bf16 is read as 16-bit integers.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xbf16>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>) {
  // expected-error @+1 {{bf16 inputs, read as 16-bit integers, need the device feature 'int16'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>
  return %dq, %dk, %dv : tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>, tensor<1x64x2x16xbf16>
}
}

// -----

// Vulkan: f16 needs 16-bit storage.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf16>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>) {
  // expected-error @+1 {{f16/bf16 inputs need the device feature 'storage16'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>
  return %dq, %dk, %dv : tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>, tensor<1x64x2x16xf16>
}
}

// -----

// Vulkan: a dK/dV key block in one mask column.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'block_k' (32) must divide 'kv_block_size' (16): a key block is live or dead as a whole}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 32, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: a dQ query block in one mask row.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x4x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{'dq_block_q' (32) must divide 'q_block_size' (16): a query block reads one block-mask row}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 16 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 32, dq_block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x4x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}

// -----

// Vulkan: the portable layout's shared memory.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 4096 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x64x2x16xf32>, %lse: tensor<1x2x64xf32>, %bm: tensor<1x1x1x4xi1>) -> (tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>) {
  // expected-error @+1 {{the dK/dV pass stages 17920 bytes of shared memory (64 rows of Q and dO, P and dS), the device has 4096}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %q, %q, %q, %q, %lse, %bm {q_block_size = 64 : i64, kv_block_size = 16 : i64, config = #ejk.config<block_q = 64, block_k = 16, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x2x64xf32>, tensor<1x1x1x4xi1> -> tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
  return %dq, %dk, %dv : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>
}
}
