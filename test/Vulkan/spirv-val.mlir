// Ahead-of-time compiles from saved fingerprints (no device needed): the
// portable kernel for lavapipe and the cooperative-matrix kernel for an
// H100. Every emitted module passes spirv-val (the cooperative-matrix one
// with SPIRV-Tools v2023.4 or newer, which know SPV_KHR_cooperative_matrix,
// and with SPIRV-Tools 2025.5, which requires the Vulkan memory model beside
// CooperativeMatrixKHR: memory-model.test covers every family). Without
// the device's vulkan_memory_model the cooperative module stays GLSL450
// (NOVMM), which drivers take but SPIRV-Tools 2025.5 rejects.

// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: ejkc %S/Inputs/portable-kernel.mlir --target vulkan --fingerprint %S/Inputs/lavapipe.fingerprint --no-cache -o %t --name portable
// RUN: spirv-val --target-env vulkan1.3 %t/portable_k_dispatch_0.spv
// RUN: ejkc %s --target vulkan --fingerprint %S/Inputs/h100.fingerprint --no-cache -o %t --name coop
// RUN: %if spirv-val-coop-matrix %{ spirv-val --target-env vulkan1.3 %t/coop_mm_dispatch_0.spv %}
// RUN: %if spirv-tools-cm2 %{ %spirv_cm2_bin/spirv-val --target-env vulkan1.3 %t/coop_mm_dispatch_0.spv %}
// RUN: %if spirv-tools-cm2 %{ %spirv_cm2_bin/spirv-val --target-env vulkan1.3 %t/portable_k_dispatch_0.spv %}
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/coop.json
// RUN: ejkc %s --target vulkan --fingerprint %S/Inputs/h100.fingerprint --emit=spirv-asm | FileCheck %s
// RUN: not ejkc %s --target vulkan --fingerprint %S/Inputs/lavapipe.fingerprint --emit=spirv-asm 2>&1 | FileCheck %s --check-prefix=NOCOOP
// RUN: ejkc %S/Inputs/portable-kernel.mlir --target vulkan --fingerprint %S/Inputs/lavapipe.fingerprint --emit=spirv-asm | FileCheck %s --check-prefix=PORTABLE
// RUN: grep -v '^vulkan_memory_model=' %S/Inputs/h100.fingerprint > %t/novmm.fingerprint
// RUN: ejkc %s --target vulkan --fingerprint %t/novmm.fingerprint --emit=spirv-asm | FileCheck %s --check-prefix=NOVMM

// CHECK: spirv.module @__spv__mm_dispatch_0 Logical Vulkan requires #spirv.vce<v1.6, [{{.*}}VulkanMemoryModel, CooperativeMatrixKHR
// CHECK: spirv.Store "Workgroup" %{{.*}}, %{{.*}} ["NonPrivatePointer"] : f16
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory|MakeAvailable|MakeVisible>
// CHECK: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f16, Workgroup>
// CHECK: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f16, StorageBuffer>
// CHECK: spirv.KHR.CooperativeMatrixMulAdd
// CHECK: spirv.KHR.CooperativeMatrixStore %{{.*}}, %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f32, StorageBuffer>
// A portable module stays GLSL450 where the device has the Vulkan memory
// model too (lavapipe: vulkan_memory_model=1).
// PORTABLE: spirv.module @__spv__k_dispatch_0 Logical GLSL450 requires #spirv.vce<
// PORTABLE-NOT: VulkanMemoryModel
// PORTABLE-NOT: NonPrivatePointer
// PORTABLE-NOT: MakeAvailable
// NOVMM: spirv.module @__spv__mm_dispatch_0 Logical GLSL450 requires #spirv.vce<v1.6, {{.*}}CooperativeMatrixKHR
// NOVMM-NOT: VulkanMemoryModel
// NOVMM: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>{{$}}
// MANIFEST: "requires": [
// MANIFEST-DAG: "cooperative_matrix"
// MANIFEST-DAG: "float16"
// MANIFEST-DAG: "storage16"
// MANIFEST-DAG: "vulkan_memory_model"
// MANIFEST: "shared_memory_bytes": 1024
// MANIFEST: "spirv": "coop_mm_dispatch_0.spv"
// NOCOOP: error: dispatch 'mm_dispatch_0' requires device feature "cooperative_matrix", which the Vulkan target lacks

module {
  func.func private @mm_dispatch_0(%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf32>)
      attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.requires = ["float16", "storage16", "cooperative_matrix"]} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %t = gpu.thread_id x
    %sa = memref.alloc() : memref<16x32xf16, #gpu.address_space<workgroup>>
    %c32 = arith.constant 32 : index
    %c1 = arith.constant 1 : index
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
    %E = gpu.subgroup_mma_elementwise addf %acc, %acc : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %E, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    return
  }
  func.func @mm(%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf32>) attributes {ejk.entry, ejk.num_inputs = 2 : i64} {
    ejk.dispatch @mm_dispatch_0(%a, %b, %c) : memref<16x32xf16>, memref<32x16xf16>, memref<16x16xf32>
    return
  }
}
