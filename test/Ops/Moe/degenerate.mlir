// RUN: ejk-opt %s -split-input-file -ejk-select-configs -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// A grouped matmul over k = 0 accumulating onto existing_out is a copy of
// it: a dispatch that binds only existing_out and the result (lhs and rhs
// have no elements to bind), one element at a time.

// CHECK-LABEL: func.func private @k0_acc_dispatch_0_copy
// CHECK-SAME: (%[[TO:.*]]: memref<20x16xf32>, %[[FROM:.*]]: memref<20x16xf32>)
// CHECK: %[[V:.*]] = memref.load %[[FROM]]
// CHECK: memref.store %[[V]], %[[TO]]
// CHECK-LABEL: func.func @k0_acc
// CHECK: ejk.dispatch @k0_acc_dispatch_0_copy(%arg4, %arg3) : memref<20x16xf32>, memref<20x16xf32>
func.func @k0_acc(%lhs: tensor<20x0xf32>, %rhs: tensor<2x0x16xf32>, %sizes: tensor<2xi32>, %acc: tensor<20x16xf32>) -> tensor<20x16xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes existing_out(%acc : tensor<20x16xf32>) : tensor<20x0xf32>, tensor<2x0x16xf32>, tensor<2xi32> -> tensor<20x16xf32>
  return %out : tensor<20x16xf32>
}

// -----

// Without existing_out, no groups give 0: a fill.

// CHECK-LABEL: func.func @no_groups
// CHECK: ejk.dispatch @no_groups_dispatch_0_fill
func.func @no_groups(%lhs: tensor<20x8xf32>, %rhs: tensor<0x8x16xf32>, %sizes: tensor<0xi32>) -> tensor<20x16xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<20x8xf32>, tensor<0x8x16xf32>, tensor<0xi32> -> tensor<20x16xf32>
  return %out : tensor<20x16xf32>
}
