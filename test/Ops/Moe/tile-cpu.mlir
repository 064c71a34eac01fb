// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// grouped_matmul, f16 in, f32 out, group offset and existing_out; 100 rows
// in tiles of block_m = 24, n = 40 in tiles of block_n = 32 (two 16-column
// panels), k = 64 in steps of block_k = 16, AVX2 (8 lanes).

// Grid: 2 n tiles x (ceil(100 / 24) + 6 groups + 1 tail) row tiles.
// CHECK-LABEL: func.func private @gmm_dispatch_0
// CHECK-SAME: ejk.flops = 512000 : i64
// CHECK-SAME: ejk.grid = array<i64: 2, 12, 1>
// CHECK-DAG: %[[N_TILE:.*]] = ejk.workgroup_id 0
// CHECK-DAG: %[[ROW_TILE:.*]] = ejk.workgroup_id 1
// Scratch: C (24 rows, whole 6-row blocks, x 32), the packed rhs panels
// (2 panels of 16 k rows x 16 columns), the staged lhs rows (24 x 16 + 8).
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<24x32xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<2x16x16xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<24x24xf32>
// The tile lookup: the offset, then one pass over the 6 group sizes with
// negative sizes counted as 0 and ends cut at 100 rows; the local group
// is g - offset when 0 <= g - offset < 4.
// CHECK: %[[OFF:.*]] = memref.load %arg3[%c0] : memref<1xi32>
// CHECK: %[[OFFSET:.*]] = arith.index_cast %[[OFF]] : i32 to index
// CHECK: %[[FOUND:.*]]:5 = scf.for %[[G:.*]] = %c0 to %c6 step %c1 iter_args(
// CHECK: memref.load %arg2[%[[G]]] : memref<6xi32>
// CHECK: arith.maxsi %{{.*}}, %c0 : index
// CHECK: arith.minsi %{{.*}}, %c100 : index
// CHECK: arith.subi %[[ROW_TILE]], %{{.*}} : index
// CHECK: arith.subi %[[G]], %[[OFFSET]] : index
// CHECK: arith.cmpi slt, %{{.*}}, %c4 : index
// CHECK: scf.yield
// A tile of a local group multiplies, any other tile with rows copies
// existing_out.
// CHECK: scf.if
// The k steps: pack the panels (widened from f16, masked past n = 40),
// stage the rows, then 6 x 2 register blocks over the packed panel.
// CHECK: scf.for %[[K0:.*]] = %c0 to %c64 step %c16
// CHECK: vector.transfer_read %arg1[{{.*}}], %{{.*}} : memref<4x64x40xf16>, vector<8xf16>
// CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: vector.load %arg0[{{.*}}] : memref<100x64xf16>, vector<8xf16>
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-2: vector.load %{{.*}} : memref<2x16x16xf32>, vector<8xf32>
// CHECK: memref.load %{{.*}} : memref<24x24xf32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-COUNT-2: vector.fma
// CHECK: scf.yield
// C + existing_out into the f32 result.
// CHECK: vector.load %arg4[{{.*}}] : memref<100x40xf32>, vector<8xf32>
// CHECK: arith.addf
// CHECK: vector.store %{{.*}}, %arg5[{{.*}}] : memref<100x40xf32>, vector<8xf32>
// CHECK: } else {
// CHECK: scf.if
// CHECK: vector.load %arg4[{{.*}}] : memref<100x40xf32>, vector<8xf32>
// CHECK-NEXT: vector.store %{{.*}}, %arg5[{{.*}}] : memref<100x40xf32>, vector<8xf32>
// No row is ever read or written past the tile's end.
// CHECK-LABEL: func.func @gmm
// CHECK-NEXT: ejk.dispatch @gmm_dispatch_0(

func.func @gmm(%lhs: tensor<100x64xf16>, %rhs: tensor<4x64x40xf16>, %sizes: tensor<6xi32>, %offset: tensor<1xi32>, %acc: tensor<100x40xf32>) -> tensor<100x40xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%offset : tensor<1xi32>) existing_out(%acc : tensor<100x40xf32>) {config = #ejk.config<block_m = 24, block_n = 32, block_k = 16>}
      : tensor<100x64xf16>, tensor<4x64x40xf16>, tensor<6xi32> -> tensor<100x40xf32>
  return %out : tensor<100x40xf32>
}

// -----

// grouped_matmul with transpose_rhs: the pack reads 8 x 8 blocks of rhs
// along k (columns past n = 40 repeat column 39), transposes them with
// three stages of shuffles and stores them along the 16-wide panels.

// CHECK-LABEL: func.func private @gmmt_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 3, 9, 1>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<12x16xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<1x32x16xf32>
// Without an offset the local group is g itself: no offset load.
// CHECK-NOT: memref<1xi32>
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK: arith.minsi %{{.*}}, %c39 : index
// CHECK-COUNT-8: vector.load %arg1[{{.*}}] : memref<2x40x32xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 8, 2, 10, 4, 12, 6, 14]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 8, 9, 4, 5, 12, 13]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11]
// CHECK-COUNT-8: vector.store %{{.*}}, %{{.*}} : memref<1x32x16xf32>, vector<8xf32>
// CHECK: vector.fma
// Rows of no group are 0.
// CHECK: } else {
// CHECK: vector.store %cst, %arg3[{{.*}}] : memref<64x40xf32>, vector<8xf32>

func.func @gmmt(%lhs: tensor<64x32xf32>, %rhs: tensor<2x40x32xf32>, %sizes: tensor<2xi32>) -> tensor<64x40xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs, config = #ejk.config<block_m = 12, block_n = 16, block_k = 32>}
      : tensor<64x32xf32>, tensor<2x40x32xf32>, tensor<2xi32> -> tensor<64x40xf32>
  return %out : tensor<64x40xf32>
}

// -----

// transposed_grouped_matmul, bf16 in, f32 out: output tiles of block_k = 24
// k rows by block_n = 32 columns, reduced over the group's rows in steps of
// block_m = 32.

// Grid: 2 k tiles x 2 n tiles x 6 groups.
// CHECK-LABEL: func.func private @tgmm_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 2, 2, 6>
// CHECK: %[[GROUP:.*]] = ejk.workgroup_id 2
// Scratch: C (24 x 32), the staged lhs (32 x 24) and rhs (32 x 32) rows.
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<24x32xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32x24xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32x32xf32>
// The group's rows, from the clamped sizes.
// CHECK: %[[ROWS:.*]]:3 = scf.for %[[G:.*]] = %c0 to %c6 step %c1
// CHECK: arith.maxsi %{{.*}}, %c0 : index
// CHECK: arith.minsi %{{.*}}, %c100 : index
// CHECK: arith.cmpi eq, %[[G]], %[[GROUP]] : index
// CHECK: scf.for %{{.*}} = %[[ROWS]]#1 to %[[ROWS]]#2 step %c32
// k = 36 is not whole vectors: masked reads of lhs (0 past k); n = 48 is:
// plain loads of the tile's vectors of rhs.
// CHECK: vector.transfer_read %arg0[{{.*}}], %{{.*}} : memref<100x36xbf16>, vector<8xbf16>
// CHECK: arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: vector.load %arg1[{{.*}}] : memref<100x48xbf16>, vector<8xbf16>
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c6
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-2: vector.load %{{.*}} : memref<32x32xf32>, vector<8xf32>
// CHECK: memref.load %{{.*}} : memref<32x24xf32>
// CHECK-COUNT-2: vector.fma
// The tile, written once, after the reduction.
// CHECK: vector.store %{{.*}}, %arg3[%[[GROUP]], {{.*}}] : memref<6x36x48xf32>, vector<8xf32>
// CHECK-LABEL: func.func @tgmm

func.func @tgmm(%lhs: tensor<100x36xbf16>, %rhs: tensor<100x48xbf16>, %sizes: tensor<6xi32>) -> tensor<6x36x48xf32> {
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 32, block_n = 32, block_k = 24>}
      : tensor<100x36xbf16>, tensor<100x48xbf16>, tensor<6xi32> -> tensor<6x36x48xf32>
  return %out : tensor<6x36x48xf32>
}
