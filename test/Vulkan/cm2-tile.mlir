// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,vulkan_memory_model,cooperative_matrix2 cooperative-matrix=true subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejkc %s --target vulkan --fingerprint %S/Inputs/cm2-h200.fingerprint --emit=spirv-asm | FileCheck %s --check-prefix=ASM
// RUN: rm -rf %t && ejkc %s --target vulkan --fingerprint %S/Inputs/cm2-h200.fingerprint --no-cache -o %t --name a
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/a.json
// RUN: od -A n -t u4 -N 16 %t/a_gfa_dispatch_0.spv | FileCheck %s --check-prefix=WORDS

// The VK_NV_cooperative_matrix2 kernel's dispatch (cm2 = 2): the KHR
// kernel's grid (query blocks, heads, batch) and 256 threads, an empty
// body, the device features the module needs, and the module's words
// (SPIR-V magic, version 1.6, generator 0, then the id bound) as
// `ejk.spirv_binary`, which the driver serializes instead of the body's
// SPIR-V (lib/Driver/SpirvCodegen.cpp). The manifest binds Q, K, V and the
// output at 0-3 as the kernel does.

// CHECK-LABEL: func.func private @gfa_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 16, 16, 4>
// CHECK-SAME: ejk.requires = ["cooperative_matrix", "cooperative_matrix2", "float16", "storage16", "vulkan_memory_model"]
// CHECK-SAME: ejk.shared_memory_bytes = 0
// CHECK-SAME: ejk.spirv_binary = array<i32: 119734787, 67072, 0, [[BOUND:[0-9]+]], 0, 131089, 1,
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK-NEXT: return
// CHECK-NEXT: }

// ASM: // gfa_dispatch_0: {{[0-9]+}} words of SPIR-V written by its kernel builder (the dispatch's ejk.spirv_binary)
// ASM-NOT: spirv.module

// MANIFEST: "bindings": [
// MANIFEST-NEXT: 0,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 3
// MANIFEST: "grid": [
// MANIFEST-NEXT: 16,
// MANIFEST-NEXT: 16,
// MANIFEST-NEXT: 4
// MANIFEST: "requires": [
// MANIFEST-NEXT: "cooperative_matrix",
// MANIFEST-NEXT: "cooperative_matrix2",
// MANIFEST-NEXT: "float16",
// MANIFEST-NEXT: "storage16",
// MANIFEST-NEXT: "vulkan_memory_model"
// MANIFEST: "workgroup_size": [
// MANIFEST-NEXT: 256,

// WORDS: 119734787 67072 0 {{[1-9][0-9]+}}

func.func @gfa(%q: tensor<4x2048x16x128xf16>, %k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 2>} : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}
