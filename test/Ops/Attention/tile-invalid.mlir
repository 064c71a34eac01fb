// RUN: split-file %s %t
// RUN: not ejk-opt %t/no-target.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-TARGET
// RUN: not ejk-opt %t/no-config.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-CONFIG
// RUN: not ejk-opt %t/bad-config.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-BAD
// RUN: not ejk-opt %t/not-dispatch-form.mlir -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-FORM
// RUN: not ejk-opt %t/bad-splits.mlir -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CHECK-SPLITS

// CHECK-TARGET: error: no 'ejk.target' attribute on the module; run ejk-select-configs first
// CHECK-CONFIG: error: 'ejk.flash_attention' op has no #ejk.config; run ejk-select-configs first
// CHECK-BAD: error: 'ejk.flash_attention' op config #ejk.config<block_k = 12, block_q = 4> is invalid: 'block_k' (12) must be a multiple of the 8 f32 lanes of a 256-bit vector
// CHECK-FORM: error: 'ejk.flash_attention' op is not in dispatch form; run ejk-form-dispatches first
// CHECK-SPLITS: error: 'ejk.flash_attention' op config #ejk.config<block_k = 8, block_q = 4, key_splits = 2> is invalid: 'key_splits' > 1 needs one row block per head: 16 rows per head exceed 'block_q' (4)

//--- no-target.mlir
func.func @f(%q: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 4, block_k = 8>} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}
//--- no-config.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}
}
//--- bad-config.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 4, block_k = 12>} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}
}
//--- not-dispatch-form.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func private @f(%q: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> attributes {ejk.dispatch} {
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 4, block_k = 8>} : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}
}
//--- bad-splits.mlir
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
func.func @f(%q: tensor<1x16x2x16xf32>) -> tensor<1x16x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 4, block_k = 8, key_splits = 2>} : tensor<1x16x2x16xf32>, tensor<1x16x2x16xf32>, tensor<1x16x2x16xf32> -> tensor<1x16x2x16xf32>
  return %o : tensor<1x16x2x16xf32>
}
}
