// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=PORTABLE

// The cooperative-matrix MLA kernel (lib/Ops/Latent/Vulkan/CoopKernel.cpp)
// on a device with 16x16x16 f16 matrices: DeepSeek's 512 + 64 dims, 64
// heads -> 32 heads (two 16-row matrices) a workgroup, 8 subgroups (256
// threads), 32 tokens a step: 2 head tiles x 2 token tiles = 4 score
// matrices, each shared by 2 subgroups (18 of its 36 products each); each
// subgroup owns 64 of the 512 latent columns. Workgroup memory: 32 latent
// rows of 520 f16 (33280 bytes) + score parts 8192 + P 2048 + row factors
// 2048 = 45568. Without cooperative matrices the portable kernel runs.

// CHECK-LABEL: func.func private @paged_mla_dispatch_0_combine
// CHECK-LABEL: func.func private @paged_mla_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 16, 4, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 45568
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: builtin.unrealized_conversion_cast %arg0 : memref<4x64x512xf16> to memref<16384xvector<4xi32>>
// CHECK: builtin.unrealized_conversion_cast %arg2 : memref<64x64x576xf16> to memref<294912xvector<4xi32>>
// CHECK: memref.alloc() : memref<2080xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// The first step's latent rows, 16 bytes a thread-load, zeros past the end.
// CHECK: memref.load {{.*}} : memref<294912xvector<4xi32>>
// CHECK: arith.select {{.*}} : vector<4xi32>
// The subgroup's 18 query tiles, loaded once (part 0: latent only).
// CHECK: scf.if
// CHECK-COUNT-18: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 64 : index} : memref<16384xvector<4xi32>>
// CHECK: } else {
// CHECK: scf.for {{.*}} step %c32
// The step's rows go to the stage, the next step's loads are issued.
// CHECK: memref.store {{.*}} : memref<2080xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<294912xvector<4xi32>>
// Part 0: 18 latent K^T tiles from the stage (rows of 65 vectors).
// CHECK: scf.if
// CHECK-COUNT-18: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 65 : index, transpose} : memref<2080xvector<4xi32>, #gpu.address_space<workgroup>>
// Part 1: 14 latent tiles, then 4 RoPE tiles straight from the cache.
// CHECK: } else {
// CHECK-COUNT-14: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 65 : index, transpose}
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 72 : index, transpose} : memref<294912xvector<4xi32>>
// CHECK: gpu.subgroup_mma_store_matrix {{.*}} {leadDimension = 32 : index}
// CHECK: gpu.barrier
// Softmax: the parts summed, the row max over 8 threads (3 shuffles).
// CHECK: memref.load {{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load {{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: arith.addf
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK: gpu.barrier
// O * alpha (2 head tiles x 4 column tiles), then P V: 2 token tiles x 4
// column tiles x 2 head tiles, V tiles from the stage.
// CHECK-COUNT-8: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 65 : index} : memref<2080xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-COUNT-16: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: scf.yield
// The epilogue: O / l through the score stage into the split's partials.
// CHECK: gpu.subgroup_mma_store_matrix {{.*}} {leadDimension = 16 : index}
// CHECK: memref.store {{.*}} : memref<1x4x64x8x512xf32>
// PORTABLE-LABEL: func.func private @paged_mla_dispatch_0(
// PORTABLE-NOT: gpu.subgroup_mma_compute
// PORTABLE: return
// SPIRV: spirv.KHR.CooperativeMatrixLoad
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd
func.func @paged_mla(%ql: tensor<4x64x512xf16>, %qr: tensor<4x64x64xf16>, %c: tensor<64x64x576xf16>, %lens: tensor<4xi32>, %tables: tensor<4x16xi32>, %starts: tensor<5xi32>) -> tensor<4x64x512xf16> {
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts
      : tensor<4x64x512xf16>, tensor<4x64x64xf16>, tensor<64x64x576xf16>, tensor<4xi32>, tensor<4x16xi32>, tensor<5xi32> -> tensor<4x64x512xf16>
  return %o : tensor<4x64x512xf16>
}

// -----

// The dense ejk.mla reads its latent and RoPE caches separately.
// CHECK-LABEL: func.func private @mla_dispatch_0_combine
// CHECK-LABEL: func.func private @mla_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 1, 2>
// CHECK-SAME: ejk.shared_memory_bytes = 45056
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// 16 heads: 18 products a score do not split over 4 subgroups, so the step
// is 64 tokens (4 score matrices, 2 parts of 9): part 1 reads 7 latent
// tiles from the stage and the 2 RoPE tiles from their own buffer.
// CHECK: scf.for {{.*}} step %c64
// CHECK: } else {
// CHECK-COUNT-7: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 33 : index, transpose}
// CHECK-COUNT-2: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 4 : index, transpose} : memref<4096xvector<4xi32>>
// Softmax: 16 threads a row (4 shuffles).
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: memref.store {{.*}} : memref<2x1x16x2x256xf32>
func.func @mla(%ql: tensor<2x1x16x256xf16>, %qr: tensor<2x1x16x32xf16>, %c: tensor<2x512x256xf16>, %kr: tensor<2x512x32xf16>) -> tensor<2x1x16x256xf16> {
  %o = ejk.mla %ql, %qr, %c, %kr
      : tensor<2x1x16x256xf16>, tensor<2x1x16x32xf16>, tensor<2x512x256xf16>, tensor<2x512x32xf16> -> tensor<2x1x16x256xf16>
  return %o : tensor<2x1x16x256xf16>
}
