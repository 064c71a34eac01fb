// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan subgroup-size=32 vulkan-features=subgroup_basic,float16,int16,storage16" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// One thread per hidden column (block_d = 64 threads, the last block
// partial); the sum runs only for a non-empty sequence (scf-to-spirv leaves
// the result of a loop that never runs undefined) and masks the rows of a
// step past the sequence's end.

// CHECK-LABEL: func.func private @packed_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 2, 5, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
// CHECK: gpu.thread_id x
// CHECK: arith.cmpi slt, %{{.*}}, %c100
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<6xi32>
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi sgt
// CHECK: scf.if %[[NONEMPTY]] -> (f32)
// CHECK: scf.for {{.*}} step %c4 iter_args
// CHECK-COUNT-4: memref.load %{{.*}} : memref<90x100xbf16>
// CHECK: } else {
// CHECK: memref.store %{{.*}} : memref<5x100xbf16>
func.func @packed(%x: tensor<90x100xbf16>, %cu: tensor<6xi32>) -> tensor<5x100xbf16> {
  %y = ejk.mean_pooling %x cu_seqlens(%cu : tensor<6xi32>) {config = #ejk.config<block_d = 64, block_s = 4>} : tensor<90x100xbf16> -> tensor<5x100xbf16>
  return %y : tensor<5x100xbf16>
}

// -----

// The heuristic: whole subgroups covering hidden (96 -> 96 threads), 16 rows
// per workgroup of the backward.

// CHECK-LABEL: func.func private @grad_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 7, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 96, 1, 1>
// CHECK: memref.store %{{.*}} : memref<2x50x96xf32>
func.func @grad(%dy: tensor<2x96xf32>) -> tensor<2x50x96xf32> {
  %dx = ejk.mean_pooling_grad %dy : tensor<2x96xf32> -> tensor<2x50x96xf32>
  return %dx : tensor<2x50x96xf32>
}
