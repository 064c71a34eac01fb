// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// GQA 8:2 over head-major f16 pages of 4 tokens, tables of 3 pages, a
// window of 5, lse, two splits: the attention dispatch (splits x KV heads x
// sequences) writes partial outputs that a combine dispatch merges.

// CHECK-LABEL: func.func private @gqa_dispatch_0_combine
// CHECK-SAME: (%{{.*}}: memref<2x8x2x16xf32>, %{{.*}}: memref<2x8x2x2xf32>, %{{.*}}: memref<2x8x16xf32>, %{{.*}}: memref<2x8xf32>)
// CHECK-SAME: ejk.grid = array<i64: 1, 8, 2>
// The splits' maxima, then their weighted sums.
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: arith.maxnumf
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: math.exp
// CHECK: math.log

// CHECK-LABEL: func.func private @gqa_dispatch_0(
// CHECK-SAME: memref<2x8x2x16xf32>, %{{.*}}: memref<2x8x2x2xf32>)
// CHECK-SAME: ejk.flops = 5120
// CHECK-SAME: ejk.grid = array<i64: 2, 2, 2>
// Scratch: queries, accumulators and probabilities of the 4 heads of the
// KV head.
// CHECK-COUNT-3: memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
// The length, clamped to the table's 12 tokens, and the window's start.
// CHECK: arith.minsi %{{.*}}, %c12
// CHECK: arith.maxsi
// CHECK: arith.subi %{{.*}}, %c5
// Steps of block_k = 16 tokens; each token's page clamped into the cache.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16
// CHECK: scf.for
// Head-major rows of a KV head follow one another: prefetched into L1.
// CHECK: memref.prefetch {{.*}}, read, locality<3>, data
// CHECK: memref.load %{{.*}} : memref<2x3xi32>
// CHECK: arith.minsi %{{.*}}, %c9
// CHECK: arith.maxsi %{{.*}}, %c0
// CHECK: vector.load %{{.*}} : memref<10x2x4x16xf16>, vector<8xf16>
// CHECK: vector.load %{{.*}} : memref<10x2x4x16xf16>, vector<8xf16>
// CHECK-COUNT-4: vector.reduction <add>
// The online softmax over the step's scores, as vectors.
// CHECK: vector.reduction <maxnumf>
// CHECK: math.exp %{{.*}} : vector<8xf32>
// The values: 4 heads x 2 vectors of accumulators carried over the tokens.
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: vector.load %{{.*}} : memref<10x2x4x16xf16>, vector<8xf16>
// CHECK: vector.fma
// The split's partial output and (max, sum).
// CHECK: vector.store %{{.*}} : memref<2x8x2x16xf32>, vector<8xf32>

// CHECK-LABEL: func.func @gqa(
// CHECK: ejk.dispatch @gqa_dispatch_0(
// CHECK-NEXT: ejk.dispatch @gqa_dispatch_0_combine(
func.func @gqa(%q: tensor<2x8x16xf32>, %kc: tensor<10x2x4x16xf16>, %vc: tensor<10x2x4x16xf16>, %lens: tensor<2xi32>, %tables: tensor<2x3xi32>) -> (tensor<2x8x16xf32>, tensor<2x8xf32>) {
  %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables {sliding_window = 5 : i64, config = #ejk.config<block_k = 16, num_splits = 2>} : tensor<2x8x16xf32>, tensor<10x2x4x16xf16>, tensor<10x2x4x16xf16>, tensor<2xi32>, tensor<2x3xi32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return %o, %lse : tensor<2x8x16xf32>, tensor<2x8xf32>
}

// -----

// Token-major pages, one split: the dispatch writes the output directly
// (no combine), indexing [page, slot, kv head, dim]; head_dim 12 is not a
// whole number of vectors, so cache reads are masked.

// CHECK-LABEL: func.func private @token_major_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 1, 1, 3>
// CHECK: memref.load %{{.*}} : memref<3x5xi32>
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %c0]{{.*}}in_bounds = [true]{{.*}} : memref<7x16x1x12xf32>, vector<8xf32>
// CHECK: vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %c8], %{{[^{]*}} : memref<7x16x1x12xf32>, vector<8xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<8xf32>, memref<3x2x12xf32>
// CHECK-NOT: combine
func.func @token_major(%q: tensor<3x2x12xf32>, %kc: tensor<7x16x1x12xf32>, %vc: tensor<7x16x1x12xf32>, %lens: tensor<3xi32>, %tables: tensor<3x5xi32>) -> tensor<3x2x12xf32> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {kv_layout = "token_major", config = #ejk.config<block_k = 32>} : tensor<3x2x12xf32>, tensor<7x16x1x12xf32>, tensor<7x16x1x12xf32>, tensor<3xi32>, tensor<3x5xi32> -> tensor<3x2x12xf32>
  return %o : tensor<3x2x12xf32>
}

// -----

// Tables of no pages: nothing can be read; a fill dispatch writes 0 and
// lse = -inf.

// CHECK-LABEL: func.func private @no_pages_dispatch_0_fill
// CHECK: 0xFF800000
// CHECK-LABEL: func.func @no_pages(
func.func @no_pages(%q: tensor<2x4x16xf32>, %kc: tensor<4x2x8x16xf32>, %vc: tensor<4x2x8x16xf32>, %lens: tensor<2xi32>, %tables: tensor<2x0xi32>) -> (tensor<2x4x16xf32>, tensor<2x4xf32>) {
  %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x4x16xf32>, tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32>, tensor<2xi32>, tensor<2x0xi32> -> tensor<2x4x16xf32>, tensor<2x4xf32>
  return %o, %lse : tensor<2x4x16xf32>, tensor<2x4xf32>
}
