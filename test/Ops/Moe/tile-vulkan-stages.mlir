// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// The cooperative-matrix path's operand stages and output stages
// (Moe/Vulkan/Layout.h). num_stages = 2: one buffer holds two (A, B)
// stages of 128 x (32 + 8) halves each (640 + 640 vectors); the first step
// is stored to stage 0 before the loop, the loop stores the next step to
// the other stage, loads the step after next, multiplies from this stage
// and ends with the only barrier of the step. 2 x 20480 + 4 x (8 + 1 + 128
// + 3) = 41520 bytes.
// CHECK-LABEL: func.func private @two_stages_dispatch_0
// CHECK-SAME: ejk.shared_memory_bytes = 41520 : i64
// CHECK: %[[S:.*]] = memref.alloc() : memref<2560xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[S]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32{{.*}} iter_args({{.*}}, %[[CUR:.*]] = %c0{{.*}}) ->
// CHECK: %[[OTHER:.*]] = arith.subi %c1{{.*}}, %[[CUR]]
// CHECK: arith.muli %[[OTHER]], %c1280
// CHECK-COUNT-8: memref.store %{{.*}}, %[[S]]
// CHECK-NOT: gpu.barrier
// CHECK: arith.muli %[[CUR]], %c10240
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix %[[S]]
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-16: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield {{.*}}, %[[OTHER]] :
// CHECK-COUNT-4: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]][%{{.*}}] {leadDimension = 17 : index}
func.func @two_stages(%lhs: tensor<4096x256xf16>, %rhs: tensor<8x384x256xf16>, %sizes: tensor<8xi32>) -> tensor<4096x384xf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs, config = #ejk.config<block_m = 128, block_n = 128, block_k = 32, num_subgroups = 4, num_stages = 2>}
      : tensor<4096x256xf16>, tensor<8x384x256xf16>, tensor<8xi32> -> tensor<4096x384xf16>
  return %out : tensor<4096x384xf16>
}

// -----

// One stage of steps of 16: A and B take 128 x (16 + 8) halves each (384 +
// 384 vectors, 12288 bytes); a subgroup's four accumulators along n (16 x
// 68 f32 each, 17408 bytes for four subgroups) do not fit there, two at a
// time (16 x 36, 9216 bytes) do.
// CHECK-LABEL: func.func private @one_stage_two_out_tiles_dispatch_0
// CHECK-SAME: ejk.shared_memory_bytes = 12848 : i64
// CHECK: %[[S:.*]] = memref.alloc() : memref<768xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} step %c16
// CHECK-COUNT-2: gpu.barrier
// CHECK: scf.yield
// CHECK-COUNT-2: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]][%{{.*}}] {leadDimension = 9 : index}
// CHECK: gpu.barrier
// CHECK: memref.load %[[S]]
// CHECK: gpu.barrier
// CHECK-COUNT-2: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]][%{{.*}}] {leadDimension = 9 : index}
func.func @one_stage_two_out_tiles(%lhs: tensor<4096x256xf16>, %rhs: tensor<8x384x256xf16>, %sizes: tensor<8xi32>) -> tensor<4096x384xf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs, config = #ejk.config<block_m = 128, block_n = 128, block_k = 16, num_subgroups = 4>}
      : tensor<4096x256xf16>, tensor<8x384x256xf16>, tensor<8xi32> -> tensor<4096x384xf16>
  return %out : tensor<4096x384xf16>
}

// -----

// 64 x 64 tiles of steps of 16 over 4 subgroups (2 x 2 accumulators each):
// the stage is 64 x (16 + 8) + 16 x (64 + 8) halves (192 + 144 vectors,
// 5376 bytes), so the accumulators go out one at a time (16 x 20 f32 a
// subgroup, 5120 bytes).
// CHECK-LABEL: func.func private @one_out_tile_dispatch_0
// CHECK-SAME: ejk.shared_memory_bytes = 5936 : i64
// CHECK: %[[S:.*]] = memref.alloc() : memref<336xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: scf.yield
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]][%{{.*}}] {leadDimension = 5 : index}
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-3: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]][%{{.*}}] {leadDimension = 5 : index}
func.func @one_out_tile(%lhs: tensor<4096x256xf16>, %rhs: tensor<8x256x384xf16>, %sizes: tensor<8xi32>) -> tensor<4096x384xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_n = 64, block_k = 16, num_subgroups = 4>}
      : tensor<4096x256xf16>, tensor<8x256x384xf16>, tensor<8xi32> -> tensor<4096x384xf32>
  return %out : tensor<4096x384xf32>
}

// -----

// transposed_grouped_matmul with two stages: A = lhs^T and B are staged as
// 32 rows of 128 + 8 halves (544 + 544 vectors a stage).
// CHECK-LABEL: func.func private @tgmm_two_stages_dispatch_0
// CHECK-SAME: ejk.shared_memory_bytes = 35376 : i64
// CHECK: %[[S:.*]] = memref.alloc() : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: scf.for {{.*}} step %c32
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[S]][%{{.*}}] {leadDimension = 17 : index, transpose}
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @tgmm_two_stages(%lhs: tensor<4096x256xf16>, %rhs: tensor<4096x384xf16>, %sizes: tensor<8xi32>) -> tensor<8x256x384xf32> {
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 32, block_n = 128, block_k = 128, num_subgroups = 4, num_stages = 2>}
      : tensor<4096x256xf16>, tensor<4096x384xf16>, tensor<8xi32> -> tensor<8x256x384xf32>
  return %out : tensor<8x256x384xf32>
}
