// The cooperative-matrix kernel's K/V buffers, row tiles and causal order
// on a device with NVIDIA's matrix layout (register softmax) and 48 KiB of
// shared memory.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// d64 without a causal mask, 256 x 64 blocks of 8 subgroups (two row
// tiles each; the heuristic was 256 x 64 x 8 until it became 128 x 64 x 4
// of one buffer, tile-vulkan-pipelined.mlir). Two K/V buffers of 64 + 64 rows of 72
// halves (9 vectors) fit (2 * 1152 vectors = 36 KiB, as the 256 staged Q
// rows, + the 1.5 KiB probe). The first block is staged before the loop;
// in the loop the next block is stored into the other buffer with no
// barrier before the matrix products, and one barrier ends each block.
// CHECK-LABEL: func.func private @two_buffers_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 38400 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: memref.alloc() : memref<2304xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<2304xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_compute
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @two_buffers(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 256, block_k = 64, num_subgroups = 8>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}

// -----

// d128, 128 x 64 blocks: two buffers of 64 + 64 rows of 136 halves would
// take 68 KiB, so one (max(128, 64 + 64) rows = 2176 vectors) and a second
// barrier per block, between staging and the products (two blocks an
// iteration: a subgroup owns one row tile).
// CHECK-LABEL: func.func private @one_buffer_dispatch_0
// CHECK-SAME: ejk.shared_memory_bytes = 36352 : i64
// CHECK: memref.alloc() : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: memref.store %{{.*}} : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @one_buffer(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}

// -----

// block_q = 32 * num_subgroups: each subgroup owns two 16-row tiles, so the
// loop carries 2 x 4 O tiles, 2 x (2 maxima + 2 sums) and (pipelined) 2 x 4
// P tiles of the previous block, and each K^T tile loaded from the stage
// feeds two products, one per row tile.
// CHECK-LABEL: func.func private @row_tiles_dispatch_0
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, f32, f32, f32, f32, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, f32, f32, f32, f32, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, vector<4xi32>
// CHECK: %[[KT:.*]] = gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 9 : index, transpose}
// CHECK-NEXT: gpu.subgroup_mma_compute %{{.*}}, %[[KT]], %{{.*}}
// CHECK-NEXT: gpu.subgroup_mma_compute %{{.*}}, %[[KT]], %{{.*}}
func.func @row_tiles(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 4>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}

// -----

// Causal: workgroups are renumbered longest-first. With 4 query blocks, 3
// heads and 2 batches the linear id x + 4 * (y + 3 * z) of rank
// linear / 6 runs query block 3 - rank of head-batch linear % 6.
// CHECK-LABEL: func.func private @longest_first_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 4, 3, 2>
// CHECK: %[[X:.*]] = ejk.workgroup_id 0
// CHECK: %[[Y:.*]] = ejk.workgroup_id 1
// CHECK: %[[Z:.*]] = ejk.workgroup_id 2
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[YZ:.*]] = arith.muli %[[C3]], %[[Z]]
// CHECK: %[[HB:.*]] = arith.addi %[[Y]], %[[YZ]]
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[XS:.*]] = arith.muli %[[C4]], %[[HB]]
// CHECK: %[[LIN:.*]] = arith.addi %[[X]], %[[XS]]
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[RANK:.*]] = arith.divsi %[[LIN]], %[[C6]]
// CHECK: arith.remui %[[LIN]]
// CHECK: %[[LAST:.*]] = arith.constant 3 : index
// CHECK: arith.subi %[[LAST]], %[[RANK]]
func.func @longest_first(%q: tensor<2x512x3x64xf16>, %k: tensor<2x512x3x64xf16>, %v: tensor<2x512x3x64xf16>) -> tensor<2x512x3x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<2x512x3x64xf16>, tensor<2x512x3x64xf16>, tensor<2x512x3x64xf16> -> tensor<2x512x3x64xf16>
  return %o : tensor<2x512x3x64xf16>
}

// -----

// d64, 64 x 64 blocks of 4 subgroups: two buffers would fit, but a
// workgroup of 128 threads keeps one (the larger stage halves how many
// such workgroups an SM holds): max(64, 64 + 64) rows of 9 vectors, and
// the barrier between staging and the products (two blocks an iteration).
// CHECK-LABEL: func.func private @small_workgroup_dispatch_0
// CHECK-SAME: ejk.shared_memory_bytes = 19968 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK: memref.alloc() : memref<1152xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: memref.store %{{.*}} : memref<1152xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<1152xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @small_workgroup(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 64, block_k = 64, num_subgroups = 4>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
