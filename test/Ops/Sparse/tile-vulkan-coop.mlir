// The attend dispatch of ejk.native_sparse_attention on cooperative
// matrices (`cooperative = 1`, lib/Ops/Sparse/Vulkan/CoopAttend.cpp): one
// subgroup per (token, kv head, batch), the group's heads as matrix rows.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// f16, GQA 4, head_dim 32, top-3 blocks of 16, a window of 24 and all three
// gates. Grid: one workgroup of 32 lanes per token; stages: Q, K and V (16
// rows of 40 halves: 80 words each), scores and row factors (16 x 20 f32),
// P (16 x 24 f16), the selection's output while the window runs (16 x 36
// f32): 9472 bytes.
// CHECK-LABEL: func.func private @coop_dispatch_0(
// CHECK-SAME: %{{.*}}: memref<1x100x8x32xf16>, %{{.*}}: memref<1x100x2x32xf16>, %{{.*}}: memref<1x100x2x32xf16>, %{{.*}}: memref<1x100x8xf16>, %[[GSLC:.*]]: memref<1x100x8xf16>, %{{.*}}: memref<1x100x8xf16>, %[[OUT:.*]]: memref<1x100x8x32xf16>, %[[LIST:.*]]: memref<1x100x2x3xi32>, %[[OCMP:.*]]: memref<1x100x8x32xf32>)
// CHECK-SAME: ejk.grid = array<i64: 100, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 9472 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 32, 1, 1>
// CHECK-NOT: ejk.matrix_operands
// CHECK: %[[T:.*]] = ejk.workgroup_id 0
// CHECK: %[[Q:.*]] = memref.alloc() : memref<80xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: %[[K:.*]] = memref.alloc() : memref<80xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: %[[V:.*]] = memref.alloc() : memref<80xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: %[[S:.*]] = memref.alloc() : memref<320xf32, #gpu.address_space<workgroup>>
// CHECK: %[[P:.*]] = memref.alloc() : memref<384xf16, #gpu.address_space<workgroup>>
// CHECK: %[[F:.*]] = memref.alloc() : memref<320xf32, #gpu.address_space<workgroup>>
// CHECK: %[[O:.*]] = memref.alloc() : memref<576xf32, #gpu.address_space<workgroup>>
// Q's rows past the group's 4 heads are zeros; Q stays in two A matrices.
// CHECK: arith.cmpi slt, %{{.*}}, %c4{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[Q]]
// CHECK: gpu.barrier
// CHECK: %[[QA:.*]] = gpu.subgroup_mma_load_matrix %[[Q]][%{{.*}}] {leadDimension = 5 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: %[[QB:.*]] = gpu.subgroup_mma_load_matrix %[[Q]]
// The slots (3), each a guarded loop over its tiles of 16 keys.
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} step
// CHECK: memref.load %[[LIST]]
// CHECK: scf.if
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, f32, f32)
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<800xvector<4xi32>>
// CHECK: memref.store %{{.*}}, %[[K]]
// CHECK: memref.store %{{.*}}, %[[V]]
// CHECK: gpu.barrier
// S = Q K^T over head_dim in two steps, then through the score stage.
// CHECK: %[[KT:.*]] = gpu.subgroup_mma_load_matrix %[[K]][%{{.*}}] {leadDimension = 5 : index, transpose}
// CHECK: %[[S0:.*]] = gpu.subgroup_mma_compute %[[QA]], %[[KT]]
// CHECK: gpu.subgroup_mma_compute %[[QB]]
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]]
// CHECK: gpu.barrier
// Two lanes per row: their maxima and sums meet by one shuffle.
// CHECK: memref.load %[[S]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: memref.store %{{.*}}, %[[F]]
// CHECK: gpu.shuffle  xor
// CHECK: gpu.barrier
// O = O * alpha + P V.
// CHECK: %[[ALPHA:.*]] = gpu.subgroup_mma_load_matrix %[[F]]
// CHECK: %[[PA:.*]] = gpu.subgroup_mma_load_matrix %[[P]][%{{.*}}] {leadDimension = 24 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: %[[SCALED:.*]] = gpu.subgroup_mma_elementwise  mulf %{{.*}}, %[[ALPHA]]
// CHECK: %[[VB:.*]] = gpu.subgroup_mma_load_matrix %[[V]]{{.*}} -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute %[[PA]], %[[VB]], %[[SCALED]]
// The selection's rows times g_slc / l wait in the output stage.
// CHECK: memref.load %[[GSLC]]
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[O]]
// The window: keys t - 23 .. t.
// CHECK: arith.subi %{{.*}}, %c24{{.*}} : index
// CHECK: scf.if
// CHECK: scf.for
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_load_matrix %[[O]]
// CHECK: gpu.subgroup_mma_elementwise  addf
// The 4 real rows plus the compression output go out, tile by tile.
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]]
// CHECK: scf.if
// CHECK: memref.load %[[OCMP]]
// CHECK: memref.store %{{.*}}, %[[OUT]]
func.func @coop(%q: tensor<1x100x8x32xf16>, %k: tensor<1x100x2x32xf16>, %v: tensor<1x100x2x32xf16>, %gc: tensor<1x100x8xf16>, %gs: tensor<1x100x8xf16>, %gw: tensor<1x100x8xf16>) -> tensor<1x100x8x32xf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x100x8xf16>) g_slc(%gs : tensor<1x100x8xf16>) g_swa(%gw : tensor<1x100x8xf16>) {block_size = 16 : i64, block_counts = 3 : i64, window_size = 24 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x100x8x32xf16>, tensor<1x100x2x32xf16>, tensor<1x100x2x32xf16> -> tensor<1x100x8x32xf16>
  return %o : tensor<1x100x8x32xf16>
}

// -----

// bf16 with given per-token indices, no window: the dispatch is marked for
// bf16 matrices (the SPIR-V conversion retypes its A/B matrices), P is
// written as bf16 bits, and there is no output stage.
// CHECK-LABEL: func.func private @bf16_dispatch_0(
// CHECK-SAME: ejk.matrix_operands = "bf16"
// CHECK-SAME: ejk.shared_memory_bytes = 10240 : i64
// CHECK: memref.alloc() : memref<384xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.alloc() : memref<320xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.bitcast %{{.*}} : bf16 to f16
// CHECK: gpu.subgroup_mma_compute
func.func @bf16(%q: tensor<1x64x4x64xbf16>, %k: tensor<1x64x1x64xbf16>, %v: tensor<1x64x1x64xbf16>, %bi: tensor<1x64x1x2xi32>) -> tensor<1x64x4x64xbf16> {
  %o = ejk.native_sparse_attention %q, %k, %v block_indices(%bi : tensor<1x64x1x2xi32>) {block_size = 16 : i64, block_counts = 2 : i64, config = #ejk.config<block_t = 32, cooperative = 1>}
      : tensor<1x64x4x64xbf16>, tensor<1x64x1x64xbf16>, tensor<1x64x1x64xbf16> -> tensor<1x64x4x64xbf16>
  return %o : tensor<1x64x4x64xbf16>
}

// -----

// Without a config the heuristic takes the cooperative kernel wherever it
// verifies (it ran whole and correct on an H200, 10x faster than the
// portable attend dispatch): one subgroup per token; and the selection
// with one subgroup per token (subgroup_select; ran correct on an H200,
// 3.3x faster than one thread per token): one 32-lane workgroup per token,
// no workgroup memory.
// CHECK-LABEL: func.func private @heuristic_pick_dispatch_0_select(
// CHECK-SAME: ejk.grid = array<i64: 64, 1, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 0 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 32, 1, 1>
// CHECK: gpu.shuffle idx
// CHECK-LABEL: func.func private @heuristic_pick_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 64, 1, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 32, 1, 1>
// CHECK: gpu.subgroup_mma_compute
// CHECK: return
func.func @heuristic_pick(%q: tensor<1x64x4x64xf16>, %k: tensor<1x64x1x64xf16>, %v: tensor<1x64x1x64xf16>, %gc: tensor<1x64x4xf16>) -> tensor<1x64x4x64xf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x64x4xf16>) {block_size = 16 : i64, block_counts = 2 : i64}
      : tensor<1x64x4x64xf16>, tensor<1x64x1x64xf16>, tensor<1x64x1x64xf16> -> tensor<1x64x4x64xf16>
  return %o : tensor<1x64x4x64xf16>
}
