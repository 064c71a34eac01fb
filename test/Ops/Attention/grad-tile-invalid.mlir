// RUN: split-file %s %t
// RUN: not ejk-opt %t/missing.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-MISSING
// RUN: not ejk-opt %t/lanes.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-LANES
// RUN: not ejk-opt %t/size.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-SIZE
// RUN: not ejk-opt %t/l2.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-L2
// RUN: not ejk-opt %t/vulkan.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-VULKAN
// RUN: not ejk-opt %t/select-vulkan.mlir -ejk-select-configs=target=vulkan 2>&1 | FileCheck %s --check-prefix=CHECK-SELECT-VULKAN

// flash_attention_grad's config errors on the CPU, and the message of a
// target with no backward kernel (Vulkan), from the tiling driver and from
// config selection. The l2 case: 4 * (64 x (64 + 64) Q/dO rows + 2 x 64 x 64
// scores + 64 x (64 + 64) dK/dV) = 98304 bytes.

// CHECK-MISSING: error: 'ejk.flash_attention_grad' op config #ejk.config<block_k = 8, block_q = 4> is invalid: config needs 'block_q', 'block_k', 'dq_block_q' and 'dq_block_k' (or 'fuse_dq = 1' without the last two)
// CHECK-LANES: error: 'ejk.flash_attention_grad' op config #ejk.config<block_k = 8, block_q = 4, dq_block_k = 12, dq_block_q = 4> is invalid: 'dq_block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector
// CHECK-SIZE: error: 'ejk.flash_attention_grad' op config #ejk.config<block_k = 8, block_q = 8192, dq_block_k = 8, dq_block_q = 4> is invalid: 'block_q' (8192) must be in [1, 4096]
// CHECK-L2: error: 'ejk.flash_attention_grad' op config #ejk.config<block_k = 64, block_q = 64, dq_block_k = 8, dq_block_q = 4> is invalid: working set of the dK/dV pass of 98304 bytes exceeds the 65536-byte L2 cache
// CHECK-VULKAN: error: 'ejk.flash_attention_grad' op has no Vulkan kernel in this version of ejk; it can be parsed, verified and evaluated with the reference, not compiled
// CHECK-SELECT-VULKAN: error: 'ejk.flash_attention_grad' op no config tier produced a config: 'ejk.flash_attention_grad' has no Vulkan kernel in this version of ejk

//--- missing.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 4, block_k = 8>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}
//--- lanes.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 4, block_k = 8, dq_block_q = 4, dq_block_k = 12>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}
//--- size.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 8192, block_k = 8, dq_block_q = 4, dq_block_k = 8>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}
//--- l2.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 65536 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x8x2x64xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 64, block_k = 64, dq_block_q = 4, dq_block_k = 8>}
      : tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>
  return %dq, %dk, %dv : tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>, tensor<1x8x2x64xf32>
}
}
//--- vulkan.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse {config = #ejk.config<block_q = 4, block_k = 8, dq_block_q = 4, dq_block_k = 8>}
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
}
//--- select-vulkan.mlir
func.func @f(%q: tensor<1x8x2x16xf32>, %lse: tensor<1x2x8xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %q, %q, %q, %q, %lse
      : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x2x8xf32>
      -> tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
  return %dq, %dk, %dv : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}
