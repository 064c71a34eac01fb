// The VK_NV_cooperative_matrix2 attention is offered from the fingerprint:
// with the `cooperative_matrix2=1` line (the H200's saved fingerprint), the
// full config space adds the cm2 variants; without it, it does not. The
// heuristic keeps the KHR kernel's config with or without the line: where
// cm2 = 2 beat the KHR kernel (gfa-d128, gfa-long), the KHR kernel with the
// lazy rescale beat cm2 in the same device call; that kernel now takes
// two query blocks a workgroup there (docs/ops/attention-vulkan.md).

// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan fingerprint=%S/Inputs/cm2-h200.fingerprint" | FileCheck %s
// RUN: grep -v '^cooperative_matrix2=' %S/Inputs/cm2-h200.fingerprint > %t.fingerprint
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan fingerprint=%t.fingerprint" | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-print-config-space="target=vulkan full=true vulkan-features=float16,int16,storage16,subgroup_shuffle,vulkan_memory_model,cooperative_matrix2 cooperative-matrix=true subgroup-size=32 shared-memory-bytes=49152" 2>&1 | FileCheck %s --check-prefix=SPACE
// RUN: ejk-opt %s -split-input-file -ejk-print-config-space="target=vulkan full=true vulkan-features=float16,int16,storage16,subgroup_shuffle,vulkan_memory_model cooperative-matrix=true subgroup-size=32 shared-memory-bytes=49152" 2>&1 | FileCheck %s --check-prefix=SPACE-KHR

// CHECK-LABEL: func.func @gfa_d128
// CHECK: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8, row_blocks = 2>
// SPACE: problem key: ejk.flash_attention;q=4x2048x16x128xf16;k=4x2048x16x128xf16;v=4x2048x16x128xf16;bias=none;mask=none;segments=0;causal=0
// SPACE-NEXT: heuristic: #ejk.config<block_k = 16, block_q = 64, num_subgroups = 4>
// SPACE: cm2 = 1
// SPACE: cm2 = 2
// SPACE: cm2 = 3
// SPACE: cm2 = 4
// SPACE-KHR-NOT: cm2 =
func.func @gfa_d128(%q: tensor<4x2048x16x128xf16>, %k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}

// -----

// CHECK-LABEL: func.func @gfa_long
// CHECK-NOT: cm2 =
// CHECK: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8, row_blocks = 2>
func.func @gfa_long(%q: tensor<1x8192x16x128xf16>, %k: tensor<1x8192x16x128xf16>, %v: tensor<1x8192x16x128xf16>) -> tensor<1x8192x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x8192x16x128xf16>, tensor<1x8192x16x128xf16>, tensor<1x8192x16x128xf16> -> tensor<1x8192x16x128xf16>
  return %o : tensor<1x8192x16x128xf16>
}

// -----

// Causal, head dim 64, short sequences, lse, bf16: the KHR kernel.
// CHECK-LABEL: func.func @gfa_d128_causal
// CHECK-NOT: cm2 =
// CHECK: ejk.flash_attention
// CHECK-SAME: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>
func.func @gfa_d128_causal(%q: tensor<4x2048x16x128xf16>, %k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}

// -----

// CHECK-LABEL: func.func @gfa_d64
// CHECK-NOT: cm2 =
// CHECK: return
func.func @gfa_d64(%q: tensor<4x2048x32x64xf16>, %k: tensor<4x2048x32x64xf16>, %v: tensor<4x2048x32x64xf16>) -> tensor<4x2048x32x64xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16> -> tensor<4x2048x32x64xf16>
  return %o : tensor<4x2048x32x64xf16>
}

// -----

// CHECK-LABEL: func.func @short
// CHECK-NOT: cm2 =
// CHECK: return
func.func @short(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}

// -----

// CHECK-LABEL: func.func @with_lse
// CHECK-NOT: cm2 =
// CHECK: return
func.func @with_lse(%q: tensor<4x2048x16x128xf16>, %k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>) -> (tensor<4x2048x16x128xf16>, tensor<4x16x2048xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>, tensor<4x16x2048xf32>
  return %o, %lse : tensor<4x2048x16x128xf16>, tensor<4x16x2048xf32>
}

// -----

// CHECK-LABEL: func.func @bf16
// CHECK-NOT: cm2 =
// CHECK: return
func.func @bf16(%q: tensor<4x2048x16x128xbf16>, %k: tensor<4x2048x16x128xbf16>, %v: tensor<4x2048x16x128xbf16>) -> tensor<4x2048x16x128xbf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<4x2048x16x128xbf16>, tensor<4x2048x16x128xbf16>, tensor<4x2048x16x128xbf16> -> tensor<4x2048x16x128xbf16>
  return %o : tensor<4x2048x16x128xbf16>
}
