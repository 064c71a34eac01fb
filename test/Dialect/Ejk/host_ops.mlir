// RUN: ejk-opt %s -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func private @kernel
// CHECK: %[[X:.*]] = ejk.workgroup_id 0
// CHECK: %[[Z:.*]] = ejk.workgroup_id 2
func.func private @kernel(%a: memref<4xf32>, %b: memref<4xf32>) attributes {ejk.dispatch} {
  %x = ejk.workgroup_id 0
  %z = ejk.workgroup_id 2
  return
}
// CHECK-LABEL: func.func @entry
// CHECK: ejk.dispatch @kernel(%{{.*}}, %{{.*}}) : memref<4xf32>, memref<4xf32>
func.func @entry(%a: memref<4xf32>, %b: memref<4xf32>) {
  ejk.dispatch @kernel(%a, %b) : memref<4xf32>, memref<4xf32>
  return
}
