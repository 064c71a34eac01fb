// RUN: ejk-opt %s -ejk-prepare-vulkan-kernels | FileCheck %s --check-prefix=PREPARE
// RUN: ejk-opt %s -ejk-lower-to-spirv | FileCheck %s

// A dispatch marked ejk.matrix_operands = "bf16" (DispatchRewriter::
// setBF16Matrices): its operand matrices are typed f16 in the GPU dialect,
// which has no bf16 matrices, and hold bf16 bits. ejk-prepare-vulkan-kernels
// keeps the mark on the kernel; ejk-convert-to-spirv makes the A and B
// matrices bf16 (the accumulators stay f32), and the module then requires
// bf16 cooperative matrices (SPV_KHR_bfloat16; spirv-update-vce leaves the
// matrix capability out, ejk-spirv-interface-version adds it).

// PREPARE: gpu.func @mm_dispatch_0
// PREPARE-SAME: ejk.matrix_operands = "bf16"
// CHECK: spirv.module @__spv__mm_dispatch_0 Logical GLSL450 requires #spirv.vce<v1.6, [{{.*}}BFloat16TypeKHR{{.*}}BFloat16CooperativeMatrixKHR{{.*}}], [{{.*}}SPV_KHR_bfloat16{{.*}}]>
// CHECK: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// CHECK: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB>
// CHECK: spirv.KHR.CooperativeMatrixMulAdd %{{.*}}, %{{.*}}, %{{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK-NOT: coopmatrix<16x16xf16
// CHECK: spirv.KHR.CooperativeMatrixStore %{{.*}}, %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, i32
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_bf16", "float16", "storage16", "subgroup_basic"]}} {
  func.func private @mm_dispatch_0(%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf32>)
      attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.matrix_operands = "bf16"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %t = gpu.thread_id x
    %sa = memref.alloc() : memref<16x32xf16, #gpu.address_space<workgroup>>
    scf.for %r = %c0 to %c16 step %c1 {
      %v = memref.load %a[%r, %t] : memref<16x32xf16>
      memref.store %v, %sa[%r, %t] : memref<16x32xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %zero = arith.constant 0.0 : f32
    %acc0 = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%acc1 = %acc0) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %A = gpu.subgroup_mma_load_matrix %sa[%c0, %k] {leadDimension = 32 : index} : memref<16x32xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %B = gpu.subgroup_mma_load_matrix %b[%k, %c0] {leadDimension = 16 : index} : memref<32x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %D = gpu.subgroup_mma_compute %A, %B, %acc1 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %D : !gpu.mma_matrix<16x16xf32, "COp">
    }
    gpu.subgroup_mma_store_matrix %acc, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    return
  }
}
