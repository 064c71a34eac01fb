// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=PORTABLE

// The cooperative-matrix MLA kernel (lib/Ops/Latent/Vulkan/CoopKernel.cpp)
// on a device with 16x16x16 f16 matrices: DeepSeek's 512 + 64 dims, 64
// heads -> 32 heads (two 16-row matrices) a workgroup, 8 subgroups (256
// threads), 64 tokens a step (4 token tiles x 2 head tiles = one score
// matrix per subgroup); each subgroup owns 64 of the 512 latent columns.
// Without cooperative matrices the portable kernel runs.

// CHECK-LABEL: func.func private @paged_mla_dispatch_0_combine
// CHECK-LABEL: func.func private @paged_mla_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 8, 4, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 30720
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// Queries and cache are read as matrices through 16-byte views.
// CHECK: builtin.unrealized_conversion_cast %arg0 : memref<4x64x512xf16> to memref<16384xvector<4xi32>>
// CHECK: builtin.unrealized_conversion_cast %arg2 : memref<64x64x576xf16> to memref<294912xvector<4xi32>>
// CHECK: scf.for {{.*}} step %c64
// The score matrix: 32 latent + 4 RoPE products; K^T read column-major.
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 72 : index, transpose} : memref<294912xvector<4xi32>>
// CHECK-COUNT-36: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix
// CHECK: gpu.barrier
// Softmax: the row max over 8 threads (3 shuffles), the sum likewise.
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK: math.exp
// CHECK: gpu.barrier
// O * alpha for 2 head tiles x 4 column tiles, then P V: 4 token tiles x
// 4 column tiles x 2 head tiles, V straight from the cache (row-major).
// CHECK-COUNT-8: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 72 : index} : memref<294912xvector<4xi32>>
// CHECK-COUNT-32: gpu.subgroup_mma_compute
// CHECK: scf.yield
// The last, partial step stages its values with the rows past the end
// zeroed, and reads them from workgroup memory.
// CHECK: scf.if
// CHECK: arith.select {{.*}} : vector<4xi32>
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 8 : index} : memref<1024xvector<4xi32>, #gpu.address_space<workgroup>>
// The epilogue: O / l through the score stage into the split's partials.
// CHECK: gpu.subgroup_mma_store_matrix {{.*}} {leadDimension = 16 : index}
// CHECK: memref.store {{.*}} : memref<1x4x64x4x512xf32>
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

// 16 heads: one head tile, 128 tokens a step (8 token tiles), 16 threads a
// row; the dense ejk.mla reads its latent and RoPE caches separately.
// CHECK-LABEL: func.func private @mla_dispatch_0(
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: scf.for {{.*}} step %c128
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 32 : index, transpose} : memref<32768xvector<4xi32>>
// CHECK-COUNT-16: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 4 : index, transpose} : memref<4096xvector<4xi32>>
// CHECK-COUNT-2: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK-NOT: ejk.dispatch
// CHECK: memref.store {{.*}} : memref<2x1x16x256xf16>
func.func @mla(%ql: tensor<2x1x16x256xf16>, %qr: tensor<2x1x16x32xf16>, %c: tensor<2x512x256xf16>, %kr: tensor<2x512x32xf16>) -> tensor<2x1x16x256xf16> {
  %o = ejk.mla %ql, %qr, %c, %kr
      : tensor<2x1x16x256xf16>, tensor<2x1x16x32xf16>, tensor<2x512x256xf16>, tensor<2x512x32xf16> -> tensor<2x1x16x256xf16>
  return %o : tensor<2x1x16x256xf16>
}
