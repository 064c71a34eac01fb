// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// Dense mean pooling, f16, hidden 40 in blocks of block_d = 16 (two vectors
// of 8 lanes; the last block masked), block_s = 4 rows per step.

// CHECK-LABEL: func.func private @dense_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 1>
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c16
// Four rows per step, unrolled: four masked reads of each of the two vectors.
// CHECK: scf.for
// CHECK-COUNT-8: vector.transfer_read %{{.*}} : memref<2x30x40xf16>, vector<8xf16>
// CHECK: scf.yield
// The rest, one row at a time.
// CHECK: scf.for
// CHECK-COUNT-2: vector.transfer_read
// CHECK: scf.yield
// Times 1 / 30, folded.
// CHECK: arith.mulf
// CHECK-COUNT-2: vector.transfer_write %{{.*}} : vector<8xf16>, memref<2x40xf16>
func.func @dense(%x: tensor<2x30x40xf16>) -> tensor<2x40xf16> {
  %y = ejk.mean_pooling %x {config = #ejk.config<block_d = 16, block_s = 4>} : tensor<2x30x40xf16> -> tensor<2x40xf16>
  return %y : tensor<2x40xf16>
}

// -----

// Packed: each sequence's rows come from cu_seqlens, clamped into the
// packed rows; whole column blocks need no mask.

// CHECK-LABEL: func.func private @packed_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 2, 4, 1>
// CHECK: memref.load %{{.*}} : memref<5xi32>
// CHECK: arith.maxsi
// CHECK: arith.minsi %{{.*}}, %c100
// CHECK: memref.load %{{.*}} : memref<5xi32>
// CHECK: scf.for
// CHECK: vector.load %{{.*}} : memref<100x32xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}} : memref<4x32xf32>, vector<8xf32>
func.func @packed(%x: tensor<100x32xf32>, %cu: tensor<5xi32>) -> tensor<4x32xf32> {
  %y = ejk.mean_pooling %x cu_seqlens(%cu : tensor<5xi32>) {config = #ejk.config<block_d = 16, block_s = 2>} : tensor<100x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The packed backward: blocks of block_s = 16 rows; each row finds its
// sequence with a fixed binary search (log2(4) + 1 = 3 halvings) and is
// scaled by 1 / length or 0.

// CHECK-LABEL: func.func private @grad_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 7, 1>
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: memref.load %{{.*}} : memref<5xi32>
// CHECK: scf.yield
// CHECK: vector.load %{{.*}} : memref<4x32xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}} : memref<100x32xf32>, vector<8xf32>
func.func @grad(%dy: tensor<4x32xf32>, %cu: tensor<5xi32>) -> tensor<100x32xf32> {
  %dx = ejk.mean_pooling_grad %dy cu_seqlens(%cu : tensor<5xi32>) {config = #ejk.config<block_d = 32, block_s = 16>} : tensor<4x32xf32> -> tensor<100x32xf32>
  return %dx : tensor<100x32xf32>
}

// -----

// A mean over no tokens is 0: a fill, no pooling kernel.

// CHECK-LABEL: func.func @no_tokens
// CHECK: ejk.dispatch @no_tokens_dispatch_0_fill
func.func @no_tokens(%x: tensor<3x0x8xf32>) -> tensor<3x8xf32> {
  %y = ejk.mean_pooling %x : tensor<3x0x8xf32> -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}
