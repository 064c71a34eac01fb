// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// A flash_attention decode (one query row, GQA 8:2, f16) on Vulkan takes the
// paged family's decode kernel (block_q = 1): each sequence is one page of
// its 512 tokens, the workgroups are (split, KV head, sequence), every K/V
// row is read once for the 4 query heads of its KV head, 16 bytes a load
// (lanes of a team reduce their dot products with shuffles), and a combine
// dispatch merges the splits.

// CHECK-LABEL: func.func private @decode_dispatch_0_combine
// CHECK-LABEL: func.func private @decode_dispatch_0(
// CHECK-SAME: memref<2x1x8x128xf16>, %[[K:[a-z0-9]+]]: memref<2x512x2x128xf16>
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 2>
// CHECK: gpu.thread_id x
// CHECK: %[[KW:.*]] = builtin.unrealized_conversion_cast %[[K]] : memref<2x512x2x128xf16> to memref<32768xvector<4xi32>>
// CHECK: memref.load %[[KW]][%{{.*}}] : memref<32768xvector<4xi32>>
// CHECK: gpu.shuffle xor
// CHECK: math.exp
// CHECK-LABEL: func.func @decode(
// CHECK: ejk.dispatch @decode_dispatch_0(
// CHECK: ejk.dispatch @decode_dispatch_0_combine(
func.func @decode(%q: tensor<2x1x8x128xf16>, %k: tensor<2x512x2x128xf16>, %v: tensor<2x512x2x128xf16>) -> tensor<2x1x8x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 1, block_k = 16, num_subgroups = 4, key_splits = 4>} : tensor<2x1x8x128xf16>, tensor<2x512x2x128xf16>, tensor<2x512x2x128xf16> -> tensor<2x1x8x128xf16>
  return %o : tensor<2x1x8x128xf16>
}
