// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefix=DIRECT
// The chunk-parallel delta rule's outputs on cooperative matrices on a
// device without 16-bit integers (no 16-byte words): f16 inputs only,
// since bf16 buffers need 'int16' (delta-tile-vulkan-invalid.mlir). The
// same function with 'int16' is in delta-tile-vulkan-chunk-parallel-coop.mlir.

// Without 16-bit integers (no words), the outputs on matrices reading the
// f16 states and new values in their fragments' pieces: a V block of 128 (8 chunk slots x 2 heads x 1); the chunk's
// q and k normalized into f16 stages (64 rows of 128 + 8 halves), P over
// the q stage, 8 16x16 f32 stages, the decays and the norms: 2 x 17408 +
// 8192 + 256 + 512 bytes. A subgroup's 4 O tiles (q S, S's tiles from the
// f16 states as 16-byte words) and 2 score tiles (q k^T, k read
// column-major from its stage), then P, then O += P N with N's tiles from
// the f16 new values.
// DIRECT-LABEL: func.func private @state_dispatch_0(
// DIRECT-SAME: ejk.grid = array<i64: 8, 2, 1>, ejk.shared_memory_bytes = 43776 : i64
// DIRECT: %[[SW:.*]] = builtin.unrealized_conversion_cast %arg9 : memref<8x2x128x128xf16> to memref<32768xvector<4xi32>>
// DIRECT: %[[NW:.*]] = builtin.unrealized_conversion_cast %arg12 : memref<8x2x64x128xf16> to memref<16384xvector<4xi32>>
// DIRECT: %[[QS:.*]] = memref.alloc() : memref<8704xf16, #gpu.address_space<workgroup>>
// DIRECT-NEXT: %[[KS:.*]] = memref.alloc() : memref<8704xf16, #gpu.address_space<workgroup>>
// DIRECT-NEXT: %[[OST:.*]] = memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// DIRECT: math.sqrt
// DIRECT: gpu.barrier
// DIRECT: memref.store %{{.*}}, %[[QS]]
// DIRECT-NEXT: arith.truncf
// DIRECT-NEXT: memref.store %{{.*}}, %[[KS]]
// DIRECT: gpu.barrier
// DIRECT-COUNT-4: gpu.subgroup_mma_load_matrix %[[SW]][%{{.*}}] {leadDimension = 16 : index} : memref<32768xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// DIRECT: gpu.subgroup_mma_load_matrix %[[KS]][%{{.*}}] {leadDimension = 136 : index, transpose} : memref<8704xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// DIRECT: gpu.barrier
// DIRECT: math.exp
// DIRECT: memref.store %{{.*}}, %[[QS]]
// DIRECT: gpu.barrier
// DIRECT: gpu.subgroup_mma_load_matrix %[[QS]][%{{.*}}] {leadDimension = 72 : index} : memref<8704xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// DIRECT: gpu.subgroup_mma_load_matrix %[[NW]][%{{.*}}] {leadDimension = 16 : index} : memref<16384xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// DIRECT-NEXT: gpu.subgroup_mma_compute
// DIRECT: memref.store %{{.*}}, %arg5[{{.*}}] : memref<2x256x2x128xf16>
// DIRECT: return
func.func @state(%q: tensor<2x256x2x128xf16>, %v: tensor<2x256x2x128xf16>, %beta: tensor<2x256x2xf16>) -> tensor<2x256x2x128xf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<2x256x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<2x256x2x128xf16>, tensor<2x256x2x128xf16>, tensor<2x256x2x128xf16>, tensor<2x256x2xf16> -> tensor<2x256x2x128xf16>
  return %o : tensor<2x256x2x128xf16>
}
