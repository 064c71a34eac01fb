// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// grouped_matmul with int8 weights and per-channel scales on the CPU
// (lib/Ops/Moe/Cpu/GroupedMatmulKernel.cpp): the pack sign-extends and
// converts each vector of weights to f32 (the k loop is the float one), and
// the store multiplies C by the n tile's scales. bf16 lhs, f32 result,
// n = 40 in tiles of 32 (masked weight reads past n), AVX2 (8 lanes).

// CHECK-LABEL: func.func private @gmm8_dispatch_0
// CHECK-SAME: %[[RHS:[^:]*]]: memref<4x64x40xi8>
// CHECK-SAME: %[[SCALES:[^:]*]]: memref<4x40xf32>
// CHECK-SAME: %[[OUT:[^:]*]]: memref<100x40xf32>
// CHECK-SAME: ejk.grid = array<i64: 2, 10, 1>
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK: %[[W:.*]] = vector.transfer_read %[[RHS]][{{.*}}], %c0_i8 : memref<4x64x40xi8>, vector<8xi8>
// CHECK-NEXT: %[[WF:.*]] = arith.sitofp %[[W]] : vector<8xi8> to vector<8xf32>
// CHECK-NEXT: vector.store %[[WF]], %{{.*}} : memref<2x16x16xf32>, vector<8xf32>
// The micro-kernel is the float one: 12 f32 accumulators.
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-2: vector.fma
// The store: C times the columns' scales of the tile's group.
// CHECK: %[[C:.*]] = vector.load %{{.*}} : memref<24x32xf32>, vector<8xf32>
// CHECK-NEXT: %[[S:.*]] = vector.load %[[SCALES]][%{{.*}}, %{{.*}}] : memref<4x40xf32>, vector<8xf32>
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[C]], %[[S]] : vector<8xf32>
// CHECK-NEXT: vector.store %[[SCALED]], %[[OUT]]
// Rows of no local group: zeros, no scale.
// CHECK: } else {
// CHECK-NOT: memref<4x40xf32>
// CHECK: vector.store %cst, %[[OUT]]
// CHECK-LABEL: func.func @gmm8
// CHECK-NEXT: ejk.dispatch @gmm8_dispatch_0(

func.func @gmm8(%lhs: tensor<100x64xbf16>, %rhs: tensor<4x64x40xi8>, %sizes: tensor<4xi32>, %scales: tensor<4x40xf32>) -> tensor<100x40xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x40xf32>) {config = #ejk.config<block_m = 24, block_n = 32, block_k = 16>}
      : tensor<100x64xbf16>, tensor<4x64x40xi8>, tensor<4xi32> -> tensor<100x40xf32>
  return %out : tensor<100x40xf32>
}

// -----

// transpose_rhs: the weights [4, n, k] are read along k and converted
// before the in-register transposition (whole vectors: k = 64).
// CHECK-LABEL: func.func private @gmm8t_dispatch_0
// CHECK-SAME: %[[RHS:[^:]*]]: memref<4x40x64xi8>
// CHECK-SAME: %[[SCALES:[^:]*]]: memref<4x40xf32>
// CHECK-COUNT-8: arith.sitofp %{{.*}} : vector<8xi8> to vector<8xf32>
// CHECK: vector.shuffle
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-LABEL: func.func @gmm8t

func.func @gmm8t(%lhs: tensor<100x64xf32>, %rhs: tensor<4x40x64xi8>, %sizes: tensor<4xi32>, %scales: tensor<4x40xf32>) -> tensor<100x40xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x40xf32>) {transpose_rhs, config = #ejk.config<block_m = 24, block_n = 32, block_k = 16>}
      : tensor<100x64xf32>, tensor<4x40x64xi8>, tensor<4xi32> -> tensor<100x40xf32>
  return %out : tensor<100x40xf32>
}
