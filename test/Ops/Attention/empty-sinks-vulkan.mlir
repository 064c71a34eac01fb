// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs="policy=heuristics target=vulkan vulkan-features=float16,storage16,subgroup_shuffle" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs="policy=heuristics target=vulkan vulkan-features=float16,storage16,subgroup_shuffle cooperative-matrix spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// ejk.flash_attention with a 'softmax_aux' of no elements (no sinks) on
// Vulkan: a Vulkan buffer cannot be empty, so no kernel takes it; the op
// says so (it failed to legalize 'gpu.func' in ejk-lower-to-spirv). The
// CPU kernels take it (no sinks).

func.func @no_sinks(%q: tensor<1x4x8x64xf16>, %k: tensor<1x4x8x64xf16>, %v: tensor<1x4x8x64xf16>, %s: tensor<0xf16>) -> tensor<1x4x8x64xf16> {
  // expected-error-re @+1 {{'ejk.flash_attention' op config #ejk.config<{{.*}}> from the heuristic tier is invalid for this target: a 'softmax_aux' of no elements has no Vulkan kernel (a Vulkan buffer cannot be empty): leave it out, which means the same}}
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<0xf16>) : tensor<1x4x8x64xf16>, tensor<1x4x8x64xf16>, tensor<1x4x8x64xf16> -> tensor<1x4x8x64xf16>
  return %o : tensor<1x4x8x64xf16>
}

// -----

// Per head, and on the decode kernel's shape (one query row).
func.func @no_sinks_per_head(%q: tensor<1x1x8x64xf32>, %k: tensor<1x64x8x64xf32>, %v: tensor<1x64x8x64xf32>, %s: tensor<8x0xf32>) -> tensor<1x1x8x64xf32> {
  // expected-error-re @+1 {{'ejk.flash_attention' op config #ejk.config<{{.*}}> from the heuristic tier is invalid for this target: a 'softmax_aux' of no elements has no Vulkan kernel (a Vulkan buffer cannot be empty): leave it out, which means the same}}
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<8x0xf32>) : tensor<1x1x8x64xf32>, tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32> -> tensor<1x1x8x64xf32>
  return %o : tensor<1x1x8x64xf32>
}

// -----

// No batch: no output elements, no dispatch, nothing to refuse.
// CHECK-LABEL: func.func @no_batch
// CHECK-NOT: ejk.dispatch
// CHECK: return
func.func @no_batch(%q: tensor<0x4x8x64xf32>, %k: tensor<0x4x8x64xf32>, %v: tensor<0x4x8x64xf32>, %s: tensor<8x0xf32>) -> tensor<0x4x8x64xf32> {
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<8x0xf32>) : tensor<0x4x8x64xf32>, tensor<0x4x8x64xf32>, tensor<0x4x8x64xf32> -> tensor<0x4x8x64xf32>
  return %o : tensor<0x4x8x64xf32>
}
