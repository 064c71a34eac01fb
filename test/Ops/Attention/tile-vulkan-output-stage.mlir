// The register softmax's prologue and epilogue in dense flash attention
// (CoopKernel.cpp, CoopSoftmax.cpp's finalizeThroughOutputStage) on a device
// with NVIDIA's matrix layout and 48 KiB of shared memory.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// d128, 128 x 64 x 8: the first key block's K words (4 a thread; its V
// rows are zeros, pipelined) are loaded before Q's 8, so that both loads
// are in flight together. After the loop each subgroup stores its 8
// normalized O tiles as f16 accumulators into the stage (rows 136 halves,
// 17 words, apart) after a barrier (the last block's P V read V there),
// and after another barrier the workgroup writes the block's 128 rows in
// 16-byte words through the output's word view (8 a thread), with no
// store of single halves left; the layout probe also reads an f16
// accumulator, whose element order the staged output relies on; lse is
// still stored from the lanes.
// CHECK-LABEL: func.func private @staged_dispatch_0
// CHECK-SAME: %[[OUT:arg3]]: memref<1x256x2x128xf16>, %[[LSE:arg4]]: memref<1x2x256xf32>
// CHECK: %[[QV:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<1x256x2x128xf16> to memref<8192xvector<4xi32>>
// CHECK: %[[KV:.*]] = builtin.unrealized_conversion_cast %arg1
// CHECK: %[[OV:.*]] = builtin.unrealized_conversion_cast %[[OUT]] : memref<1x256x2x128xf16> to memref<8192xvector<4xi32>>
// CHECK: %[[STAGE:.*]] = memref.alloc() : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.load %[[KV]]
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: memref.load %[[QV]]
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 16 : index} : memref<256xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "COp">
// CHECK: %[[LOOP:.*]]:24 = scf.for
// CHECK: gpu.subgroup_mma_compute %[[LOOP]]#12
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[LSE]]
// CHECK-COUNT-8: gpu.subgroup_mma_store_matrix %{{.*}}, %[[STAGE]][%{{.*}}] {leadDimension = 17 : index} : !gpu.mma_matrix<16x16xf16, "COp">, memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: memref.store %{{.*}}, %[[OUT]]
// CHECK-COUNT-8: memref.store %{{.*}}, %[[OV]][%{{.*}}] : memref<8192xvector<4xi32>>
// CHECK-NOT: memref.store
// CHECK: return
func.func @staged(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> (tensor<1x256x2x128xf16>, tensor<1x2x256xf32>) {
  %o, %l = ejk.flash_attention %q, %k, %v : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>, tensor<1x2x256xf32>
  return %o, %l : tensor<1x256x2x128xf16>, tensor<1x2x256xf32>
}

// -----

// seq_q 200 is not a whole number of 128-row blocks: each 16-byte word of
// the output is written only for rows before seq_q.
// CHECK-LABEL: func.func private @ragged_rows_dispatch_0
// CHECK: gpu.subgroup_mma_store_matrix {{.*}} : !gpu.mma_matrix<16x16xf16, "COp">
// CHECK: gpu.barrier
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %c200{{.*}} : index
// CHECK-NEXT: scf.if %[[VALID]] {
// CHECK: memref.load %{{.*}} : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}} : memref<6400xvector<4xi32>>
func.func @ragged_rows(%q: tensor<1x200x2x128xf16>, %k: tensor<1x200x2x128xf16>, %v: tensor<1x200x2x128xf16>) -> tensor<1x200x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x200x2x128xf16>, tensor<1x200x2x128xf16>, tensor<1x200x2x128xf16> -> tensor<1x200x2x128xf16>
  return %o : tensor<1x200x2x128xf16>
}
