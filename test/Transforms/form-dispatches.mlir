// RUN: ejk-opt %s -split-input-file -ejk-form-dispatches | FileCheck %s

// One op: inputs then outputs as buffers, the op outlined into a dispatch.
// CHECK-LABEL: func.func private @single_dispatch_0
// CHECK-SAME: (%[[Q:.*]]: memref<1x16x2x32xf32>, %[[K:.*]]: memref<1x24x2x32xf32>, %[[V:.*]]: memref<1x24x2x32xf32>, %[[O:.*]]: memref<1x16x2x32xf32>, %[[L:.*]]: memref<1x2x16xf32>)
// CHECK-SAME: attributes {ejk.dispatch}
// CHECK: %[[QT:.*]] = bufferization.to_tensor %[[Q]] restrict
// CHECK: %[[OUT:.*]], %[[LSE:.*]] = ejk.flash_attention %[[QT]], %{{.*}}, %{{.*}} {causal}
// CHECK: bufferization.materialize_in_destination %[[OUT]] in restrict writable %[[O]]
// CHECK: bufferization.materialize_in_destination %[[LSE]] in restrict writable %[[L]]
// CHECK-LABEL: func.func @single
// CHECK-SAME: (%[[Q2:.*]]: memref<1x16x2x32xf32>, %[[K2:.*]]: memref<1x24x2x32xf32>, %[[V2:.*]]: memref<1x24x2x32xf32>, %[[O2:.*]]: memref<1x16x2x32xf32>, %[[L2:.*]]: memref<1x2x16xf32>)
// CHECK-SAME: attributes {ejk.entry, ejk.num_inputs = 3 : i64}
// CHECK-NEXT: ejk.dispatch @single_dispatch_0(%[[Q2]], %[[K2]], %[[V2]], %[[O2]], %[[L2]])
// CHECK-NEXT: return
func.func @single(%q: tensor<1x16x2x32xf32>, %k: tensor<1x24x2x32xf32>, %v: tensor<1x24x2x32xf32>) -> (tensor<1x16x2x32xf32>, tensor<1x2x16xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v {causal} : tensor<1x16x2x32xf32>, tensor<1x24x2x32xf32>, tensor<1x24x2x32xf32> -> tensor<1x16x2x32xf32>, tensor<1x2x16xf32>
  return %o, %lse : tensor<1x16x2x32xf32>, tensor<1x2x16xf32>
}

// -----

// A value passed between two ops lives in a temporary.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[Q:.*]]: memref<1x8x2x16xf32>, %[[K:.*]]: memref<1x8x2x16xf32>, %[[V:.*]]: memref<1x8x2x16xf32>, %[[OUT:.*]]: memref<1x8x2x16xf32>)
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x8x2x16xf32>
// CHECK: ejk.dispatch @chain_dispatch_0(%[[Q]], %[[K]], %[[V]], %[[T]])
// CHECK: ejk.dispatch @chain_dispatch_1(%[[T]], %[[K]], %[[V]], %[[OUT]])
// CHECK: memref.dealloc %[[T]]
func.func @chain(%q: tensor<1x8x2x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  %a = ejk.flash_attention %q, %k, %v : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  %b = ejk.flash_attention %a, %k, %v : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %b : tensor<1x8x2x16xf32>
}

// -----

// Functions without ejk ops and private functions are left alone.
// CHECK-LABEL: func.func @no_ejk
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func @no_ejk(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
