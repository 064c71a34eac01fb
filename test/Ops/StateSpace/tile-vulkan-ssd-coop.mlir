// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// The chunk-parallel SSD on 16x16x16 f16 cooperative matrices for f16
// mamba2 (B1 L2048 H32 P64 N128), unpadded stages (chunk_parallel = 1,
// cooperative = 1, chunks of 64, block_p 64, block_n 32, 16 subgroups:
// the heuristic's blocks; the heuristic pads the stages, @padded below).
// f32 inputs and bf16 stay on the SIMT kernels.

// Chunk states: X w (64 x 64) and B (64 x 128) staged as f16, a 16 x 16
// f32 tile per subgroup; each subgroup owns 2 of the 4 x 8 state tiles,
// each the sum of 4 products over the chunk's steps, (X w)^T read
// column-major. head_dim is one whole block: each tile is stored straight
// from the matrix to the states temporary (rows d_state apart), with no
// f32 stage and no barrier (the declared shared memory still counts the
// stage that partial blocks use).
// CHECK-LABEL: func.func private @ssd_dispatch_0_chunk_states(
// CHECK-SAME: ejk.grid = array<i64: 1, 1024, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 41728 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 512, 1, 1>
// CHECK: memref.alloc() : memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.alloc() : memref<8192xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// Each thread's 8 X and 16 B loads are issued before its first store.
// CHECK-COUNT-8: memref.load %{{.*}} : memref<1x2048x32x64xf16>
// CHECK-NOT: memref.store
// CHECK-COUNT-16: memref.load %{{.*}} : memref<1x2048x1x128xf16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.barrier
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 64 : index, transpose} : memref<4096xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}} {leadDimension = 128 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<1x32x32x64x128xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}} {leadDimension = 128 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<1x32x32x64x128xf32>
// CHECK-NOT: gpu.subgroup_mma_store_matrix
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<1x32x32xf32>
// CHECK-LABEL: func.func private @ssd_dispatch_0_state_pass(

// Outputs: X and M (f16, 64 x 64), the exp(a) C and state n-chunks (f16,
// 64 x 32), Y (f32, 64 x 64): 41728 bytes. Each subgroup owns 1 of the 4 x
// 4 tiles of Y: M X over 4 steps, then per n-chunk C S^T over 2 (S^T read
// column-major), stored to the staged Y that the threads finish.
// CHECK-LABEL: func.func private @ssd_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 1, 1024, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 41728 : i64
// CHECK-COUNT-2: memref.alloc() : memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<2048xf16, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 64 : index} : memref<4096xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 64 : index} : memref<4096xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: memref.load %{{.*}} : memref<1x32x32x64x128xf32>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 32 : index} : memref<2048xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 32 : index, transpose} : memref<2048xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}} {leadDimension = 64 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.subgroup_mma_store_matrix
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<1x2048x32x64xf16>
func.func @ssd(%x: tensor<1x2048x32x64xf16>, %dt: tensor<1x2048x32xf16>, %A: tensor<32xf32>, %B: tensor<1x2048x1x128xf16>) -> tensor<1x2048x32x64xf16> {
  %y = ejk.ssd %x, %dt, %A, %B, %B {dt_softplus, config = #ejk.config<block_n = 32, block_p = 64, chunk_parallel = 1, chunk_size = 64, cooperative = 1, num_subgroups = 16>} : tensor<1x2048x32x64xf16>, tensor<1x2048x32xf16>, tensor<32xf32>, tensor<1x2048x1x128xf16>, tensor<1x2048x1x128xf16> -> tensor<1x2048x32x64xf16>
  return %y : tensor<1x2048x32x64xf16>
}

// -----

// bf16 (MLIR's matrices have no bf16) and f32 keep the SIMT chunk kernels.
// CHECK-LABEL: func.func private @bf16_dispatch_0(
// CHECK-NOT: subgroup_mma
// CHECK-LABEL: func.func @bf16(
func.func @bf16(%x: tensor<1x256x2x64xbf16>, %dt: tensor<1x256x2xbf16>, %A: tensor<2xf32>, %B: tensor<1x256x1x64xbf16>) -> tensor<1x256x2x64xbf16> {
  %y = ejk.ssd %x, %dt, %A, %B, %B : tensor<1x256x2x64xbf16>, tensor<1x256x2xbf16>, tensor<2xf32>, tensor<1x256x1x64xbf16>, tensor<1x256x1x64xbf16> -> tensor<1x256x2x64xbf16>
  return %y : tensor<1x256x2x64xbf16>
}

// -----

// head_dim 48 in blocks of 32: the second block ends past head_dim, so the
// chunk states go through each subgroup's f32 stage (16 x 16 per
// subgroup) and the threads store only the columns inside head_dim.
// CHECK-LABEL: func.func private @partial_dispatch_0_chunk_states(
// CHECK-SAME: ejk.grid = array<i64: 2, 8, 1>
// CHECK: memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}} {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}} : memref<1x4x2x48x64xf32>
// CHECK-LABEL: func.func private @partial_dispatch_0_state_pass(
func.func @partial(%x: tensor<1x200x2x48xf16>, %dt: tensor<1x200x2xf16>, %A: tensor<2xf32>, %B: tensor<1x200x1x64xf16>) -> tensor<1x200x2x48xf16> {
  %y = ejk.ssd %x, %dt, %A, %B, %B {config = #ejk.config<block_n = 32, block_p = 32, chunk_size = 64, num_subgroups = 4, chunk_parallel = 1, cooperative = 1>} : tensor<1x200x2x48xf16>, tensor<1x200x2xf16>, tensor<2xf32>, tensor<1x200x1x64xf16>, tensor<1x200x1x64xf16> -> tensor<1x200x2x48xf16>
  return %y : tensor<1x200x2x48xf16>
}

// -----

// Padded matrix stages (cooperative = 2), the heuristic's choice on a
// device with cooperative matrices (0.1327 against 0.1889 ms unpadded on
// the H200): the same kernels with every f16 stage's rows 8 halves longer, as the
// attention kernels pad theirs. Chunk states: X w rows of 72, B rows of
// 136 halves: 4 * 3 * 64 + 2 * 64 * (72 + 136) + 4 * 16 * 256 = 43776
// bytes; the matrix loads' leading dimensions follow, and each staged
// element sits at row * stride + column.
// CHECK-LABEL: func.func private @padded_dispatch_0_chunk_states(
// CHECK-SAME: ejk.shared_memory_bytes = 43776 : i64
// CHECK: memref.alloc() : memref<4608xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.alloc() : memref<8704xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// CHECK: gpu.barrier
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 72 : index, transpose} : memref<4608xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 136 : index} : memref<8704xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// Outputs: X and M rows of 72, the exp(a) C and state n-chunks rows of 40
// halves: 2 * (64 * 72 * 2 + 128 * 40) + 4 * (64 * 64 + 3 * 64) = 45824
// bytes; X's element (t, c) stored at t * 72 + c.
// CHECK-LABEL: func.func private @padded_dispatch_0(
// CHECK-SAME: ejk.shared_memory_bytes = 45824 : i64
// CHECK-COUNT-2: memref.alloc() : memref<4608xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<2560xf16, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: %[[T:.*]] = arith.divui %[[I:.*]], %c64
// CHECK: %[[PAD:.*]] = arith.muli %[[T]], %c8
// CHECK: %[[AT:.*]] = arith.addi %[[I]], %[[PAD]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[AT]]] : memref<4608xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 72 : index} : memref<4608xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 72 : index} : memref<4608xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 40 : index} : memref<2560xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 40 : index, transpose} : memref<2560xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
func.func @padded(%x: tensor<1x2048x32x64xf16>, %dt: tensor<1x2048x32xf16>, %A: tensor<32xf32>, %B: tensor<1x2048x1x128xf16>) -> tensor<1x2048x32x64xf16> {
  %y = ejk.ssd %x, %dt, %A, %B, %B {dt_softplus} : tensor<1x2048x32x64xf16>, tensor<1x2048x32xf16>, tensor<32xf32>, tensor<1x2048x1x128xf16>, tensor<1x2048x1x128xf16> -> tensor<1x2048x32x64xf16>
  return %y : tensor<1x2048x32x64xf16>
}
