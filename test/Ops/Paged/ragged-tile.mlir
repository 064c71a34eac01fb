// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// A ragged batch of 40 packed rows over 3 slots, GQA 8:2, a window of 5,
// sinks and v3's fused write: the pools are copied into the results (a
// workgroup per page), the new rows written (a workgroup per (slot, KV
// head)), then the decode kernel runs one packed row a workgroup over the
// written pools.

// CHECK-LABEL: func.func private @mixed_dispatch_0_copy_pages
// CHECK-SAME: ejk.grid = array<i64: 20, 1, 1>
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.store

// CHECK-LABEL: func.func private @mixed_dispatch_0_write_tokens
// CHECK-SAME: (%[[NK:.*]]: memref<40x2x32xf32>, %[[NV:.*]]: memref<40x2x32xf32>, %{{.*}}: memref<3xi32>, %{{.*}}: memref<3x4xi32>, %[[CU:.*]]: memref<4xi32>, %[[N:.*]]: memref<1xi32>, %[[UK:.*]]: memref<20x16x2x32xf32>, %[[UV:.*]]: memref<20x16x2x32xf32>)
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 1>
// The live count, clamped to the 3 slots.
// CHECK: memref.load %[[N]]
// CHECK: arith.minsi %{{.*}}, %c3
// Rows that would land before token 0 are skipped; pages clamped into the
// 20 of the cache.
// CHECK: scf.for
// CHECK: arith.minsi %{{.*}}, %c19
// CHECK: memref.load %[[NK]]
// CHECK: memref.store %{{.*}}, %[[UK]]
// CHECK: memref.load %[[NV]]
// CHECK: memref.store %{{.*}}, %[[UV]]

// CHECK-LABEL: func.func private @mixed_dispatch_0(
// CHECK-SAME: %[[Q:[^:]*]]: memref<40x8x32xf32>
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 40>
// The row's sequence: a scan over the live start locations.
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// CHECK: arith.select
// The window's start, then steps over the visible tokens.
// CHECK: arith.subi %{{.*}}, %c5
// CHECK: scf.for
// The sinks join at the normalization.
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: vector.store

// CHECK-LABEL: func.func @mixed
// CHECK: ejk.dispatch @mixed_dispatch_0_copy_pages
// CHECK-NEXT: ejk.dispatch @mixed_dispatch_0_write_tokens
// CHECK-NEXT: ejk.dispatch @mixed_dispatch_0(
func.func @mixed(%q: tensor<40x8x32xf32>, %kc: tensor<20x16x2x32xf32>, %vc: tensor<20x16x2x32xf32>, %lens: tensor<3xi32>, %tables: tensor<3x4xi32>, %cu: tensor<4xi32>, %n: tensor<1xi32>, %k: tensor<40x2x32xf32>, %v: tensor<40x2x32xf32>, %s: tensor<8xf32>) -> (tensor<40x8x32xf32>, tensor<20x16x2x32xf32>, tensor<20x16x2x32xf32>) {
  %o:3 = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n new_kv(%k, %v : tensor<40x2x32xf32>, tensor<40x2x32xf32>) sinks(%s : tensor<8xf32>) {sliding_window = 5 : i64} : tensor<40x8x32xf32>, tensor<20x16x2x32xf32>, tensor<20x16x2x32xf32>, tensor<3xi32>, tensor<3x4xi32>, tensor<4xi32>, tensor<1xi32> -> tensor<40x8x32xf32>, tensor<20x16x2x32xf32>, tensor<20x16x2x32xf32>
  return %o#0, %o#1, %o#2 : tensor<40x8x32xf32>, tensor<20x16x2x32xf32>, tensor<20x16x2x32xf32>
}

// -----

// A prefill of 2 x 8 queries: rows of a [batch, seq_q] query, no write.
// CHECK-LABEL: func.func private @prefill_dispatch_0(
// CHECK-SAME: memref<2x8x4x32xf32>
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 16>
// CHECK: arith.divsi %{{.*}}, %c8
// CHECK: arith.remsi %{{.*}}, %c8
func.func @prefill(%q: tensor<2x8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x4x32xf32> {
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x4x32xf32>
  return %o : tensor<2x8x4x32xf32>
}
