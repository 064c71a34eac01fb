// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=CHECK-PORTABLE
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=CHECK-COOP
// The row max is `maxnumf fastmath<nnan>` (scores are never NaN for finite
// inputs; masked keys are -inf): the SPIR-V has GL.FMax and none of the
// IsNan/Select pairs scf-to-spirv adds around a plain maxnumf.
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// SPIRV: spirv.GL.FMax
// SPIRV-NOT: spirv.IsNan

// Portable path (f32 arithmetic): block_q = 128, block_k = 32, 16
// subgroups of 32 -> 512 threads, 16 per row, 32 row groups of 4 rows, 2
// keys and 8 output columns per thread. One dispatch, no pack; shared
// memory holds Q and K d-chunks (128x17 and 32x17 floats), P (128x32) and a
// V k-chunk (the largest that fits the default 32 KiB: 8x128):
// 4 * (2176 + 544 + 4096 + 1024) = 31360 bytes.
// CHECK-PORTABLE: func.func private @attention_dispatch_0(%{{.*}}: memref<2x100x8x128xf16>, %{{.*}}: memref<2x100x2x128xf16>, %{{.*}}: memref<2x100x2x128xf16>, %{{.*}}: memref<2x100x8x128xf16>)
// CHECK-PORTABLE-SAME: ejk.grid = array<i64: 1, 8, 2>
// CHECK-PORTABLE-SAME: ejk.shared_memory_bytes = 31360 : i64
// CHECK-PORTABLE-SAME: ejk.workgroup_size = array<i64: 512, 1, 1>
// CHECK-PORTABLE: gpu.thread_id{{ +}}x
// CHECK-PORTABLE: memref.alloc() : memref<2176xf32, #gpu.address_space<workgroup>>
// CHECK-PORTABLE: memref.alloc() : memref<544xf32, #gpu.address_space<workgroup>>
// CHECK-PORTABLE: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK-PORTABLE: memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// The key-block loop carries 4 x 8 accumulators, 4 maxima and 4 sums.
// CHECK-PORTABLE: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-PORTABLE: arith.extf {{.*}} : f16 to f32
// CHECK-PORTABLE: gpu.barrier
// CHECK-PORTABLE: math.fma
// Row maxima and sums combine over 16 threads: xor offsets 8, 4, 2, 1.
// CHECK-PORTABLE: gpu.shuffle  xor %{{.*}}, %c8_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// CHECK-PORTABLE: gpu.shuffle  xor %{{.*}}, %c4_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// CHECK-PORTABLE: gpu.shuffle  xor %{{.*}}, %c2_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// CHECK-PORTABLE: gpu.shuffle  xor %{{.*}}, %c1_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// CHECK-PORTABLE: math.exp
// CHECK-PORTABLE: arith.truncf {{.*}} : f32 to f16
// CHECK-PORTABLE-NOT: gpu.subgroup_mma

// Cooperative path (f16 on a device with 16x16x16 matrices): 4 subgroups
// own 16 rows each (block_q = 64), block_k = 16.
// CHECK-COOP: ejk.grid = array<i64: 2, 8, 2>
// CHECK-COOP-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// Q, K and V are copied as 16-byte vectors through views of the f16
// buffers, and staged (rows padded to 136 halves = 17 vectors against bank
// conflicts) into the memory that first holds Q, then K and V
// (max(64, 16 + 16) rows of 17 vectors).
// CHECK-COOP: builtin.unrealized_conversion_cast %{{.*}} : memref<2x100x8x128xf16> to memref<25600xvector<4xi32>>
// CHECK-COOP: memref.load %{{.*}} : memref<25600xvector<4xi32>>
// CHECK-COOP: memref.store %{{.*}} : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-COOP: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 17 : index} : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// K^T tiles are column-major loads of the staged K rows.
// CHECK-COOP: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 17 : index, transpose} : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-COOP: gpu.subgroup_mma_compute {{.*}} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-COOP: gpu.subgroup_mma_store_matrix {{.*}} {leadDimension = 20 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<1280xf32, #gpu.address_space<workgroup>>
// CHECK-COOP: gpu.shuffle  xor %{{.*}}, %c1_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// O is rescaled by the row factors, then P V is added.
// CHECK-COOP: gpu.subgroup_mma_elementwise  mulf
// CHECK-COOP: gpu.subgroup_mma_compute
func.func @attention(%q: tensor<2x100x8x128xf16>, %k: tensor<2x100x2x128xf16>, %v: tensor<2x100x2x128xf16>) -> tensor<2x100x8x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<2x100x8x128xf16>, tensor<2x100x2x128xf16>, tensor<2x100x2x128xf16> -> tensor<2x100x8x128xf16>
  return %o : tensor<2x100x8x128xf16>
}
