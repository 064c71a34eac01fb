// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// unified_attention runs on the ragged kernel: one packed row a workgroup,
// every slot live (no count to load), and its score biases added before
// the soft cap: ALiBi's slope times the key's distance from the cached
// context (as f32), then the query-query bias where both indices fall
// inside it (clamped loads, selected to 0 outside).

// CHECK-LABEL: func.func private @unified_dispatch_0(
// CHECK-SAME: %[[ALIBI:[^:]*]]: memref<8xf32>, %[[QQ:[^:]*]]: memref<6x6xf32>
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 40>
// CHECK: scf.for
// CHECK: vector.reduction <add>
// CHECK: %[[SLOPE:.*]] = memref.load %[[ALIBI]]
// CHECK: %[[DIST:.*]] = arith.sitofp
// CHECK: arith.mulf %[[SLOPE]], %[[DIST]]
// CHECK: %[[BIAS:.*]] = memref.load %[[QQ]]
// CHECK: arith.select %{{.*}}, %[[BIAS]]
// CHECK: math.tanh
func.func @unified(%q: tensor<40x8x32xf32>, %kc: tensor<20x16x2x32xf32>, %vc: tensor<20x16x2x32xf32>, %lens: tensor<3xi32>, %tables: tensor<3x4xi32>, %starts: tensor<4xi32>, %alibi: tensor<8xf32>, %qq: tensor<6x6xf32>) -> tensor<40x8x32xf32> {
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts alibi(%alibi : tensor<8xf32>) qq_bias(%qq : tensor<6x6xf32>) {logits_soft_cap = 20.0 : f32} : tensor<40x8x32xf32>, tensor<20x16x2x32xf32>, tensor<20x16x2x32xf32>, tensor<3xi32>, tensor<3x4xi32>, tensor<4xi32> -> tensor<40x8x32xf32>
  return %o : tensor<40x8x32xf32>
}

// -----

// ragged_decode_attention runs on the paged decode kernel over the dense
// rows (grid [splits, kv heads, batch]): the visible range starts at the
// larger of end - (left + 1) and the sequence's start; with splits the
// sinks join in the combine, which binds them and reduces each head's row
// of 3 logits to one (a log-sum-exp).

// CHECK-LABEL: func.func private @decode_dispatch_0_combine(
// CHECK-SAME: %[[AUX:[^:]*]]: memref<2x3xf32>
// CHECK-SAME: ejk.grid = array<i64: 1, 8, 2>
// CHECK: scf.for %{{.*}} = %c0 to %c3
// CHECK: memref.load %[[AUX]]
// CHECK: scf.for %{{.*}} = %c0 to %c3
// CHECK: math.exp
// CHECK: math.log

// CHECK-LABEL: func.func private @decode_dispatch_0(
// CHECK-SAME: %[[S:[^:]*]]: memref<2xi32>, %[[E:[^:]*]]: memref<2xi32>
// CHECK-SAME: ejk.grid = array<i64: 2, 2, 2>
// CHECK: memref.load %[[E]]
// CHECK: arith.subi %{{.*}}, %c10
// CHECK: memref.load %[[S]]

// CHECK-LABEL: func.func @decode(
// CHECK: ejk.dispatch @decode_dispatch_0(
// CHECK: ejk.dispatch @decode_dispatch_0_combine(%{{.*}}, %{{.*}}, %{{.*}}, %arg5)
func.func @decode(%q: tensor<2x8x32xf32>, %k: tensor<2x64x2x32xf32>, %v: tensor<2x64x2x32xf32>, %s: tensor<2xi32>, %e: tensor<2xi32>, %aux: tensor<2x3xf32>) -> tensor<2x8x32xf32> {
  %o = ejk.ragged_decode_attention %q, %k, %v, %s, %e sinks(%aux : tensor<2x3xf32>) {sliding_window = array<i64: 9, 0>, config = #ejk.config<block_k = 16, num_splits = 2>} : tensor<2x8x32xf32>, tensor<2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<2xi32>, tensor<2xi32> -> tensor<2x8x32xf32>
  return %o : tensor<2x8x32xf32>
}
