// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// delta_attention on the CPU (lib/Ops/Linear/Cpu/DeltaKernel.cpp), f32,
// GQA (4 query heads over 2 key/value heads), a per-head decay, head_dim_k
// 32, head_dim_v 48 in blocks of block_v = 16 (two 8-lane vectors), chunks
// of 32 steps, both states.

// CHECK-LABEL: func.func private @delta_dispatch_0
// FLOPs: 2 x 100 x 4 x (6 x 32 x 48 + (32 + 1) x 2 x (32 + 48)).
// CHECK-SAME: ejk.flops = 11596800 : i64
// Workgroups: head_dim_v blocks x heads x batch.
// CHECK-SAME: ejk.grid = array<i64: 3, 4, 2>
// CHECK: %[[HEAD:.*]] = ejk.workgroup_id 1
// CHECK: arith.divsi %[[HEAD]], %c2 : index
// The state tile (head_dim_k x block_v) first.
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32x16xf32>
// The chunk loop: ceil(100 / 32) chunks; the chunk's rows carry the
// cumulative per-head decay.
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (f32)
// l2 norms of q and k: a sum of squares per row, sqrt(sum + 1e-6).
// CHECK: vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
// CHECK: math.sqrt
// CHECK: vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
// CHECK: math.sqrt
// The rates and the per-head decays: one scalar per step.
// CHECK: memref.load %arg3[{{.*}}] : memref<2x100x4xf32>
// CHECK: memref.load %arg4[{{.*}}] : memref<2x100x4xf32>
// exp(B_last) for the state, then exp(B_t) and exp(B_last - B_t) per row.
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.exp %{{.*}} : f32
// Both score matrices in one pass over the transposed keys: 4 rows each,
// no exp inside (a per-head decay is a ratio per pair, after the sum).
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: math.exp
// CHECK: scf.yield
// The ratio exp(min(B_t - B_s, 0)), then P causal (s <= t) and N = -b G
// strictly below the diagonal (s < t).
// CHECK: arith.minnumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: arith.negf %{{.*}} : f32
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : vector<8xi32>
// The corrections K~ S (4 rows x 2 vectors over head_dim_k), then the
// forward substitution: the rows before the block (a loop up to the block's
// first row), then the block's own triangle.
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: scf.for %[[R0:.*]] = %c0 to %c32 step %c4 {
// CHECK: scf.for %{{.*}} = %c0 to %[[R0]] step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// Outputs, stored per row inside the sequence; the final state.
// CHECK: vector.store %{{.*}}, %arg6[{{.*}}] : memref<2x100x4x48xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %arg7[{{.*}}] : memref<2x4x32x48xf32>, vector<8xf32>
func.func @delta(%q: tensor<2x100x4x32xf32>, %k: tensor<2x100x2x32xf32>, %v: tensor<2x100x2x48xf32>, %beta: tensor<2x100x4xf32>, %g: tensor<2x100x4xf32>, %s0: tensor<2x4x32x48xf32>) -> (tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>) {
  %o, %s = ejk.delta_attention %q, %k, %v, %beta decay(%g : tensor<2x100x4xf32>) initial_state(%s0 : tensor<2x4x32x48xf32>) {config = #ejk.config<block_v = 16, chunk_size = 32>} : tensor<2x100x4x32xf32>, tensor<2x100x2x32xf32>, tensor<2x100x2x48xf32>, tensor<2x100x4xf32> -> tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>
  return %o, %s : tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>
}

// -----

// No decay and no l2 norm: no exp, no sqrt.
// CHECK-LABEL: func.func private @plain_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 1>
// CHECK-NOT: math.exp
// CHECK-NOT: math.sqrt
// CHECK: return
func.func @plain(%q: tensor<1x50x2x16xf32>, %v: tensor<1x50x2x16xf32>, %beta: tensor<1x50x2xf32>) -> tensor<1x50x2x16xf32> {
  %o = ejk.delta_attention %q, %q, %v, %beta {use_qk_l2norm = false, config = #ejk.config<block_v = 16, chunk_size = 16>} : tensor<1x50x2x16xf32>, tensor<1x50x2x16xf32>, tensor<1x50x2x16xf32>, tensor<1x50x2xf32> -> tensor<1x50x2x16xf32>
  return %o : tensor<1x50x2x16xf32>
}

// -----

// A per-key decay (KDA): the strongest decay of the chunk picks the scores,
// factored (keys times exp(-B), no exp in the key loop) within e^-60, the
// exact ratio per element beyond.
// CHECK-LABEL: func.func private @kda_dispatch_0
// CHECK: vector.reduction <minnumf>, %{{.*}} : vector<8xf32> into f32
// CHECK: %[[FACTOR:.*]] = arith.cmpf oge, %{{.*}}, %{{.*}} : f32
// CHECK: scf.if %[[FACTOR]] {
// CHECK: arith.negf %{{.*}} : vector<8xf32>
// CHECK: math.exp
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: math.exp
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-COUNT-4: math.exp
// CHECK: scf.yield
func.func @kda(%q: tensor<1x100x2x32xf32>, %v: tensor<1x100x2x16xf32>, %beta: tensor<1x100x2xf32>) -> tensor<1x100x2x16xf32> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%q : tensor<1x100x2x32xf32>) {config = #ejk.config<block_v = 16, chunk_size = 32>} : tensor<1x100x2x32xf32>, tensor<1x100x2x32xf32>, tensor<1x100x2x16xf32>, tensor<1x100x2xf32> -> tensor<1x100x2x16xf32>
  return %o : tensor<1x100x2x16xf32>
}

// -----

// Packed sequences, bf16: one workgroup per (head, sequence) and one more
// "sequence" that zeroes the steps of no sequence.
// CHECK-LABEL: func.func private @varlen_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 4, 4>
// CHECK: %[[SEQ:.*]] = ejk.workgroup_id 2
// CHECK: %[[FILLER:.*]] = arith.cmpi eq, %[[SEQ]], %c3 : index
// CHECK: scf.if %[[FILLER]] {
// CHECK: memref.load %arg4[%c0] : memref<4xi32>
// A sequence edge is the running maximum of the clamped entries
// (Linear/Sequences.h):
// CHECK: %[[N:.*]] = arith.addi %[[SEQ]], %c1 : index
// CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 iter_args(%[[START:.*]] = %c0) -> (index) {
// CHECK: memref.load %arg4[%[[I]]] : memref<4xi32>
// CHECK: arith.maxsi %[[START]], %{{.*}} : index
// CHECK: arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
func.func @varlen(%q: tensor<1x100x4x32xbf16>, %v: tensor<1x100x4x32xbf16>, %beta: tensor<1x100x4xbf16>, %cu: tensor<4xi32>) -> tensor<1x100x4x32xbf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta cu_seqlens(%cu : tensor<4xi32>) {config = #ejk.config<block_v = 32, chunk_size = 32>} : tensor<1x100x4x32xbf16>, tensor<1x100x4x32xbf16>, tensor<1x100x4x32xbf16>, tensor<1x100x4xbf16> -> tensor<1x100x4x32xbf16>
  return %o : tensor<1x100x4x32xbf16>
}
