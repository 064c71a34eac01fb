// RUN: split-file %s %t
// RUN: not ejk-opt %t/missing.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-MISSING
// RUN: not ejk-opt %t/lanes.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-LANES
// RUN: not ejk-opt %t/size.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-SIZE
// RUN: not ejk-opt %t/l2.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-L2

// flash_attention_grad's config errors on the CPU (Vulkan's:
// grad-tile-vulkan-invalid.mlir). The l2 case: 4 * (64 x (64 + 64) Q/dO rows + 2 x 64 x 64
// scores + 64 x (64 + 64) dK/dV) = 98304 bytes.

// CHECK-MISSING: error: 'ejk.flash_attention_grad' op config #ejk.config<block_k = 8, block_q = 4> is invalid: config needs 'block_q', 'block_k', 'dq_block_q' and 'dq_block_k' (or 'fuse_dq = 1' without the last two)
// CHECK-LANES: error: 'ejk.flash_attention_grad' op config #ejk.config<block_k = 8, block_q = 4, dq_block_k = 12, dq_block_q = 4> is invalid: 'dq_block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector
// CHECK-SIZE: error: 'ejk.flash_attention_grad' op config #ejk.config<block_k = 8, block_q = 8192, dq_block_k = 8, dq_block_q = 4> is invalid: 'block_q' (8192) must be in [1, 4096]
// CHECK-L2: error: 'ejk.flash_attention_grad' op config #ejk.config<block_k = 64, block_q = 64, dq_block_k = 8, dq_block_q = 4> is invalid: working set of the dK/dV pass of 98304 bytes exceeds the 65536-byte L2 cache

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
