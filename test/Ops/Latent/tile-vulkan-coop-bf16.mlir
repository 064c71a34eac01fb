// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=PORTABLE

// bf16 MLA on a device with bf16 cooperative matrices (the feature
// 'cooperative_matrix_bf16'): the cooperative kernel of tile-vulkan-coop.mlir
// with the cache and query bits staged as they are, P written as the bits of
// its bf16 rounding, and the dispatch marked for bf16 operand matrices; in
// SPIR-V the matrices are bf16. Without the feature, the portable kernel.

// CHECK-LABEL: func.func private @paged_mla_dispatch_0(
// CHECK-SAME: ejk.matrix_operands = "bf16"
// CHECK: builtin.unrealized_conversion_cast %arg2 : memref<64x64x576xbf16> to memref<294912xvector<4xi32>>
// CHECK: %[[P:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[BITS:.*]] = arith.bitcast %[[P]] : bf16 to f16
// CHECK: memref.store %[[BITS]], %{{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.subgroup_mma_compute
// SPIRV-LABEL: spirv.module @__spv__paged_mla_dispatch_0 {{.*}}BFloat16CooperativeMatrixKHR
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// PORTABLE-LABEL: func.func private @paged_mla_dispatch_0(
// PORTABLE-NOT: ejk.matrix_operands
// PORTABLE-NOT: gpu.subgroup_mma_compute
// PORTABLE: return
func.func @paged_mla(%ql: tensor<4x64x512xbf16>, %qr: tensor<4x64x64xbf16>, %c: tensor<64x64x576xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x16xi32>, %starts: tensor<5xi32>) -> tensor<4x64x512xbf16> {
  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts
      : tensor<4x64x512xbf16>, tensor<4x64x64xbf16>, tensor<64x64x576xbf16>, tensor<4xi32>, tensor<4x16xi32>, tensor<5xi32> -> tensor<4x64x512xbf16>
  return %o : tensor<4x64x512xbf16>
}
