// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// ejk.flash_attention's device features on Vulkan (Rules.cpp, through
// Common/VulkanFeatureChecks.h as block-sparse attention's): bf16 inputs are
// read as 16-bit integers and need 'int16'. Without it the dispatch was
// refused by ejk-prepare-vulkan-kernels in its own name ('fa_dispatch_0
// argument 0 is a bf16 buffer ...'), not the op's.

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @fa(%q: tensor<1x64x2x64xbf16>) -> tensor<1x64x2x64xbf16> {
  // expected-error @+1 {{'ejk.flash_attention' op config #ejk.config<block_k = 32, block_q = 32, num_subgroups = 4> is invalid: bf16 inputs, read as 16-bit integers, need the device features 'storage16' and 'int16'}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 32, block_k = 32, num_subgroups = 4>} : tensor<1x64x2x64xbf16>, tensor<1x64x2x64xbf16>, tensor<1x64x2x64xbf16> -> tensor<1x64x2x64xbf16>
  return %o : tensor<1x64x2x64xbf16>
}
}

// -----

// f16 without 'float16'.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["storage16", "subgroup_shuffle"]}} {
func.func @fa(%q: tensor<1x64x2x64xf16>) -> tensor<1x64x2x64xf16> {
  // expected-error @+1 {{'ejk.flash_attention' op config #ejk.config<block_k = 32, block_q = 32, num_subgroups = 4> is invalid: f16 inputs need the device features 'float16' and 'storage16'}}
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 32, block_k = 32, num_subgroups = 4>} : tensor<1x64x2x64xf16>, tensor<1x64x2x64xf16>, tensor<1x64x2x64xf16> -> tensor<1x64x2x64xf16>
  return %o : tensor<1x64x2x64xf16>
}
}
