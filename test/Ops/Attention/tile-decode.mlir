// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=512 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// Decode, GQA 32:8 (WORKLOADS.md decode-gqa): one query row per sequence and
// no per-score inputs, so the paged family's decode kernel runs it, each
// sequence one page of 4096 tokens (docs/ops/paged.md): a workgroup per KV
// head holds its 4 query heads and reads every K/V row once, in place,
// prefetching ahead; no pack dispatch, no packed buffers.

// CHECK-LABEL: func.func private @decode_dispatch_0(
// CHECK-SAME: memref<1x1x32x128xf32>, %[[K:[a-z0-9]+]]: memref<1x4096x8x128xf32>, %[[V:[a-z0-9]+]]: memref<1x4096x8x128xf32>, %{{.*}}: memref<1x1x32x128xf32>)
// CHECK-SAME: ejk.grid = array<i64: 1, 8, 1>
// CHECK: %[[KVH:.*]] = ejk.workgroup_id 1
// CHECK: %[[B:.*]] = ejk.workgroup_id 2
// Scores: K's row of the token (8 vectors of 16 over D), prefetched ahead
// into L2 (token-major rows of one KV head lie 4 KiB apart and would evict
// each other from L1), against the 4 query heads, summed across lanes.
// CHECK: scf.for
// CHECK: memref.prefetch %[[K]][%[[B]], %{{.*}}, %[[KVH]], %c0], read, locality<2>, data
// CHECK-COUNT-8: vector.load %[[K]][%[[B]], %{{.*}}, %[[KVH]], %{{.*}}] : memref<1x4096x8x128xf32>, vector<16xf32>
// CHECK: vector.reduction <add>
// O += P V with V rows read in place, 4 heads x 2 vectors at a time.
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load %[[V]][%[[B]], %{{.*}}, %[[KVH]], %{{.*}}] : memref<1x4096x8x128xf32>, vector<16xf32>
// CHECK-NOT: _pack

// CHECK-LABEL: func.func @decode
// CHECK-NOT: memref.alloc
// CHECK: ejk.dispatch @decode_dispatch_0(%arg0, %arg1, %arg2, %arg3)
// CHECK-NEXT: return
func.func @decode(%q: tensor<1x1x32x128xf32>, %k: tensor<1x4096x8x128xf32>, %v: tensor<1x4096x8x128xf32>) -> tensor<1x1x32x128xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x1x32x128xf32>, tensor<1x4096x8x128xf32>, tensor<1x4096x8x128xf32> -> tensor<1x1x32x128xf32>
  return %o : tensor<1x1x32x128xf32>
}

// -----

// MQA decode with the keys split in 4 (key_splits from the config): each
// split writes its O, max and sum; a combine dispatch merges them into the
// output and the lse.

// CHECK-LABEL: func.func private @split_dispatch_0_combine(
// CHECK-SAME: ejk.grid = array<i64: 1, 8, 1>
// Max over the 4 splits, then the weighted sums.
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}}) -> (f32)
// CHECK: arith.maxnumf
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}}) -> (f32)
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}}) -> (vector<16xf32>)
// CHECK: math.log
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %c0] : memref<1x8x1xf32>

// CHECK-LABEL: func.func private @split_dispatch_0(
// CHECK-SAME: %{{.*}}: memref<1x1x8x64xf32>, %[[K:[a-z0-9]+]]: memref<1x300x1x64xf32>, %{{.*}}: memref<1x300x1x64xf32>, %{{.*}}: memref<1x1x8x64xf32>, %{{.*}}: memref<1x8x1xf32>, %[[PO:[a-z0-9]+]]: memref<1x8x4x64xf32>, %[[PS:[a-z0-9]+]]: memref<1x8x4x2xf32>)
// CHECK-SAME: ejk.grid = array<i64: 4, 1, 1>
// The split is workgroup x.
// CHECK: %[[SPLIT:.*]] = ejk.workgroup_id 0
// CHECK: vector.store %{{.*}}, %[[PO]][%{{.*}}, %{{.*}}, %[[SPLIT]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[PS]][%{{.*}}, %{{.*}}, %[[SPLIT]], %c0]
// CHECK: memref.store %{{.*}}, %[[PS]][%{{.*}}, %{{.*}}, %[[SPLIT]], %c1]

// CHECK-LABEL: func.func @split
// CHECK: %[[O:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x8x4x64xf32>
// CHECK: %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x8x4x2xf32>
// CHECK: ejk.dispatch @split_dispatch_0(%arg0, %arg1, %arg2, %arg3, %arg4, %[[O]], %[[S]])
// CHECK: ejk.dispatch @split_dispatch_0_combine(%[[O]], %[[S]], %arg3, %arg4)
func.func @split(%q: tensor<1x1x8x64xf32>, %k: tensor<1x300x1x64xf32>, %v: tensor<1x300x1x64xf32>) -> (tensor<1x1x8x64xf32>, tensor<1x8x1xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 8, block_k = 32, key_splits = 4>} : tensor<1x1x8x64xf32>, tensor<1x300x1x64xf32>, tensor<1x300x1x64xf32> -> tensor<1x1x8x64xf32>, tensor<1x8x1xf32>
  return %o, %lse : tensor<1x1x8x64xf32>, tensor<1x8x1xf32>
}

// -----

// A decode with a bias keeps the attention kernel's own decode path: the
// 4 query heads of a KV head are the rows of one block (block_q = 4), K/V
// read in place, no pack dispatch.

// CHECK-LABEL: func.func private @bias_decode_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 1, 8, 1>
// CHECK: %[[KVH:.*]] = ejk.workgroup_id 1
// CHECK: arith.muli %[[KVH]], %c4
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1
// CHECK: vector.reduction <add>
// CHECK-NOT: memref.prefetch
// CHECK-NOT: _pack
func.func @bias_decode(%q: tensor<1x1x32x128xf32>, %k: tensor<1x128x8x128xf32>, %v: tensor<1x128x8x128xf32>, %bias: tensor<1x32x1x128xf32>) -> tensor<1x1x32x128xf32> {
  %o = ejk.flash_attention %q, %k, %v bias(%bias : tensor<1x32x1x128xf32>) : tensor<1x1x32x128xf32>, tensor<1x128x8x128xf32>, tensor<1x128x8x128xf32> -> tensor<1x1x32x128xf32>
  return %o : tensor<1x1x32x128xf32>
}
