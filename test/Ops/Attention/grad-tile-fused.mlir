// RUN: ejk-opt %s -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// flash_attention_grad on the CPU with fuse_dq: no dQ pass. The dK/dV pass
// owns whole KV heads (grid [1, 2 kv heads, 2 batches]), runs their
// ceil(130 / 64) = 3 key blocks in order and adds dS K into an f32 dQ of
// [B, Hq, ceil(100 / 32) * 32, 64] that the delta dispatch zeroes and a last
// dispatch scales into d_query. GQA 8:2, f16, causal.

// CHECK-LABEL: func.func private @fused_dispatch_0_delta
// CHECK-SAME: (%{{.*}}: memref<2x100x8x64xf16>, %{{.*}}: memref<2x100x8x64xf16>, %{{.*}}: memref<2x100x8x64xf16>, %{{.*}}: memref<2x8x100xf32>, %{{.*}}: memref<2x8x128x64xf32>, %{{.*}}: memref<2x8x128x64xf32>, %{{.*}}: memref<2x8x128x64xf32>)
// CHECK-SAME: ejk.grid = array<i64: 1, 8, 2>

// One pack block of 64 keys: both passes are the dK/dV pass.
// CHECK-LABEL: func.func private @fused_dispatch_0_pack
// CHECK-SAME: memref<2x2x3x64x64xf32>, %{{.*}}: memref<2x2x192x64xf32>, %{{.*}}: memref<2x2x3x64x64xf32>, %{{.*}}: memref<2x2x192x64xf32>)

// The store: d_query = scale * dQ, narrowed to f16.
// CHECK-LABEL: func.func private @fused_dispatch_0_dq
// CHECK-SAME: (%{{.*}}: memref<2x8x128x64xf32>, %{{.*}}: memref<2x100x8x64xf16>)
// CHECK-SAME: ejk.grid = array<i64: 1, 8, 2>
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>

// The dK/dV pass records the whole backward (2.5 causal forwards).
// CHECK-LABEL: func.func private @fused_dispatch_0(
// CHECK-SAME: %{{.*}}: memref<2x8x128x64xf32>, %{{.*}}: memref<2x8x128x64xf32>, %{{.*}}: memref<2x2x192x64xf32>, %[[DQ:.*]]: memref<2x8x128x64xf32>)
// CHECK-SAME: ejk.flops = 66560000 : i64
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 2>
// The key blocks, then the 4 query heads of the group and their query
// blocks.
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 {
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK: math.exp {{.*}} : vector<8xf32>
// dV and dK, then dQ += dS K straight into the f32 dQ.
// CHECK-COUNT-16: vector.fma
// CHECK: vector.load %[[DQ]]
// CHECK: vector.fma
// CHECK: vector.store %{{.*}}, %[[DQ]]

// CHECK-LABEL: func.func @fused
// CHECK: %[[D:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x100xf32>
// CHECK: %[[QROWS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x128x64xf32>
// CHECK: %[[DOROWS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x128x64xf32>
// CHECK: %[[ACC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x128x64xf32>
// CHECK: ejk.dispatch @fused_dispatch_0_delta(%arg0, %arg3, %arg4, %[[D]], %[[QROWS]], %[[DOROWS]], %[[ACC]])
// CHECK: ejk.dispatch @fused_dispatch_0_pack(
// CHECK: ejk.dispatch @fused_dispatch_0(%arg0, {{.*}}, %[[ACC]])
// CHECK: ejk.dispatch @fused_dispatch_0_dq(%[[ACC]], %arg6)

func.func @fused(%q: tensor<2x100x8x64xf16>, %k: tensor<2x130x2x64xf16>, %v: tensor<2x130x2x64xf16>, %o: tensor<2x100x8x64xf16>, %do: tensor<2x100x8x64xf16>, %lse: tensor<2x8x100xf32>) -> (tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {causal, config = #ejk.config<block_q = 32, block_k = 64, fuse_dq = 1>}
      : tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16>, tensor<2x100x8x64xf16>, tensor<2x100x8x64xf16>, tensor<2x8x100xf32>
      -> tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16>
  return %dq, %dk, %dv : tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16>
}
