// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// The register softmax of the cooperative flash attention kernel (issue
// 21): probabilities are exp2(s * c - m) with the scale and log2(e) folded
// into c (one multiply-add a score, m in log2 units), and where every key
// block lies below seq_k and no mask applies, the scores go to the max and
// the exp2 with no mask per element.

// CHECK-LABEL: func.func private @even_dispatch_0(
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix
// CHECK: %[[C:.*]] = arith.constant 0.360673755 : f32
// CHECK: %[[S0:.*]] = gpu.subgroup_mma_extract_thread_local
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpi
// CHECK-NOT: scf.if
// CHECK: arith.maxnumf %{{.*}}, %[[S0]] fastmath<nnan> : f32
// CHECK: gpu.shuffle xor
// CHECK: %[[ROWMAX:.*]] = arith.mulf %{{.*}}, %[[C]] : f32
// CHECK: math.exp2
// CHECK: %[[X0:.*]] = math.fma %[[S0]], %[[C]], %{{.*}} : f32
// CHECK: math.exp2 %[[X0]] : f32
// CHECK: scf.yield
// lse = m ln 2 + log(l)
// CHECK: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK: arith.mulf %{{.*}}, %[[LN2]] : f32
// CHECK: math.log
func.func @even(%q: tensor<1x128x2x64xf16>, %k: tensor<1x128x2x64xf16>, %v: tensor<1x128x2x64xf16>) -> (tensor<1x128x2x64xf16>, tensor<1x2x128xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v {softmax_scale = 0.25 : f32} : tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16> -> tensor<1x128x2x64xf16>, tensor<1x2x128xf32>
  return %o, %lse : tensor<1x128x2x64xf16>, tensor<1x2x128xf32>
}

// -----

// Causal: a test per block and tile (the block's last key on or before the
// tile's first row's diagonal, and below seq_k) picks the raw scores (then
// branch) or the masked ones (-inf where not allowed; else branch).
// CHECK-LABEL: func.func private @causal_dispatch_0(
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix
// CHECK: %[[S0:.*]] = gpu.subgroup_mma_extract_thread_local
// CHECK: %[[BELOW:.*]] = arith.cmpi sle, %{{.*}}, %c128{{.*}} : index
// CHECK: %[[DIAG:.*]] = arith.cmpi sle, %{{.*}}, %{{.*}} : index
// CHECK: %[[WHOLE:.*]] = arith.andi %[[BELOW]], %[[DIAG]] : i1
// CHECK: %[[U:.*]]:32 = scf.if %[[WHOLE]] -> (f32,
// CHECK-NEXT: scf.yield %[[S0]],
// CHECK-NEXT: } else {
// CHECK: arith.cmpi sle
// CHECK: arith.select %{{.*}}, %[[S0]], %cst{{.*}} : f32
// CHECK: arith.maxnumf %{{.*}}, %[[U]]#0 fastmath<nnan> : f32
// CHECK: math.fma %[[U]]#0, %{{.*}}, %{{.*}} : f32
func.func @causal(%q: tensor<1x128x2x64xf16>, %k: tensor<1x128x2x64xf16>, %v: tensor<1x128x2x64xf16>) -> tensor<1x128x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16> -> tensor<1x128x2x64xf16>
  return %o : tensor<1x128x2x64xf16>
}

// -----

// A soft cap makes logits no multiple of the scores: the logits are masked
// per element as before and c is log2(e) alone.
// CHECK-LABEL: func.func private @soft_cap_dispatch_0(
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix
// CHECK: %[[C:.*]] = arith.constant 1.44269502 : f32
// CHECK-NOT: scf.if
// CHECK: math.tanh
// CHECK: arith.select
// CHECK: math.fma %{{.*}}, %[[C]], %{{.*}} : f32
func.func @soft_cap(%q: tensor<1x128x2x64xf16>, %k: tensor<1x128x2x64xf16>, %v: tensor<1x128x2x64xf16>) -> tensor<1x128x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {logits_soft_cap = 5.0 : f32} : tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16> -> tensor<1x128x2x64xf16>
  return %o : tensor<1x128x2x64xf16>
}

// -----

// seq_k not a whole number of blocks: the key bound is tested per block
// (the last block takes the masked branch).
// CHECK-LABEL: func.func private @ragged_keys_dispatch_0(
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix
// CHECK: %[[WHOLE:.*]] = arith.cmpi sle, %{{.*}}, %c100{{.*}} : index
// CHECK-NEXT: scf.if %[[WHOLE]] -> (f32,
func.func @ragged_keys(%q: tensor<1x128x2x64xf16>, %k: tensor<1x100x2x64xf16>, %v: tensor<1x100x2x64xf16>) -> tensor<1x128x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x128x2x64xf16>, tensor<1x100x2x64xf16>, tensor<1x100x2x64xf16> -> tensor<1x128x2x64xf16>
  return %o : tensor<1x128x2x64xf16>
}

// -----

// Block-sparse attention takes the exp2 form and, as dense attention, the
// whole-block path: the listed key blocks of 64 lie below seq_k = 256 and
// no positional mask applies, so their scores go to the max and the exp2
// with no mask per element (issue 19).
// CHECK-LABEL: func.func private @sparse_dispatch_0(
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix
// CHECK: %[[S0:.*]] = gpu.subgroup_mma_extract_thread_local
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpi
// CHECK-NOT: scf.if
// CHECK: arith.maxnumf %{{.*}}, %[[S0]] fastmath<nnan> : f32
// CHECK: math.fma %[[S0]], %{{.*}}, %{{.*}} : f32
// CHECK: math.exp2
// CHECK: scf.yield
func.func @sparse(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>, %bm: tensor<1x2x2x2xi1>) -> tensor<1x256x2x128xf16> {
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 128 : i64, causal = false}
      : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x2x2x2xi1> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}
