// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=DECODE

// bf16 mixed batches on a device with bf16 cooperative matrices: the
// prefill rows take the cooperative kernel of ragged-tile-vulkan-coop.mlir
// on the inputs' bits (P written as the bits of its bf16 rounding, the
// dispatch marked for bf16 operand matrices; bf16 matrices in SPIR-V).
// Without the feature every row runs on the decode kernel (DECODE).

// CHECK-LABEL: func.func private @mixed_dispatch_0_prefill(
// CHECK-SAME: ejk.matrix_operands = "bf16"
// CHECK: %[[P:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[BITS:.*]] = arith.bitcast %[[P]] : bf16 to f16
// CHECK: memref.store %[[BITS]], %{{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.subgroup_mma_compute
// CHECK-LABEL: func.func @mixed(
// CHECK: ejk.dispatch @mixed_dispatch_0(
// CHECK-NEXT: ejk.dispatch @mixed_dispatch_0_prefill(
// SPIRV-LABEL: spirv.module @__spv__mixed_dispatch_0_prefill {{.*}}BFloat16CooperativeMatrixKHR
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// DECODE-NOT: _prefill
// DECODE-NOT: gpu.subgroup_mma_compute
// DECODE-LABEL: func.func @mixed(
// DECODE: ejk.dispatch @mixed_dispatch_0(
// DECODE-NOT: ejk.dispatch
func.func @mixed(%q: tensor<40x8x64xbf16>, %kc: tensor<40x16x2x64xbf16>, %vc: tensor<40x16x2x64xbf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xbf16> {
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n
      : tensor<40x8x64xbf16>, tensor<40x16x2x64xbf16>, tensor<40x16x2x64xbf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}
