// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// The selection with one subgroup per token (`subgroup_select = 1`,
// LaneSelect.cpp): one 32-lane workgroup per (token, KV head, batch), no
// workgroup memory. Each lane holds blocks lane and lane + 32 (50 blocks);
// head_dim 40 is walked once for both of them (one query load, two kc
// rows, the last block's row for lanes past it). The row max is a subgroup
// max; the row sum walks the completed blocks in order, each block's score
// shuffled from its lane (slot c / 32 of lane c % 32). Top-k: per round a
// subgroup arg-max of (key, block) pairs, stored by lane 0.

// CHECK-LABEL: func.func private @lanes_dispatch_0_select(
// CHECK-SAME: ejk.grid = array<i64: 200, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 0 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 32, 1, 1>
// CHECK-NOT: memref.alloc
// CHECK: %[[LANE:.*]] = gpu.thread_id x
// CHECK: %[[SECOND:.*]] = arith.addi %[[LANE]], %c32 : index
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) {
// CHECK: %[[ROW0:.*]] = arith.minsi %[[LANE]], %c49 : index
// CHECK: %[[ROW1:.*]] = arith.minsi %[[SECOND]], %c49 : index
// CHECK: scf.for %[[D:.*]] = %c0 to %c40 step %c1 iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}) -> (f32, f32) {
// CHECK: %[[Q:.*]] = arith.extf
// CHECK: %[[K0:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}, %[[ROW0]], %[[D]]]
// CHECK: math.fma %[[Q]], %[[K0]], %[[A0]] : f32
// CHECK: %[[K1:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}, %[[ROW1]], %[[D]]]
// CHECK: math.fma %[[Q]], %[[K1]], %[[A1]] : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: scf.for %[[C:.*]] = %c0 to %{{.*}} step %c1 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: arith.divsi %[[C]], %c32 : index
// CHECK: %[[FROM:.*]] = arith.remsi %[[C]], %c32 : index
// CHECK: %[[FROM32:.*]] = arith.index_cast %[[FROM]] : index to i32
// CHECK: gpu.shuffle idx %{{.*}}, %[[FROM32]], %c32_i32 : f32
// CHECK: math.exp
// The compression output: lanes over head_dim (40 = 32 + 8, the second
// column guarded), blocks in order.
// CHECK: gpu.shuffle idx
// CHECK: math.fma
// CHECK: memref.store %{{.*}} : memref<1x200x4x40xf32>
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<1x200x4x40xf32>
// Top-k: 3 rounds.
// CHECK: scf.for %[[I:.*]] = %c0 to %c3 step %c1 iter_args(
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[I]]] : memref<1x200x2x3xi32>
func.func @lanes(%q: tensor<1x200x4x40xf16>, %k: tensor<1x200x2x40xf16>, %v: tensor<1x200x2x40xf16>, %gcmp: tensor<1x200x4xf16>, %gslc: tensor<1x200x4xf16>) -> tensor<1x200x4x40xf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x200x4xf16>) g_slc(%gslc : tensor<1x200x4xf16>) {block_size = 4 : i64, block_counts = 3 : i64, config = #ejk.config<block_t = 64, subgroup_select = 1>}
      : tensor<1x200x4x40xf16>, tensor<1x200x2x40xf16>, tensor<1x200x2x40xf16> -> tensor<1x200x4x40xf16>
  return %o : tensor<1x200x4x40xf16>
}
