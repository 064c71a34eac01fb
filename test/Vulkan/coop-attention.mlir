// The cooperative-matrix flash attention compiled ahead of time for an
// H100 (NVIDIA, subgroups of 32: the register softmax) and for the same
// device under another vendor id (the softmax through shared memory).
// Both copy Q, K and V in 16-byte vectors through a second binding of each
// f16 buffer. Run on the GPU machine: bench/vulkan/check.py.

// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's/vendor_id=0x10de/vendor_id=0x1002/' %S/Inputs/h100.fingerprint > %t/other.fingerprint
// RUN: ejkc %s --target vulkan --fingerprint %S/Inputs/h100.fingerprint --emit=spirv-asm | FileCheck %s --check-prefixes=COMMON,NV
// RUN: ejkc %s --target vulkan --fingerprint %t/other.fingerprint --emit=spirv-asm | FileCheck %s --check-prefixes=COMMON,STAGE
// RUN: ejkc %s --target vulkan --fingerprint %S/Inputs/h100.fingerprint --no-cache -o %t --name nv
// RUN: FileCheck %s --check-prefix=MANIFEST-NV < %t/nv.json
// RUN: %if spirv-val-coop-matrix %{ spirv-val --target-env vulkan1.3 %t/nv_attention_dispatch_0.spv %}
// RUN: ejkc %s --target vulkan --fingerprint %t/other.fingerprint --no-cache -o %t --name other
// RUN: FileCheck %s --check-prefix=MANIFEST-STAGE < %t/other.json
// RUN: %if spirv-val-coop-matrix %{ spirv-val --target-env vulkan1.3 %t/other_attention_dispatch_0.spv %}

// A scalar-condition select of vectors (the zero rows past seq_k) needs 1.4.
// COMMON: spirv.module @__spv__attention_dispatch_0 Logical Vulkan requires #spirv.vce<v1.6, [{{.*}}VulkanMemoryModel
// The Q, then K/V stage: rows of 17 vectors (136 halves, padded); on NVIDIA
// the heuristic's 128 x 64 blocks (max(128, 64 + 64) rows), elsewhere
// 64 x 16 blocks (max(64, 16 + 16) rows).
// NV-DAG: spirv.GlobalVariable @{{__workgroup_mem__[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<2176 x vector<4xi32>>)>, Workgroup>
// STAGE-DAG: spirv.GlobalVariable @{{__workgroup_mem__[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<1088 x vector<4xi32>>)>, Workgroup>
// Each of Q, K, V bound twice: as f16 and as 16-byte vectors.
// COMMON-DAG: spirv.GlobalVariable @attention_dispatch_0_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<204800 x f16, stride=2> [0])>, StorageBuffer>
// COMMON-DAG: spirv.GlobalVariable @attention_dispatch_0_arg_{{[0-9]+}} bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<25600 x vector<4xi32>, stride=16> [0])>, StorageBuffer>
// COMMON-DAG: spirv.GlobalVariable @attention_dispatch_0_arg_{{[0-9]+}} bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<6400 x vector<4xi32>, stride=16> [0])>, StorageBuffer>
// COMMON-DAG: spirv.GlobalVariable @attention_dispatch_0_arg_{{[0-9]+}} bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.array<6400 x vector<4xi32>, stride=16> [0])>, StorageBuffer>
// NV-DAG: spirv.GlobalVariable @attention_dispatch_0_arg_{{[0-9]+}} bind(0, 3) : !spirv.ptr<!spirv.struct<(!spirv.array<25600 x vector<4xi32>, stride=16> [0])>, StorageBuffer>
// COMMON-LABEL: spirv.func @attention_dispatch_0()
// COMMON: spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// COMMON: spirv.Select %{{.*}}, %{{.*}}, %{{.*}} : i1, vector<4xi32>
// COMMON: spirv.Store "Workgroup" %{{.*}}, %{{.*}} ["NonPrivatePointer"] : vector<4xi32>
// COMMON: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<vector<4xi32>, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>

// The register path reads the layout probe, then each lane's 8 elements of
// S, reduces rows over 4 lanes, and inserts P into an A matrix.
// NV: spirv.CompositeExtract %{{.*}}[7 : i32] : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// NV: spirv.CompositeExtract %{{.*}}[7 : i32] : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// NV: spirv.mlir.loop
// NV: spirv.KHR.CooperativeMatrixMulAdd
// NV: spirv.CompositeExtract %{{.*}}[0 : i32] : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// NV: spirv.GroupNonUniformShuffleXor <Subgroup> %{{.*}}, %{{.*}} : f32, i32
// NV: spirv.CompositeInsert %{{.*}}, %{{.*}}[7 : i32] : f16 into !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// NV: spirv.CompositeInsert %{{.*}}, %{{.*}}[7 : i32] : f32 into !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// NV: spirv.KHR.CooperativeMatrixMulAdd
// Its output: O / l as f16 accumulators stored into the stage, then the
// block's rows in 16-byte words through the output's second binding.
// NV-NOT: spirv.KHR.CooperativeMatrixStore {{.*}}coopmatrix<16x16xf32
// NV: spirv.KHR.CooperativeMatrixStore %{{.*}}, %{{.*}}, %{{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<vector<4xi32>, Workgroup>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixAcc>, i32
// NV-NOT: spirv.KHR.CooperativeMatrixStore {{.*}}coopmatrix<16x16xf32
// NV: spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} : vector<4xi32>

// The portable cooperative path stages S, P and the row factors instead.
// STAGE-NOT: spirv.CompositeInsert {{.*}}coopmatrix
// STAGE: spirv.KHR.CooperativeMatrixStore
// STAGE: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>

// The register path needs the layout, which the runtime checks before it
// runs the kernel; it stages Q/K/V and its output in the same memory (and
// the 1.5 KiB probe).
// MANIFEST-NV: "requires": [
// MANIFEST-NV-NEXT: "cooperative_matrix",
// MANIFEST-NV-NEXT: "cooperative_matrix_nv_layout",
// MANIFEST-NV: "vulkan_memory_model"
// MANIFEST-NV: "shared_memory_bytes": 36352
// MANIFEST-STAGE: "requires": [
// MANIFEST-STAGE-NOT: cooperative_matrix_nv_layout
// MANIFEST-STAGE: "shared_memory_bytes": 30720

func.func @attention(%q: tensor<2x100x8x128xf16>, %k: tensor<2x100x2x128xf16>, %v: tensor<2x100x2x128xf16>) -> tensor<2x100x8x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<2x100x8x128xf16>, tensor<2x100x2x128xf16>, tensor<2x100x2x128xf16> -> tensor<2x100x8x128xf16>
  return %o : tensor<2x100x8x128xf16>
}
