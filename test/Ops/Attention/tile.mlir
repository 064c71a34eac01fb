// RUN: ejk-opt %s -ejk-select-configs=vector-bits=512 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefix=CHECK-AVX512
// RUN: ejk-opt %s -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefix=CHECK-AVX2

// GQA 8:2, f16, causal, block_q = 32, block_k = 64 from the config.

// The pack dispatch: K^T per key block and V per head, both f32; the grid
// covers ceil(192 / 64) key chunks x 2 kv heads x 2 batches.
// CHECK-AVX512-LABEL: func.func private @attn_dispatch_0_pack
// CHECK-AVX512-SAME: (%{{.*}}: memref<2x130x2x64xf16>, %{{.*}}: memref<2x130x2x64xf16>, %{{.*}}: memref<2x2x3x64x64xf32>, %{{.*}}: memref<2x2x192x64xf32>)
// CHECK-AVX512-SAME: ejk.grid = array<i64: 3, 2, 2>

// The attention dispatch: grid = [ceil(100 / 32), 8 heads, 2 batches].
// CHECK-AVX512-LABEL: func.func private @attn_dispatch_0(
// CHECK-AVX512-SAME: ejk.flops = 26624000 : i64
// CHECK-AVX512-SAME: ejk.grid = array<i64: 4, 8, 2>
// CHECK-AVX512-DAG: %[[QB:.*]] = ejk.workgroup_id 0
// CHECK-AVX512-DAG: %[[HEAD:.*]] = ejk.workgroup_id 1
// CHECK-AVX512-DAG: %[[BATCH:.*]] = ejk.workgroup_id 2
// Scratch sized by the config: Q, S and O tiles, row max and row sum.
// CHECK-AVX512: memref.alloca() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK-AVX512: memref.alloca() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK-AVX512: memref.alloca() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK-AVX512: memref.alloca() {alignment = 64 : i64} : memref<32xf32>
// Q is widened from f16 and scaled.
// CHECK-AVX512: vector.load {{.*}} : memref<2x100x8x64xf16>, vector<16xf16>
// CHECK-AVX512: arith.extf {{.*}} : vector<16xf16> to vector<16xf32>
// The key-block loop, bounded by the causal diagonal.
// CHECK-AVX512: scf.for %[[KB:.*]] = %{{.*}} to %{{.*}} step %c1
// S = Q K^T: 4 rows x 4 vectors of 16 keys, reduced over head_dim = 64.
// CHECK-AVX512: scf.for %{{.*}} = %c0 to %c32 step %c4
// CHECK-AVX512: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-AVX512-COUNT-16: vector.fma
// The online softmax: interior blocks skip the positional masks.
// CHECK-AVX512: scf.if
// CHECK-AVX512: vector.reduction <maxnumf>
// CHECK-AVX512: math.exp {{.*}} : vector<16xf32>
// CHECK-AVX512: vector.reduction <add>
// O += P V over the 64 keys of the block.
// CHECK-AVX512: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// CHECK-AVX512-COUNT-16: vector.fma
// Epilogue: only the rows this workgroup owns; output narrowed to f16.
// CHECK-AVX512: arith.truncf {{.*}} : vector<16xf32> to vector<16xf16>
// CHECK-AVX512: math.log

// The entry packs first, then runs the attention.
// CHECK-AVX512-LABEL: func.func @attn
// CHECK-AVX512: %[[PK:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x3x64x64xf32>
// CHECK-AVX512: %[[PV:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x192x64xf32>
// CHECK-AVX512: ejk.dispatch @attn_dispatch_0_pack(%arg1, %arg2, %[[PK]], %[[PV]])
// CHECK-AVX512: ejk.dispatch @attn_dispatch_0(%arg0, %arg1, %arg2, %arg3, %arg4, %[[PK]], %[[PV]])
// CHECK-AVX512: memref.dealloc %[[PK]]

// AVX2 uses 8-lane vectors: 4 rows x 2 vectors in the register block.
// CHECK-AVX2-LABEL: func.func private @attn_dispatch_0(
// CHECK-AVX2: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-AVX2-COUNT-8: vector.fma
func.func @attn(%q: tensor<2x100x8x64xf16>, %k: tensor<2x130x2x64xf16>, %v: tensor<2x130x2x64xf16>) -> (tensor<2x100x8x64xf16>, tensor<2x8x100xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v {causal, config = #ejk.config<block_q = 32, block_k = 64>} : tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16> -> tensor<2x100x8x64xf16>, tensor<2x8x100xf32>
  return %o, %lse : tensor<2x100x8x64xf16>, tensor<2x8x100xf32>
}
