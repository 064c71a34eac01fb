// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches | FileCheck %s

// No query heads: an empty output, so no dispatch. Config selection still
// asks the Vulkan layout for a heuristic config, which divided a group of
// 0 heads by 0 chunks (SIGFPE) for every op on the paged decode kernel,
// and, with cooperative matrices, the prefill heuristic divided its rows
// by the group of 0 (SIGFPE; unified_attention, found by ejk-fuzz-mlir
// replaying this file once its pipelines ran).

// CHECK-LABEL: func.func @paged(
// CHECK-NOT: ejk.dispatch
// CHECK: return
func.func @paged(%q: tensor<2x0x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x0x64xf32> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x0x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x0x64xf32>
  return %o : tensor<2x0x64xf32>
}

// -----

// CHECK-LABEL: func.func @ragged_decode(
// CHECK-NOT: ejk.dispatch
// CHECK: return
func.func @ragged_decode(%q: tensor<4x0x64xf16>, %k: tensor<4x512x2x64xf16>, %v: tensor<4x512x2x64xf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) -> tensor<4x0x64xf16> {
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x0x64xf16>, tensor<4x512x2x64xf16>, tensor<4x512x2x64xf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x0x64xf16>
  return %o : tensor<4x0x64xf16>
}

// -----

// CHECK-LABEL: func.func @unified(
// CHECK-NOT: ejk.dispatch
// CHECK: return
func.func @unified(%q: tensor<64x0x64xf16>, %kc: tensor<32x16x1x64xf16>, %vc: tensor<32x16x1x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) -> tensor<64x0x64xf16> {
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x0x64xf16>, tensor<32x16x1x64xf16>, tensor<32x16x1x64xf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x0x64xf16>
  return %o : tensor<64x0x64xf16>
}
