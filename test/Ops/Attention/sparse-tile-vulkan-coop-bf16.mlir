// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=PORTABLE

// bf16 block-sparse attention on a device with bf16 cooperative matrices
// (issue 19): dense flash attention's bf16 path, the cooperative kernel
// over the live-block list with the register softmax, its dispatch marked
// for bf16 operand matrices and the same heuristic blocks as f16 (128 x 64
// of 8 subgroups at d128); the SPIR-V conversion makes its A/B matrices
// bf16. The output goes through the stage as f16-typed accumulators that
// hold the bf16 bits (never multiplied: the operand matrices are all
// bf16). Without the feature, the portable kernel.

// CHECK-LABEL: func.func private @gsparse_dispatch_0(
// CHECK-SAME: memref<1x256x2x128xbf16>
// CHECK-SAME: ejk.matrix_operands = "bf16"
// CHECK-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: %[[ENTRIES:.*]] = memref.alloc() : memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix
// CHECK: memref.load %[[ENTRIES]]
// CHECK: gpu.subgroup_mma_compute
// SPIRV-LABEL: spirv.module @__spv__gsparse_dispatch_0 {{.*}}BFloat16CooperativeMatrixKHR
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// SPIRV-NOT: coopmatrix<16x16xf16, Subgroup, Matrix{{A|B}}>
// SPIRV: spirv.KHR.CooperativeMatrixStore %{{.*}}, %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<vector<4xi32>, Workgroup>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>, i32
// SPIRV-NOT: coopmatrix<16x16xf16, Subgroup, Matrix{{A|B}}>
// PORTABLE-LABEL: func.func private @gsparse_dispatch_0(
// PORTABLE-NOT: ejk.matrix_operands
// PORTABLE-NOT: gpu.subgroup_mma_compute
// PORTABLE: return
func.func @gsparse(%q: tensor<1x256x2x128xbf16>, %k: tensor<1x256x2x128xbf16>, %v: tensor<1x256x2x128xbf16>, %bm: tensor<1x2x2x2xi1>) -> tensor<1x256x2x128xbf16> {
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 128 : i64, causal = false}
      : tensor<1x256x2x128xbf16>, tensor<1x256x2x128xbf16>, tensor<1x256x2x128xbf16>, tensor<1x2x2x2xi1> -> tensor<1x256x2x128xbf16>
  return %o : tensor<1x256x2x128xbf16>
}
