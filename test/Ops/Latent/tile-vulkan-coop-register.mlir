// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=BF16

// The register-softmax MLA kernel (`cooperative = 2`,
// lib/Ops/Latent/Vulkan/RegisterKernel.cpp): DeepSeek's 512 + 64 dims, 32
// heads a workgroup (two 16-row tiles), 8 subgroups, 32 tokens a step. The
// stage holds whole rows (latent | RoPE, 584 f16 = 73 words a row:
// 37376 bytes) + one f32 score tile per subgroup (8192) + the layout
// probe's f16 tile (512) = 46080 bytes. The dispatch requires NVIDIA's
// matrix layout.

// CHECK-LABEL: func.func private @paged_mla_dispatch_0_combine
// CHECK-LABEL: func.func private @paged_mla_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 4, 4, 1>
// CHECK-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// CHECK-SAME: ejk.shared_memory_bytes = 46080
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: memref.alloc() : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<256xf16, #gpu.address_space<workgroup>>
// The first step's rows: 8 latent words and 1 RoPE word a thread; a row
// past the end reads the last token's row (finite; masked), so no word
// takes a select.
// CHECK-COUNT-9: memref.load {{.*}} : memref<294912xvector<4xi32>>
// CHECK-NOT: arith.select {{.*}} : vector<4xi32>
// The layout probe: written, read back as matrices, checked over the
// subgroup (5 shuffles).
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 16 : index} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 16 : index} : memref<256xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-5: gpu.shuffle  xor
// The subgroup's 18 query tiles, loaded once: part 1 takes 14 latent and
// the 4 RoPE tiles.
// CHECK: scf.if
// CHECK-COUNT-18: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 64 : index} : memref<16384xvector<4xi32>>
// CHECK: } else {
// CHECK-COUNT-14: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 64 : index}
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 8 : index} : memref<2048xvector<4xi32>>
// CHECK: scf.for {{.*}} step %c32
// The step's rows to the stage (73 words apart), the next step's issued:
// its page looked up once (pages of 64 hold whole 32-token steps), then
// the 9 words of this thread's share from it.
// CHECK: memref.store {{.*}} : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// Each word's address is the step's row base plus min(row, last row) rows
// of 72 words plus the word: no per-word token, clamp or slot arithmetic.
// CHECK: memref.load {{.*}} : memref<4x16xi32>
// CHECK-NOT: memref<4x16xi32>
// CHECK: %[[BASE:.*]] = arith.muli %{{.*}}, %c72{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.minsi
// CHECK-NEXT: %[[C72:.*]] = arith.constant 72 : index
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[ROW]], %[[C72]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[BASE]], %[[OFF]] : index
// CHECK-NEXT: %[[WORD:.*]] = arith.addi %[[AT]], %{{.*}} : index
// CHECK-NEXT: memref.load %{{.*}}[%[[WORD]]] : memref<294912xvector<4xi32>>
// CHECK-COUNT-8: memref.load {{.*}} : memref<294912xvector<4xi32>>
// CHECK-NOT: memref<4x16xi32>
// CHECK-NOT: arith.select {{.*}} : vector<4xi32>
// S: 18 K^T tiles, latent and RoPE alike, from the stage, no branch; two
// accumulators summed; the part stored in slot (part x 2 + head tile) x 2
// + token tile (the subgroup's head tile is its output's).
// CHECK-NOT: scf.if
// CHECK-COUNT-18: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 73 : index, transpose} : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: %[[SCORES:.*]] = gpu.subgroup_mma_elementwise  addf
// CHECK: %[[SLOT:.*]] = arith.muli {{.*}}, %c256{{.*}} : index
// CHECK-NEXT: gpu.subgroup_mma_store_matrix %[[SCORES]], %{{.*}}[%[[SLOT]]] {leadDimension = 16 : index}
// CHECK-NEXT: gpu.barrier
// Softmax on the matrix elements: 2 token tiles x 2 parts, each read back
// unless it is the subgroup's own (then from registers), the row max over
// the 4 lanes of a row (2 shuffles per row half), exp2.
// CHECK-COUNT-4: scf.if {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">) {
// CHECK-NEXT: scf.yield %[[SCORES]]
// CHECK-NEXT: } else {
// CHECK-NEXT: gpu.subgroup_mma_load_matrix {{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: math.exp2
// O * alpha over the subgroup's 8 column tiles, P built in registers, then
// P V: 2 token tiles x 8 column tiles, V tiles from the stage.
// CHECK-COUNT-8: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_insert_thread_local {{.*}} "AOp">
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 73 : index} : memref<2336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-COUNT-16: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: scf.yield
// The epilogue: l summed over a row's 4 lanes, O / l from the lanes' own
// elements into the split's partials.
// CHECK: gpu.shuffle  xor
// CHECK: gpu.subgroup_mma_extract_thread_local
// CHECK: memref.store {{.*}} : memref<1x4x64x2x512xf32>
// SPIRV: spirv.KHR.CooperativeMatrixLoad
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd
func.func @paged_mla(%ql: tensor<4x64x512xf16>, %qr: tensor<4x64x64xf16>, %c: tensor<64x64x576xf16>, %lens: tensor<4xi32>, %tables: tensor<4x16xi32>, %starts: tensor<5xi32>) -> tensor<4x64x512xf16> {
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts {config = #ejk.config<block_k = 32, block_h = 32, cooperative = 2, num_splits = 2>}
      : tensor<4x64x512xf16>, tensor<4x64x64xf16>, tensor<64x64x576xf16>, tensor<4xi32>, tensor<4x16xi32>, tensor<5xi32> -> tensor<4x64x512xf16>
  return %o : tensor<4x64x512xf16>
}

// -----

// The dense ejk.mla with 16 heads (one head tile) and bf16: the stage rows
// take their latent words from one buffer and their RoPE words from the
// other; 2 score matrices in 4 parts of 9 products; each subgroup owns 4
// of the 32 column tiles. In SPIR-V the operand matrices are bf16.
// CHECK-LABEL: func.func private @mla_dispatch_0(
// CHECK-SAME: ejk.matrix_operands = "bf16"
// CHECK-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// CHECK: memref.load {{.*}} : memref<65536xvector<4xi32>>
// CHECK: memref.load {{.*}} : memref<8192xvector<4xi32>>
// CHECK: scf.for {{.*}} step %c32
// CHECK-COUNT-9: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 73 : index, transpose}
// CHECK: gpu.barrier
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix {{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: gpu.subgroup_mma_elementwise  mulf
// CHECK-COUNT-8: gpu.subgroup_mma_compute
// CHECK: scf.yield
// CHECK: memref.store {{.*}} : memref<2x1x16x512xbf16>
// BF16-LABEL: spirv.module @__spv__mla_dispatch_0 {{.*}}BFloat16CooperativeMatrixKHR
// BF16: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
func.func @mla(%ql: tensor<2x1x16x512xbf16>, %qr: tensor<2x1x16x64xbf16>, %c: tensor<2x512x512xbf16>, %kr: tensor<2x512x64xbf16>) -> tensor<2x1x16x512xbf16> {
  %o = ejk.mla %ql, %qr, %c, %kr {config = #ejk.config<block_k = 32, block_h = 16, cooperative = 2>}
      : tensor<2x1x16x512xbf16>, tensor<2x1x16x64xbf16>, tensor<2x512x512xbf16>, tensor<2x512x64xbf16> -> tensor<2x1x16x512xbf16>
  return %o : tensor<2x1x16x512xbf16>
}

// -----

// Without a config the heuristic takes this kernel where the device has
// NVIDIA's layout (tile-vulkan-coop.mlir: cooperative = 1 without it):
// 2 rows x 4 chunks of 32 heads, split until about 128 workgroups (16
// splits: a grid of 64 x 2).
// CHECK-LABEL: func.func private @heuristic_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 64, 2, 1>
// CHECK-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// CHECK-SAME: ejk.shared_memory_bytes = 46080
// CHECK: scf.for {{.*}} step %c32
func.func @heuristic(%ql: tensor<2x128x512xf16>, %qr: tensor<2x128x64xf16>, %c: tensor<128x64x576xf16>, %lens: tensor<2xi32>, %tables: tensor<2x64xi32>, %starts: tensor<3xi32>) -> tensor<2x128x512xf16> {
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts
      : tensor<2x128x512xf16>, tensor<2x128x64xf16>, tensor<128x64x576xf16>, tensor<2xi32>, tensor<2x64xi32>, tensor<3xi32> -> tensor<2x128x512xf16>
  return %o : tensor<2x128x512xf16>
}
