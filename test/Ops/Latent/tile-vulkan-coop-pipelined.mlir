// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=BF16

// The pipelined register-softmax MLA kernel (`cooperative = 3`,
// lib/Ops/Latent/Vulkan/RegisterKernel.cpp): DeepSeek's 512 + 64 dims, 32
// heads a workgroup, 16 tokens a step, P V one step late. Two stages of 16
// whole rows (2 x 16 x 584 f16 = 2 x 1168 words: 37376 bytes) + the 8
// score parts side by side in 16 rows of 136 f32 (8704) + the layout
// probe's f16 tile (512) = 46592 bytes.

// CHECK-LABEL: func.func private @paged_mla_dispatch_0(
// CHECK-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// CHECK-SAME: ejk.shared_memory_bytes = 46592
// CHECK: memref.alloc() : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<2176xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<256xf16, #gpu.address_space<workgroup>>
// The first step's rows: one page lookup (pages of 64 hold whole steps),
// 4 latent words and 1 RoPE word a thread.
// CHECK: memref.load {{.*}} : memref<4x16xi32>
// CHECK-COUNT-5: memref.load {{.*}} : memref<294912xvector<4xi32>>
// The subgroup's 9 query tiles (4 parts of the 36 products).
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-9: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 64 : index} : memref<16384xvector<4xi32>>
// Prologue: the first rows to stage 0, stage 1 zeroed (the first step's
// P V, of a zero P, reads it), the second step's rows issued.
// CHECK-COUNT-4: memref.store {{.*}} : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: memref.store {{.*}} : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.store %cst{{.*}} : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: memref.store %cst{{.*}} : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.load {{.*}} : memref<4x16xi32>
// CHECK-COUNT-5: memref.load {{.*}} : memref<294912xvector<4xi32>>
// CHECK-NOT: arith.select {{.*}} : vector<4xi32>
// CHECK: gpu.barrier
// The third step's page, looked up a step before its rows are loaded.
// CHECK: %[[PAGE:.*]] = memref.load {{.*}} : memref<4x16xi32>
// The loop carries O (8 tiles), m and l (2 each), P of the last step (one
// A tile), the next step's words and the page of the step after.
// CHECK: :19 = scf.for {{.*}} step %c16 {{.*}} = %[[PAGE]]) -> (!gpu.mma_matrix<16x16xf32, "COp">, {{.*}}"COp">, f32, f32, f32, f32, !gpu.mma_matrix<16x16xf16, "AOp">, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, i32) {
// The step's stage: ((t0 - begin) / 16) % 2.
// CHECK: arith.remui
// Phase 1: the score part from this step's stage (9 K^T tiles), stored
// among the padded parts; the last step's P V (8 column tiles) from the
// other stage; one barrier.
// CHECK-COUNT-9: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 73 : index, transpose}
// CHECK: gpu.subgroup_mma_store_matrix {{.*}} {leadDimension = 136 : index}
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: gpu.subgroup_mma_compute %arg{{[0-9]+}}
// CHECK-NEXT: gpu.barrier
// Phase 2: the next step's rows to the other stage, the one after issued
// from the carried page (no select on its words), the page of the step
// after that looked up, the softmax over the 4 parts (each read back
// unless it is the subgroup's own, in registers); one barrier.
// CHECK: memref.store {{.*}} : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NOT: memref<4x16xi32>
// CHECK: arith.index_cast %arg{{[0-9]+}} : i32 to index
// CHECK-COUNT-5: memref.load {{.*}} : memref<294912xvector<4xi32>>
// CHECK-NOT: arith.select {{.*}} : vector<4xi32>
// CHECK: memref.load {{.*}} : memref<4x16xi32>
// CHECK-NOT: memref<4x16xi32>
// CHECK: scf.if {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">) {
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 136 : index} : memref<2176xf32, #gpu.address_space<workgroup>>
// CHECK: math.exp2
// CHECK-COUNT-8: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_insert_thread_local {{.*}} "AOp">
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// After the loop, the last step's P V from its stage ((steps + 1) % 2),
// then the partials.
// CHECK: arith.remui
// CHECK-COUNT-8: gpu.subgroup_mma_compute
// CHECK-NOT: gpu.barrier
// CHECK: memref.store {{.*}} : memref<1x4x64x2x512xf32>
func.func @paged_mla(%ql: tensor<4x64x512xf16>, %qr: tensor<4x64x64xf16>, %c: tensor<64x64x576xf16>, %lens: tensor<4xi32>, %tables: tensor<4x16xi32>, %starts: tensor<5xi32>) -> tensor<4x64x512xf16> {
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 16, block_h = 32, cooperative = 3, num_splits = 2>}
      : tensor<4x64x512xf16>, tensor<4x64x64xf16>, tensor<64x64x576xf16>, tensor<4xi32>, tensor<4x16xi32>, tensor<5xi32> -> tensor<4x64x512xf16>
  return %o : tensor<4x64x512xf16>
}

// -----

// The dense ejk.mla, bf16, 64 heads: the stage rows from the two buffers
// (no page lookup); in SPIR-V the operand matrices are bf16.
// CHECK-LABEL: func.func private @mla_dispatch_0(
// CHECK-SAME: ejk.matrix_operands = "bf16"
// CHECK-SAME: ejk.shared_memory_bytes = 46592
// CHECK: scf.for {{.*}} step %c16
// CHECK-COUNT-9: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 73 : index, transpose}
// CHECK-COUNT-8: gpu.subgroup_mma_compute %arg{{[0-9]+}}
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<65536xvector<4xi32>>
// CHECK: memref.load {{.*}} : memref<8192xvector<4xi32>>
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// BF16-LABEL: spirv.module @__spv__mla_dispatch_0 {{.*}}BFloat16CooperativeMatrixKHR
// BF16: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
func.func @mla(%ql: tensor<2x1x64x512xbf16>, %qr: tensor<2x1x64x64xbf16>, %c: tensor<2x512x512xbf16>, %kr: tensor<2x512x64xbf16>) -> tensor<2x1x64x512xbf16> {
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 16, block_h = 32, cooperative = 3>}
      : tensor<2x1x64x512xbf16>, tensor<2x1x64x64xbf16>, tensor<2x512x512xbf16>, tensor<2x512x64xbf16> -> tensor<2x1x64x512xbf16>
  return %o : tensor<2x1x64x512xbf16>
}
