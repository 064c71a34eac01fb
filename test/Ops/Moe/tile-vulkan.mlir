// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16 subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefixes=CHECK,PORT
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefixes=CHECK,COOP

// Tiling of ejk.grouped_matmul and ejk.transposed_grouped_matmul for Vulkan
// (lib/Ops/Moe/Vulkan): the portable path (f32 arithmetic, every dtype;
// prefix PORT) and, for f16 on a device with cooperative matrices, the
// cooperative-matrix path (prefix COOP).

// f32 takes the portable path on either device: 64 x 64 tiles over 256
// threads (8 x 32, 8 rows x 2 columns each), steps of 16. Grid: n tiles x
// the most row tiles the work list can have, ceil(300 / 64) + 5 groups + 2
// (the rows before and after the local groups) = 12. Shared memory: the
// scan's 5 + 1 group starts, 256 partial sums and the tile found (265 i32),
// and the A and B steps (16 x 64 f32 each): 4 * (265 + 2048) = 9252 bytes.
// CHECK-LABEL: func.func private @gmm_f32_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 12, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 9252 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: %[[ITEM:.*]] = ejk.workgroup_id 1
// CHECK: %[[SCAN:.*]] = memref.alloc() : memref<265xi32, #gpu.address_space<workgroup>>
// Thread 0 marks "no tile" (rows [0, 0), group -1) before the scans.
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[SCAN]][%c262{{.*}}]
// CHECK: memref.store %{{.*}}, %[[SCAN]][%c263{{.*}}]
// CHECK: memref.store %{{.*}}, %[[SCAN]][%c264{{.*}}]
// Group sizes are read once per thread, clamped to [0, rows] and summed
// saturating at rows; the partial sums are scanned over 256 threads
// (strides 1 .. 128, a barrier each side of every step).
// CHECK: scf.for {{.*}} -> (index)
// CHECK: memref.load %{{.*}} : memref<5xi32>
// CHECK: arith.maxsi
// CHECK: arith.minsi %{{.*}}, %c300
// CHECK: gpu.barrier
// CHECK: arith.subi %thread_id_x, %c128
// CHECK: gpu.barrier
// The work list's tiles: a thread takes the tile of work item y.
// CHECK: arith.cmpi sle, %{{.*}}, %[[ITEM]]
// CHECK: arith.cmpi slt, %[[ITEM]], %{{.*}}
// CHECK: memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// The reduction runs under an scf.if (a loop of zero trips would leave its
// results undefined in SPIR-V): rows of no local group only take the
// epilogue.
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: scf.for {{.*}} step %c16{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: memref.load %{{.*}} : memref<300x64xf32>
// CHECK: memref.load %{{.*}} : memref<5x64x48xf32>
// CHECK: gpu.barrier
// CHECK-COUNT-16: math.fma
// CHECK: gpu.barrier
// Guarded stores, one per accumulator.
// CHECK-COUNT-16: memref.store %{{.*}} : memref<300x48xf32>
// CHECK-NOT: gpu.subgroup_mma
func.func @gmm_f32(%lhs: tensor<300x64xf32>, %rhs: tensor<5x64x48xf32>, %sizes: tensor<5xi32>) -> tensor<300x48xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes
      : tensor<300x64xf32>, tensor<5x64x48xf32>, tensor<5xi32> -> tensor<300x48xf32>
  return %out : tensor<300x48xf32>
}

// -----

// f16. Portable: as above, f16 widened as it is staged. Cooperative: 128 x
// 128 tiles of 4 subgroups (2 x 2, 4 x 4 16x16 accumulators each), steps of
// 32, one stage; grid 384 / 128 x (4096 / 128 + 8 + 2). One buffer holds
// the A step (128 rows of 32 + 8 halves: 640 16-byte vectors) and then the
// B step (32 rows of 128 + 8: 544); after the loop each subgroup's 16-row
// output strip (16 x 68 f32, 4 x 272 vectors <= 1184) reuses it. With the
// scan (8 + 1 + 128 + 3 i32): 18944 + 560 = 19504 bytes.
// CHECK-LABEL: func.func private @gmm_f16_dispatch_0
// PORT-SAME: ejk.grid = array<i64: 6, 74, 1>
// PORT-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// PORT: arith.extf {{.*}} : f16 to f32
// PORT: math.fma
// PORT: arith.truncf {{.*}} : f32 to f16
// PORT-NOT: gpu.subgroup_mma
// COOP-SAME: ejk.grid = array<i64: 3, 42, 1>
// COOP-SAME: ejk.shared_memory_bytes = 19504 : i64
// COOP-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// COOP: memref.alloc() : memref<140xi32, #gpu.address_space<workgroup>>
// lhs and rhs are read as 16-byte vectors through views of their buffers.
// COOP: %[[LHS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<4096x256xf16> to memref<131072xvector<4xi32>>
// COOP: %[[RHS:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<8x256x384xf16> to memref<98304xvector<4xi32>>
// COOP: %[[S:.*]] = memref.alloc() : memref<1184xvector<4xi32>, #gpu.address_space<workgroup>>
// COOP-NOT: memref.alloc
// The first step's vectors are loaded before the loop, the next step's in
// it; 16 accumulators and 8 vectors per thread ride the loop, under an
// scf.if.
// COOP: memref.load %[[LHS]]
// COOP: memref.load %[[RHS]]
// COOP: scf.if %{{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, {{.*}}"COp">, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
// COOP: scf.for {{.*}} step %c32
// COOP-COUNT-8: memref.store %{{.*}}, %[[S]]
// COOP: gpu.barrier
// COOP: memref.load %[[LHS]]
// COOP: memref.load %[[RHS]]
// A rows run along k (row-major A matrices), B rows along n.
// COOP-COUNT-4: gpu.subgroup_mma_load_matrix %[[S]][%{{.*}}] {leadDimension = 5 : index} : memref<1184xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// COOP-COUNT-4: gpu.subgroup_mma_load_matrix %[[S]][%{{.*}}] {leadDimension = 17 : index} : memref<1184xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// COOP-COUNT-16: gpu.subgroup_mma_compute
// COOP: gpu.barrier
// COOP-NEXT: scf.yield
// Epilogue: a strip of 4 accumulators to the stage, then the lanes store
// 4 f32 each.
// COOP-COUNT-4: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]][%{{.*}}] {leadDimension = 17 : index}
// COOP: gpu.barrier
// COOP: %[[V:.*]] = memref.load %[[S]]
// COOP: vector.extract %[[V]][0] : i32 from vector<4xi32>
// COOP: arith.bitcast {{.*}} : i32 to f32
// COOP: arith.truncf {{.*}} : f32 to f16
// COOP: memref.store %{{.*}} : memref<4096x384xf16>
func.func @gmm_f16(%lhs: tensor<4096x256xf16>, %rhs: tensor<8x256x384xf16>, %sizes: tensor<8xi32>) -> tensor<4096x384xf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes
      : tensor<4096x256xf16>, tensor<8x256x384xf16>, tensor<8xi32> -> tensor<4096x384xf16>
  return %out : tensor<4096x384xf16>
}

// -----

// transpose_rhs: B steps are staged along k (128 rows of 32 + 8 halves)
// and read as column-major matrices; the result is f32.
// CHECK-LABEL: func.func private @gmm_f16_transposed_rhs_dispatch_0
// COOP-SAME: ejk.shared_memory_bytes = 21040 : i64
// COOP: %[[S:.*]] = memref.alloc() : memref<1280xvector<4xi32>, #gpu.address_space<workgroup>>
// COOP: gpu.subgroup_mma_load_matrix %[[S]][%{{.*}}] {leadDimension = 5 : index, transpose} : memref<1280xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// COOP: memref.store %{{.*}} : memref<4096x384xf32>
func.func @gmm_f16_transposed_rhs(%lhs: tensor<4096x256xf16>, %rhs: tensor<8x384x256xf16>, %sizes: tensor<8xi32>) -> tensor<4096x384xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs}
      : tensor<4096x256xf16>, tensor<8x384x256xf16>, tensor<8xi32> -> tensor<4096x384xf32>
  return %out : tensor<4096x384xf32>
}

// -----

// transposed_grouped_matmul: grid n tiles x k tiles x local groups; each
// workgroup reduces over its group's rows (from the group's first row, in
// steps of block_m = 32). Both operands are contiguous along the tile: A =
// lhs^T is staged as 32 rows of k and read as column-major matrices.
// CHECK-LABEL: func.func private @tgmm_f16_dispatch_0
// PORT-SAME: ejk.grid = array<i64: 6, 4, 8>
// COOP-SAME: ejk.grid = array<i64: 3, 2, 8>
// COOP-SAME: ejk.shared_memory_bytes = 17968 : i64
// CHECK: %[[GROUP:.*]] = ejk.workgroup_id 2
// COOP: %[[S:.*]] = memref.alloc() : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>>
// COOP: scf.for {{.*}} step %c32
// COOP-COUNT-4: gpu.subgroup_mma_load_matrix %[[S]][%{{.*}}] {leadDimension = 17 : index, transpose} : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// COOP-COUNT-4: gpu.subgroup_mma_load_matrix %[[S]][%{{.*}}] {leadDimension = 17 : index} : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[GROUP]], %{{.*}}, %{{.*}}] : memref<8x256x384xf32>
func.func @tgmm_f16(%lhs: tensor<4096x256xf16>, %rhs: tensor<4096x384xf16>, %sizes: tensor<8xi32>) -> tensor<8x256x384xf32> {
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes
      : tensor<4096x256xf16>, tensor<4096x384xf16>, tensor<8xi32> -> tensor<8x256x384xf32>
  return %out : tensor<8x256x384xf32>
}

// -----

// bf16 takes the portable path on either device. The group offset is
// clamped to [-local_groups, num_groups] = [-3, 6] before use, and
// existing_out is added in the epilogue.
// CHECK-LABEL: func.func private @gmm_bf16_options_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 9, 1>
// CHECK: %[[OFF:.*]] = memref.load %{{.*}} : memref<1xi32>
// CHECK: %[[O:.*]] = arith.index_cast %[[OFF]] : i32 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[O]], %c-3
// CHECK: arith.minsi %[[LO]], %c6
// CHECK: arith.extf {{.*}} : bf16 to f32
// CHECK: math.fma
// CHECK: memref.load %{{.*}} : memref<200x32xbf16>
// CHECK: arith.addf
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK-NOT: gpu.subgroup_mma
func.func @gmm_bf16_options(%lhs: tensor<200x64xbf16>, %rhs: tensor<3x64x32xbf16>, %sizes: tensor<6xi32>, %offset: tensor<1xi32>, %acc: tensor<200x32xbf16>) -> tensor<200x32xbf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%offset : tensor<1xi32>) existing_out(%acc : tensor<200x32xbf16>)
      : tensor<200x64xbf16>, tensor<3x64x32xbf16>, tensor<6xi32> -> tensor<200x32xbf16>
  return %out : tensor<200x32xbf16>
}
