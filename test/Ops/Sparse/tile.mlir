// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// Blocks selected by the compression branch, with the window branch: three
// dispatches (compress, select, attend) and their temporaries. 50 tokens
// in blocks of 16 (4 blocks, the last partial), head_dim 36 (five vectors of
// 8 lanes, the last masked), GQA 2, block_t = 8 (7 token blocks).

// The block means: [blocks, kv_heads, batch], f32 [1, 2, 4, 40].
// CHECK-LABEL: func.func private @cmp_dispatch_0_compress
// CHECK-SAME: memref<1x2x4x36xf32>, %{{.*}}: memref<1x2x4x36xf32>)
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 1>
// CHECK: scf.for %{{.*}} = %c0 to %c36 step %c8
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>)
// CHECK: vector.transfer_read %{{.*}} : memref<1x50x2x36xf32>, vector<8xf32>

// Scores and group sums in two stack rows of 4 blocks; the compressed
// scores, the lse under a guard (no completed block: 0), the top-k by
// arg-max carrying (key, block), stored as i32, the taken block's sum -inf.
// CHECK-LABEL: func.func private @cmp_dispatch_0_select
// CHECK-SAME: %{{.*}}: memref<1x50x2x2xi32>, %{{.*}}: memref<1x50x4x36xf32>)
// CHECK-SAME: ejk.grid = array<i64: 7, 2, 1>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK: vector.fma
// CHECK: vector.reduction <add>
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: math.log
// CHECK: math.exp
// CHECK: vector.transfer_write %{{.*}} : vector<8xf32>, memref<1x50x4x36xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, index)
// CHECK: arith.cmpf ogt
// CHECK: memref.store %{{.*}} : memref<1x50x2x2xi32>

// Attend: per token, the two selected slots, each slot's keys in blocks of
// 16, and per block every head of the group in turn (the block's K/V rows
// stay in cache): the head's query (80 f32 = 2 heads x 5 vectors) and
// softmax state (160 = 2 branches x 2 heads x 5 vectors; 8 = max and sum)
// in stack buffers, the block's scores into a stack row of 16, one rescale,
// the probabilities exponentiated 8 at a time. Then the window's keys the
// same way, and the gated sum per head.
// CHECK-LABEL: func.func private @cmp_dispatch_0(
// CHECK-SAME: %{{.*}}: memref<1x50x2x2xi32>, %{{.*}}: memref<1x50x4x36xf32>)
// CHECK-SAME: ejk.grid = array<i64: 7, 2, 1>
// CHECK: %[[ROW:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK: %[[Q:.*]] = memref.alloca() {alignment = 64 : i64} : memref<80xf32>
// CHECK: %[[ACC:.*]] = memref.alloca() {alignment = 64 : i64} : memref<160xf32>
// CHECK: %[[STAT:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK-COUNT-5: vector.store %{{.*}}, %[[Q]]
// CHECK: scf.for %[[SLOT:.*]] = %c0 to %c2 step %c1 {
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[SLOT]]] : memref<1x50x2x2xi32>
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK-COUNT-5: vector.load %[[Q]]
// CHECK: scf.for {{.*}} -> (f32)
// CHECK-COUNT-5: vector.fma
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc>
// CHECK: memref.store %{{.*}}, %[[ROW]]
// CHECK: memref.load %[[STAT]]
// CHECK: math.exp %{{.*}} : f32
// CHECK: vector.load %[[ROW]]
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[ROW]]
// CHECK-COUNT-5: vector.load %[[ACC]]
// CHECK: memref.load %[[ROW]]
// CHECK-COUNT-5: vector.fma
// CHECK-COUNT-5: vector.store %{{.*}}, %[[ACC]]
// CHECK-COUNT-5: vector.transfer_write %{{.*}} : vector<8xf32>, memref<1x50x4x36xf32>

// The entry: the temporaries, then compress, select, attend.
// CHECK-LABEL: func.func @cmp(
// CHECK: %[[KC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x4x36xf32>
// CHECK: %[[VC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x4x36xf32>
// CHECK: %[[SEL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x50x2x2xi32>
// CHECK: %[[OC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x50x4x36xf32>
// CHECK: ejk.dispatch @cmp_dispatch_0_compress(%{{.*}}, %{{.*}}, %[[KC]], %[[VC]])
// CHECK: ejk.dispatch @cmp_dispatch_0_select(%{{.*}}, %{{.*}}, %[[KC]], %[[VC]], %[[SEL]], %[[OC]])
// CHECK: ejk.dispatch @cmp_dispatch_0(%{{.*}}, %[[SEL]], %[[OC]])
func.func @cmp(%q: tensor<1x50x4x36xf32>, %k: tensor<1x50x2x36xf32>, %v: tensor<1x50x2x36xf32>, %gc: tensor<1x50x4xf32>, %gs: tensor<1x50x4xf32>) -> tensor<1x50x4x36xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x50x4xf32>) g_slc(%gs : tensor<1x50x4xf32>) {block_size = 16 : i64, block_counts = 2 : i64, window_size = 8 : i64, config = #ejk.config<block_t = 8>}
      : tensor<1x50x4x36xf32>, tensor<1x50x2x36xf32>, tensor<1x50x2x36xf32> -> tensor<1x50x4x36xf32>
  return %o : tensor<1x50x4x36xf32>
}

// -----

// Given indices per query block (row t / 16), block_counts 2 of 3 slots:
// one dispatch, no compression or selection; f16 widened on load. The
// heuristic: block_t 16 (4 workgroups: enough for the one core).
// CHECK-NOT: _compress
// CHECK-NOT: _select
// CHECK-LABEL: func.func private @given_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 1, 2>
// CHECK: %[[QB:.*]] = arith.divsi %{{.*}}, %c16
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %[[QB]], %{{.*}}] : memref<2x1x2x3xi32>
// CHECK: vector.load %{{.*}} : memref<2x32x1x32xf16>, vector<8xf16>
// CHECK: arith.extf
// CHECK-LABEL: func.func @given(
// CHECK-NOT: memref.alloc
// CHECK: ejk.dispatch @given_dispatch_0(
func.func @given(%q: tensor<2x32x2x32xf16>, %k: tensor<2x32x1x32xf16>, %v: tensor<2x32x1x32xf16>, %bi: tensor<2x1x2x3xi32>) -> tensor<2x32x2x32xf16> {
  %o = ejk.native_sparse_attention %q, %k, %v block_indices(%bi : tensor<2x1x2x3xi32>) {block_size = 16 : i64, block_counts = 2 : i64}
      : tensor<2x32x2x32xf16>, tensor<2x32x1x32xf16>, tensor<2x32x1x32xf16> -> tensor<2x32x2x32xf16>
  return %o : tensor<2x32x2x32xf16>
}
