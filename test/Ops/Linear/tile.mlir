// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// gla, f32, GQA (4 query heads over 2 key/value heads), head_dim_k 32,
// head_dim_v 48 in blocks of block_v = 16 (two 8-lane vectors), chunks of
// 32 steps, both states.

// CHECK-LABEL: func.func private @gla_dispatch_0
// FLOPs: 2 x 100 x 4 x (4 x 32 x 48 + (32 + 1) x (32 + 48)).
// CHECK-SAME: ejk.flops = 7027200 : i64
// Workgroups: head_dim_v blocks x heads x batch.
// CHECK-SAME: ejk.grid = array<i64: 3, 4, 2>
// The key/value head of a query head.
// CHECK: %[[HEAD:.*]] = ejk.workgroup_id 1
// CHECK: arith.divsi %[[HEAD]], %c2 : index
// The state tile (head_dim_k x block_v) and the chunk's scratch.
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32x16xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<33x32xf32>
// The initial state, then the chunk loop: ceil(100 / 32) chunks.
// CHECK: vector.load %arg4[{{.*}}] : memref<2x4x32x48xf32>, vector<8xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// The chunk decay exp(B_last), then the strongest decay picks the scores:
// factored (k exp(-B), one matmul) within e^-60, exact ratios beyond.
// CHECK: math.exp
// CHECK: vector.reduction <minnumf>, %{{.*}} : vector<8xf32> into f32
// CHECK: %[[FACTOR:.*]] = arith.cmpf oge, %{{.*}}, %{{.*}} : f32
// CHECK: scf.if %[[FACTOR]] {
// CHECK: arith.negf
// CHECK: math.exp
// The factored scores: 4 rows x one vector of steps, no exp in the k loop.
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: math.exp
// CHECK: scf.yield
// Causal mask.
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK: scf.if
// The exact scores: an exp per key dim, row and vector of steps.
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: math.exp
// CHECK: math.exp
// CHECK: math.exp
// CHECK: math.exp
// CHECK: scf.yield
// Outputs, stored per row inside the sequence.
// CHECK: vector.store %{{.*}}, %arg5[{{.*}}] : memref<2x100x4x48xf32>, vector<8xf32>
// The final state.
// CHECK: vector.store %{{.*}}, %arg6[{{.*}}] : memref<2x4x32x48xf32>, vector<8xf32>
func.func @gla(%q: tensor<2x100x4x32xf32>, %k: tensor<2x100x2x32xf32>, %v: tensor<2x100x2x48xf32>, %g: tensor<2x100x4x32xf32>, %s0: tensor<2x4x32x48xf32>) -> (tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>) {
  %o, %s = ejk.gla %q, %k, %v g(%g : tensor<2x100x4x32xf32>) initial_state(%s0 : tensor<2x4x32x48xf32>) {config = #ejk.config<block_v = 16, chunk_size = 32>} : tensor<2x100x4x32xf32>, tensor<2x100x2x32xf32>, tensor<2x100x2x48xf32> -> tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>
  return %o, %s : tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>
}

// -----

// No gate: no exp at all.
// CHECK-LABEL: func.func private @ungated_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 1>
// CHECK-NOT: math.exp
// CHECK: return
func.func @ungated(%q: tensor<1x50x2x16xf32>, %v: tensor<1x50x2x16xf32>) -> tensor<1x50x2x16xf32> {
  %o = ejk.gla %q, %q, %v {config = #ejk.config<block_v = 16, chunk_size = 16>} : tensor<1x50x2x16xf32>, tensor<1x50x2x16xf32>, tensor<1x50x2x16xf32> -> tensor<1x50x2x16xf32>
  return %o : tensor<1x50x2x16xf32>
}

// -----

// Packed sequences, bf16: one workgroup per (head, sequence) and one more
// "sequence" that zeroes the steps of no sequence; each sequence's range
// comes from cu_seqlens, clamped.
// CHECK-LABEL: func.func private @varlen_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 4, 4>
// CHECK: %[[SEQ:.*]] = ejk.workgroup_id 2
// CHECK: %[[FILLER:.*]] = arith.cmpi eq, %[[SEQ]], %c3 : index
// CHECK: scf.if %[[FILLER]] {
// CHECK: memref.load %arg3[%c0] : memref<4xi32>
// A sequence edge is the running maximum of the clamped entries, so the
// sequences never share a step (Linear/Sequences.h):
// CHECK: scf.for %[[J:.*]] = %c0 to %c4 step %c1 iter_args(%[[EDGE:.*]] = %c0) -> (index) {
// CHECK: memref.load %arg3[%[[J]]] : memref<4xi32>
// CHECK: arith.maxsi %[[EDGE]], %{{.*}} : index
// CHECK: scf.if
// CHECK: %[[N:.*]] = arith.addi %[[SEQ]], %c1 : index
// CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 iter_args(%[[START:.*]] = %c0) -> (index) {
// CHECK: memref.load %arg3[%[[I]]] : memref<4xi32>
// CHECK: arith.maxsi %[[START]], %{{.*}} : index
// CHECK: arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
func.func @varlen(%q: tensor<1x100x4x32xbf16>, %k: tensor<1x100x4x32xbf16>, %v: tensor<1x100x4x32xbf16>, %cu: tensor<4xi32>) -> tensor<1x100x4x32xbf16> {
  %o = ejk.gla %q, %k, %v cu_seqlens(%cu : tensor<4xi32>) {reverse, config = #ejk.config<block_v = 32, chunk_size = 16>} : tensor<1x100x4x32xbf16>, tensor<1x100x4x32xbf16>, tensor<1x100x4x32xbf16> -> tensor<1x100x4x32xbf16>
  return %o : tensor<1x100x4x32xbf16>
}
