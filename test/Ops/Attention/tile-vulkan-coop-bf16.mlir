// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=PORTABLE

// bf16 flash attention on a device with bf16 cooperative matrices: the
// cooperative kernel with the register softmax (NVIDIA's layout), the Q/K/V
// bits staged as they are, the dispatch marked for bf16 operand matrices.
// The layout probe writes its A tile as bf16 bits; P's elements are f16
// conversions inserted into the f16-typed A matrices, which the SPIR-V
// conversion makes conversions to bf16 inserted into bf16 matrices, and the
// probe's elements come out of the bf16 matrix as bf16 (read by a
// conversion to f32). The output goes through the stage as f16-typed
// accumulators that hold the bf16 bits (never multiplied: the operand
// matrices are all bf16). Without the feature, the portable kernel.

// CHECK-LABEL: func.func private @fa_dispatch_0(
// CHECK-SAME: ejk.matrix_operands = "bf16"
// CHECK: %[[PROBE:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.bitcast %[[PROBE]] : bf16 to f16
// CHECK: gpu.subgroup_mma_insert_thread_local
// CHECK: gpu.subgroup_mma_compute
// SPIRV-LABEL: spirv.module @__spv__fa_dispatch_0 {{.*}}BFloat16CooperativeMatrixKHR
// SPIRV: %[[E:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// SPIRV: spirv.FConvert %[[E]] : bf16 to f32
// SPIRV: spirv.CompositeConstruct %{{.*}} : (bf16) -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// SPIRV: %[[P:.*]] = spirv.FConvert %{{.*}} : f32 to bf16
// SPIRV: spirv.CompositeInsert %[[P]], %{{.*}}[0 : i32] : bf16 into !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// SPIRV-NOT: coopmatrix<16x16xf16, Subgroup, Matrix{{A|B}}>
// SPIRV: spirv.KHR.CooperativeMatrixStore %{{.*}}, %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<vector<4xi32>, Workgroup>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>, i32
// SPIRV-NOT: coopmatrix<16x16xf16, Subgroup, Matrix{{A|B}}>
// PORTABLE-LABEL: func.func private @fa_dispatch_0(
// PORTABLE-NOT: ejk.matrix_operands
// PORTABLE-NOT: gpu.subgroup_mma_compute
// PORTABLE: return
func.func @fa(%q: tensor<1x200x4x128xbf16>, %k: tensor<1x200x2x128xbf16>, %v: tensor<1x200x2x128xbf16>) -> (tensor<1x200x4x128xbf16>, tensor<1x4x200xf32>) {
  %o, %l = ejk.flash_attention %q, %k, %v {causal} : tensor<1x200x4x128xbf16>, tensor<1x200x2x128xbf16>, tensor<1x200x2x128xbf16> -> tensor<1x200x4x128xbf16>, tensor<1x4x200xf32>
  return %o, %l : tensor<1x200x4x128xbf16>, tensor<1x4x200xf32>
}

// Not causal (where f16 pipelines its P V): bf16 leaves the pipelining off
// (gfa-d128 bf16 0.711 ms pipelined against 0.662 on the H200): the loop
// carries O, m, l and the rows loaded ahead, no P.
// CHECK-LABEL: func.func private @fa_plain_dispatch_0(
// CHECK-SAME: ejk.matrix_operands = "bf16"
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, {{.*}}, f32, f32, f32, f32, vector<4xi32>
func.func @fa_plain(%q: tensor<1x256x2x128xbf16>, %k: tensor<1x256x2x128xbf16>, %v: tensor<1x256x2x128xbf16>) -> tensor<1x256x2x128xbf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x256x2x128xbf16>, tensor<1x256x2x128xbf16>, tensor<1x256x2x128xbf16> -> tensor<1x256x2x128xbf16>
  return %o : tensor<1x256x2x128xbf16>
}
