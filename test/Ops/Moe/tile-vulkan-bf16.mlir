// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefixes=CHECK,PORT
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV

// bf16 grouped matmuls on a device with bf16 cooperative matrices
// (VK_KHR_shader_bfloat16: the feature 'cooperative_matrix_bf16', which a
// fingerprint gives when it lists the shape 16x16x16:bf16*bf16+f32=f32) take
// the cooperative path with the operands' bits staged as they are, and the
// dispatch is marked ejk.matrix_operands = "bf16" (BF16); without the
// feature they stay on the portable path (PORT). In SPIR-V the operand
// matrices are bf16 (SPIRV).

// CHECK-LABEL: func.func private @gmm_bf16_dispatch_0
// BF16-SAME: ejk.matrix_operands = "bf16"
// PORT-NOT: ejk.matrix_operands
// BF16: gpu.subgroup_mma_compute {{.*}} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
// PORT-NOT: gpu.subgroup_mma_compute
// CHECK: return
// SPIRV-LABEL: spirv.module @__spv__gmm_bf16_dispatch_0
// SPIRV-SAME: BFloat16CooperativeMatrixKHR
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
func.func @gmm_bf16(%lhs: tensor<300x64xbf16>, %rhs: tensor<4x32x64xbf16>, %sizes: tensor<4xi32>) -> tensor<300x32xbf16> {
  %o = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs} : tensor<300x64xbf16>, tensor<4x32x64xbf16>, tensor<4xi32> -> tensor<300x32xbf16>
  return %o : tensor<300x32xbf16>
}

// -----

// The weight gradient (transposed grouped matmul) the same way.
// CHECK-LABEL: func.func private @tgmm_bf16_dispatch_0
// BF16-SAME: ejk.matrix_operands = "bf16"
// PORT-NOT: ejk.matrix_operands
// BF16: gpu.subgroup_mma_compute
// PORT-NOT: gpu.subgroup_mma_compute
// CHECK: return
// SPIRV-LABEL: spirv.module @__spv__tgmm_bf16_dispatch_0
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB>
func.func @tgmm_bf16(%lhs: tensor<300x64xbf16>, %rhs: tensor<300x32xbf16>, %sizes: tensor<4xi32>) -> tensor<4x64x32xf32> {
  %o = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<300x64xbf16>, tensor<300x32xbf16>, tensor<4xi32> -> tensor<4x64x32xf32>
  return %o : tensor<4x64x32xf32>
}
