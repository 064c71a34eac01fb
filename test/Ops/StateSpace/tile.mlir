// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=512 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// selective_scan, f16, 96 channels in blocks of block_d = 32 (two vectors of
// 16 lanes), chunks of chunk_l = 16 steps, d_state 16 in registers.

// CHECK-LABEL: func.func private @scan_dispatch_0
// CHECK-SAME: ejk.flops = 737280 : i64
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 1>
// Scratch sized by the config: A^T and the state (d_state x block_d), then
// dt, dt * u and y (chunk_l x block_d).
// CHECK-COUNT-5: memref.alloca() {alignment = 64 : i64} : memref<16x32xf32>
// A^T is scaled by log2(e) once.
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// The chunk loop, then the staged softplus'd step sizes, widened from f16.
// CHECK: scf.for %[[C0:.*]] = %c0 to %c40 step %c16
// CHECK: arith.extf %{{.*}} : vector<16xf16> to vector<16xf32>
// CHECK: math.log1p
// The recurrence: 16 state vectors carried across the chunk's steps, one
// exp2 (roundeven + polynomial + exponent bits) per element.
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-16: math.roundeven
// CHECK-NOT: math.exp
// CHECK: scf.yield
// The gate and the f16 output.
// CHECK: math.exp
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xf16>
// The final state, transposed back.
// CHECK: memref.store %{{.*}}, %arg8[%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x96x16xf32>
// Nothing the size of [B, L, D, N] exists.
// CHECK-NOT: memref<2x40x96x16
// CHECK-LABEL: func.func @scan
// CHECK-NEXT: ejk.dispatch @scan_dispatch_0(

func.func @scan(%u: tensor<2x40x96xf16>, %delta: tensor<2x40x96xf16>, %A: tensor<96x16xf32>, %B: tensor<2x40x2x16xf16>, %C: tensor<2x40x2x16xf16>, %D: tensor<96xf32>, %z: tensor<2x40x96xf16>) -> (tensor<2x40x96xf16>, tensor<2x96x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<96xf32>) z(%z : tensor<2x40x96xf16>) {delta_softplus, config = #ejk.config<block_d = 32, chunk_l = 16>}
      : tensor<2x40x96xf16>, tensor<2x40x96xf16>, tensor<96x16xf32>, tensor<2x40x2x16xf16>, tensor<2x40x2x16xf16> -> tensor<2x40x96xf16>, tensor<2x96x16xf32>
  return %y, %h : tensor<2x40x96xf16>, tensor<2x96x16xf32>
}

// -----

// ssd, bf16, 4 heads in 2 groups, head_dim 64 split in block_p = 32
// columns, d_state 32 in tiles of block_n = 16, chunks of 48 steps from the
// config (the model's chunk_size attribute, 256, does not bind the kernel),
// 100 steps = 3 chunks.

// The scores pre-pass: grid [3 chunks, 2 groups, 1 batch], B^T staged,
// C B^T by 4 rows x 3 vectors of 16 steps over d_state.
// CHECK-LABEL: func.func private @ssd_dispatch_0_scores
// CHECK-SAME: memref<1x2x3x48x48xf32>
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 1>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32x48xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)

// The scan: grid [2 column blocks, 4 heads, 1 batch].
// CHECK-LABEL: func.func private @ssd_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 4, 1>
// State^T (d_state x block_p), X and weighted X (chunk x block_p), the
// decay-weighted scores (chunk x padded chunk).
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32x32xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<48x32xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<48x32xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<48x48xf32>
// The chunks in order; dt gathered 16 steps at a time and softplus'd as a
// vector, then its cumulative sum.
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c16
// CHECK: vector.from_elements
// CHECK: math.log1p
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c1 iter_args(%{{.*}}) -> (f32)
// Y: 4 rows x 2 vectors; C St over d_state, then M X up to the block's end.
// CHECK: scf.for %{{.*}} = %c0 to %c48 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.if
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// The state update by tiles of block_n = 16 rows.
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c4
// CHECK-LABEL: func.func @ssd
// CHECK: %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x48x48xf32>
// CHECK: ejk.dispatch @ssd_dispatch_0_scores(%arg3, %arg4, %[[S]])
// CHECK: ejk.dispatch @ssd_dispatch_0(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %[[S]])
// CHECK: memref.dealloc %[[S]]

func.func @ssd(%x: tensor<1x100x4x64xbf16>, %dt: tensor<1x100x4xbf16>, %A: tensor<4xf32>, %B: tensor<1x100x2x32xbf16>, %C: tensor<1x100x2x32xbf16>, %s0: tensor<1x4x64x32xf32>) -> (tensor<1x100x4x64xbf16>, tensor<1x4x64x32xf32>) {
  %y, %s = ejk.ssd %x, %dt, %A, %B, %C initial_state(%s0 : tensor<1x4x64x32xf32>) {chunk_size = 256 : i64, dt_softplus, config = #ejk.config<block_n = 16, block_p = 32, chunk_size = 48>}
      : tensor<1x100x4x64xbf16>, tensor<1x100x4xbf16>, tensor<4xf32>, tensor<1x100x2x32xbf16>, tensor<1x100x2x32xbf16> -> tensor<1x100x4x64xbf16>, tensor<1x4x64x32xf32>
  return %y, %s : tensor<1x100x4x64xbf16>, tensor<1x4x64x32xf32>
}
