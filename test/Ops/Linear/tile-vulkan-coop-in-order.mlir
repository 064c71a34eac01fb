// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" | FileCheck %s --check-prefix=CONFIG
// Vulkan's in-order cooperative gla kernel (`chunk_parallel = 0,
// cooperative = 1`, lib/Ops/Linear/Vulkan/CoopInOrder.cpp): a constant decay
// per head, the chunks of each sequence in order, the state in f32 matrix
// accumulators. lavapipe has no cooperative matrices: it is checked
// numerically on the GPU (bench/vulkan/linear.py's chk_inorder_* cases).

// bf16, GQA (4 query heads, 2 key/value heads), K = 64, V = 48 in blocks of
// 32 (the second partial), chunks of 32. Grid (V blocks, heads, batch); one
// dispatch, marked for bf16 matrices. FLOPs glaFlops(C = 32): 200 steps x 4
// heads x (4 x 64 x 48 + 33 x 112). Shared memory: q and k stages of 32 x
// (64 + 8) halves as words (288 each), v and w v stages of 32 x (32 + 8),
// S16 of 64 x 40, A16 of 32 x 40, the f32 stage of 8 subgroup tiles and 4
// output tiles of 256: 2 x 4608 + 2 x 2560 + 5120 + 2560 + 12288 = 34304
// bytes.
// CHECK-LABEL: func.func private @gamma_gqa_dispatch_0(
// CHECK-SAME: ejk.flops = 12787200 : i64, ejk.grid = array<i64: 2, 4, 2>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 34304 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// The scale 1/8; q and k read as 16-byte words (the key words from the
// key/value head); the stages.
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: %[[QW:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<2x100x4x64xbf16> to memref<6400xvector<4xi32>>
// CHECK: %[[KW:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<2x100x2x64xbf16> to memref<3200xvector<4xi32>>
// CHECK: %[[Q:.*]] = memref.alloc() : memref<288xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: %[[K:.*]] = memref.alloc() : memref<288xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: %[[V:.*]] = memref.alloc() : memref<1280xf16, #gpu.address_space<workgroup>>
// CHECK: %[[WV:.*]] = memref.alloc() : memref<1280xf16, #gpu.address_space<workgroup>>
// CHECK: %[[S:.*]] = memref.alloc() : memref<2560xf16, #gpu.address_space<workgroup>>
// CHECK: %[[A:.*]] = memref.alloc() : memref<1280xf16, #gpu.address_space<workgroup>>
// CHECK: %[[F:.*]] = memref.alloc() : memref<3072xf32, #gpu.address_space<workgroup>>
// The row decays D = scale exp(gamma (t + 1)), once, as accumulator
// matrices.
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[F]]
// CHECK: gpu.barrier
// CHECK: %[[D:.*]] = gpu.subgroup_mma_load_matrix %[[F]][%{{.*}}] {leadDimension = 16 : index} : memref<3072xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// The zero state into S16 (bf16 bits) through the subgroup's f32 tile.
// CHECK: %[[S0:.*]] = gpu.subgroup_mma_constant_matrix
// CHECK: gpu.subgroup_mma_store_matrix %[[S0]], %[[F]][%{{.*}}] {leadDimension = 16 : index}
// CHECK: gpu.barrier
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.bitcast %{{.*}} : bf16 to f16
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: gpu.barrier
// The chunk loop carries the state tile alone (one per subgroup: 4 x 2
// tiles): each chunk loads its own words and values at its start (no
// next-chunk registers: measured faster on an H200, docs/ops/linear-vulkan.md).
// CHECK-NOT: memref.load %[[QW]]
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (!gpu.mma_matrix<16x16xf32, "COp">)
// CHECK: memref.load %[[QW]]
// CHECK: memref.load %[[KW]]
// The chunk's stages; v and w v = v exp(gamma (len - 1 - s)).
// CHECK: memref.store %{{.*}}, %[[Q]]
// CHECK: memref.store %{{.*}}, %[[K]]
// CHECK: memref.store %{{.*}}, %[[V]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[WV]]
// CHECK-NOT: memref.load %[[QW]]
// CHECK: gpu.barrier
// Q K^T on the subgroups owning a score tile: q rows 9 words apart, the
// keys column-major.
// CHECK: scf.if
// CHECK: gpu.subgroup_mma_load_matrix %[[Q]][%{{.*}}] {leadDimension = 9 : index} : memref<288xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[K]][%{{.*}}] {leadDimension = 9 : index, transpose} : memref<288xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[F]][%{{.*}}] {leadDimension = 32 : index}
// D o (Q S16) on the subgroups owning an output tile.
// CHECK: scf.if %{{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">)
// CHECK: gpu.subgroup_mma_load_matrix %[[S]][%{{.*}}] {leadDimension = 40 : index} : memref<2560xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_elementwise  mulf %{{.*}}, %[[D]]
// CHECK: gpu.barrier
// A16 = the masked, decayed scores as bf16 bits.
// CHECK: memref.load %[[F]]
// CHECK: arith.select
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: gpu.barrier
// O += A16 V; S = exp(gamma len) S + K^T (w V).
// CHECK: scf.if %{{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">)
// CHECK: gpu.subgroup_mma_load_matrix %[[A]][%{{.*}}] {leadDimension = 40 : index}
// CHECK: gpu.subgroup_mma_load_matrix %[[V]][%{{.*}}] {leadDimension = 40 : index}
// CHECK: gpu.subgroup_mma_compute
// CHECK: %[[DECAY:.*]] = gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_elementwise  mulf %{{.*}}, %[[DECAY]]
// CHECK: gpu.subgroup_mma_load_matrix %[[K]][%{{.*}}] {leadDimension = 9 : index, transpose} : memref<288xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[WV]][%{{.*}}] {leadDimension = 40 : index}
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_load_matrix %[[WV]][%{{.*}}] {leadDimension = 40 : index}
// CHECK: %[[NEXT:[0-9]+]] = gpu.subgroup_mma_compute
// The chunk's end: O tiles into the stage's output region, the new state
// into its part; one barrier; the outputs written along V (as bf16) and
// S16 converted; one barrier.
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[F]][%{{.*}}] {leadDimension = 16 : index}
// CHECK: gpu.subgroup_mma_store_matrix %[[NEXT]], %[[F]][%{{.*}}] {leadDimension = 16 : index}
// CHECK-NEXT: gpu.barrier
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: memref.store %{{.*}}, %arg4[{{.*}}] : memref<2x100x4x48xbf16>
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield %[[NEXT]]
func.func @gamma_gqa(%q: tensor<2x100x4x64xbf16>, %k: tensor<2x100x2x64xbf16>, %v: tensor<2x100x2x48xbf16>, %gg: tensor<4xf32>) -> tensor<2x100x4x48xbf16> {
  %o = ejk.gla %q, %k, %v g_gamma(%gg : tensor<4xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 1>} : tensor<2x100x4x64xbf16>, tensor<2x100x2x64xbf16>, tensor<2x100x2x48xbf16> -> tensor<2x100x4x48xbf16>
  return %o : tensor<2x100x4x48xbf16>
}

// -----

// Lightning's layer form, f16, packed sequences with states in and out:
// grid z = 3 sequences + the filler; the decay from the head index; the
// initial state's tiles loaded through the f32 stage; the final state
// written from the accumulators after the loop. f16 operands: no bf16 mark.
// CHECK-LABEL: func.func private @lightning_varlen_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 2, 4>
// CHECK-NOT: ejk.matrix_operands
// CHECK-SAME: ejk.shared_memory_bytes
// CHECK: scf.if
// CHECK: scf.if
// CHECK: arith.sitofp
// CHECK: memref.load %arg3[{{.*}}] : memref<3x2x32x32xf32>
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 16 : index} : memref<2304xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: scf.for
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: scf.yield
// CHECK: gpu.subgroup_mma_store_matrix
// CHECK: memref.store %{{.*}}, %arg6[{{.*}}] : memref<3x2x32x32xf32>
func.func @lightning_varlen(%q: tensor<1x90x2x32xf16>, %s0: tensor<3x2x32x32xf32>, %cu: tensor<4xi32>) -> (tensor<1x90x2x32xf16>, tensor<3x2x32x32xf32>) {
  %o, %s = ejk.lightning_attention %q, %q, %q initial_state(%s0 : tensor<3x2x32x32xf32>) cu_seqlens(%cu : tensor<4xi32>) {config = #ejk.config<block_v = 16, chunk_size = 16, cooperative = 1>, layer_idx = 1 : i64, num_layers = 4 : i64} : tensor<1x90x2x32xf16>, tensor<1x90x2x32xf16>, tensor<1x90x2x32xf16> -> tensor<1x90x2x32xf16>, tensor<3x2x32x32xf32>
  return %o, %s : tensor<1x90x2x32xf16>, tensor<3x2x32x32xf32>
}

// -----

// The heuristic's pick for fla's simple-gla shape (16 x 8 x 4 = 512
// workgroups of 32 columns, a constant decay, bf16 with bf16 matrices) with
// a sequence the split form's chunks of 64 do not divide (16352 = 511 x 32;
// at 16384 the split form runs, tile-vulkan-coop-split.mlir): the in-order
// kernel's form 2, chunks of 32, V blocks of 32 (measured whole and correct
// on an H200, docs/ops/linear-vulkan.md).
// CONFIG-LABEL: func.func @heuristic_pick
// CONFIG: config = #ejk.config<block_v = 32, chunk_parallel = 0, chunk_size = 32, cooperative = 2>
// CHECK-LABEL: func.func private @heuristic_pick_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 4, 8, 16>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 47616 : i64
func.func @heuristic_pick(%q: tensor<16x16352x8x128xbf16>, %gg: tensor<8xf32>) -> tensor<16x16352x8x128xbf16> {
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<8xf32>) : tensor<16x16352x8x128xbf16>, tensor<16x16352x8x128xbf16>, tensor<16x16352x8x128xbf16> -> tensor<16x16352x8x128xbf16>
  return %o : tensor<16x16352x8x128xbf16>
}
