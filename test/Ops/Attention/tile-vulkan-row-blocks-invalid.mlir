// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the config rules give for 'row_blocks' (query blocks a
// workgroup runs in turn; lib/Ops/Attention/Vulkan/Rules.cpp,
// Cpu/Rules.cpp, Vulkan/BlockSparse.cpp), as ejk-tile-dispatches reports it.

// At least one query block a workgroup (the attribute's own rule).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_nv_layout", "float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  // expected-error @+1 {{#ejk.config entry 'row_blocks' must be positive, got 0}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, row_blocks = 0>} : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}
}

// -----

// Only the register softmax's kernel takes query blocks in turn.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  // expected-error @+1 {{'row_blocks' > 1 needs cooperative matrices with the register softmax (f16 or bf16 matrices, 'cooperative_matrix_nv_layout', subgroups of 32)}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 64, block_k = 32, num_subgroups = 4, row_blocks = 2>} : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}
}

// -----

// Nor the portable kernel (f32 inputs).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_nv_layout", "float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x256x2x64xf32>) -> tensor<1x256x2x64xf32> {
  // expected-error @+1 {{'row_blocks' > 1 needs cooperative matrices with the register softmax}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 64, block_k = 32, num_subgroups = 4, row_blocks = 2>} : tensor<1x256x2x64xf32>, tensor<1x256x2x64xf32>, tensor<1x256x2x64xf32> -> tensor<1x256x2x64xf32>
  return %o : tensor<1x256x2x64xf32>
}
}

// -----

// The decode kernel (block_q = 1) has its own grid.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_nv_layout", "float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x1x2x128xf16>, %k: tensor<1x256x2x128xf16>) -> tensor<1x1x2x128xf16> {
  // expected-error @+1 {{'row_blocks' does not apply to the decode kernel ('block_q' = 1)}}
  %o = ejk.flash_attention %q, %k, %k {config = #ejk.config<block_q = 1, block_k = 64, row_blocks = 2>} : tensor<1x1x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x1x2x128xf16>
  return %o : tensor<1x1x2x128xf16>
}
}

// -----

// Nor the VK_NV_cooperative_matrix2 kernel.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_nv_layout", "float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  // expected-error @+1 {{'row_blocks' does not apply to the cooperative_matrix2 kernel ('cm2')}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 2, row_blocks = 2>} : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}
}

// -----

// CPU targets run each query block on its own.
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'row_blocks' applies to Vulkan targets only}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 16, block_k = 16, row_blocks = 2>} : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}
}

// -----

// Block-sparse attention keeps one query block a workgroup.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_nv_layout", "float16", "storage16", "subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  // expected-error @+1 {{'row_blocks' applies to dense flash attention only}}
  %o = ejk.block_sparse_attention %q, %q, %q {q_block_size = 128 : i64, kv_block_size = 64 : i64, config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, row_blocks = 2>} : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}
}
