// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the Vulkan config rules of ejk.flash_attention_grad
// (lib/Ops/Attention/Vulkan/GradRules.cpp) give for a config, as
// ejk-tile-dispatches reports it.

// A missing entry (the reader both targets share).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  // expected-error @+1 {{config needs 'block_q', 'block_k', 'dq_block_q' and 'dq_block_k' (or 'fuse_dq = 1' without the last two)}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 4, block_k = 8>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}

// -----

// fuse_dq is the CPU's: a workgroup per KV head is too few for a GPU.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  // expected-error @+1 {{'fuse_dq' has no Vulkan kernel (a workgroup per KV head is too few for a GPU): give 'dq_block_q' and 'dq_block_k' instead}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 16, block_k = 16, fuse_dq = 1>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}

// -----

// f16 inputs on a device without 16-bit storage.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x16xf16>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>) {
  // expected-error @+1 {{f16/bf16 inputs need the device feature 'storage16'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>
  return %dq, %dk, %dv : tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>, tensor<1x8x2x16xf16>
}
}

// -----

// A block past 1024.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  // expected-error @+1 {{blocks of the dQ pass must be in [1, 1024], got 2048 x 16}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 2048, dq_block_k = 16>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}

// -----

// Shared memory: 64 rows of Q and dO (D = 256), P and dS:
// 4 * (64 * (257 + 257) + 2 * 64 * 17 + 2 * 64) = 140800 bytes.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x256xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>) {
  // expected-error @+1 {{the dK/dV pass stages 140800 bytes of shared memory (64 rows of Q and dO, P and dS), the device has 32768}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 64, block_k = 16, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>
  return %dq, %dk, %dv : tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>, tensor<1x8x2x256xf32>
}
}

// -----

// One query row against 512 keys: every thread count leaves a thread more
// than 32 scores (or row groups that do not divide the block).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  // expected-error @+1 {{no workgroup of 8 to 256 threads runs the dQ pass's blocks 1 x 512 with whole thread shares and at most 128 accumulators and 32 scores per thread; use smaller blocks}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 1, dq_block_k = 512>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}

// -----

// A 'softmax_aux' of no elements (no sinks): a Vulkan buffer cannot be
// empty (it failed to legalize 'gpu.func' in ejk-lower-to-spirv).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>, %sinks: tensor<2x0xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  // expected-error @+1 {{a 'softmax_aux' of no elements has no Vulkan kernel (a Vulkan buffer cannot be empty): leave it out, which means the same}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse softmax_aux(%sinks : tensor<2x0xf32>) {config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}

// -----

// bf16 inputs, read as 16-bit integers, on a device without 'int16' (the
// dispatch 'f_dispatch_0_delta' was refused by its own name).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x16xbf16>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>) {
  // expected-error @+1 {{bf16 inputs, read as 16-bit integers, need the device feature 'int16'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 16, block_k = 16, dq_block_q = 16, dq_block_k = 16>}
      : tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>
  return %dq, %dk, %dv : tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>
}
}
