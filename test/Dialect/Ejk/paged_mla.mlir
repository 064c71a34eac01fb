// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// No options, f32, no RoPE part.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[QL:.*]]: tensor<6x4x32xf32>, %[[QR:.*]]: tensor<6x4x0xf32>, %[[C:.*]]: tensor<10x16x32xf32>, %[[L:.*]]: tensor<2xi32>, %[[T:.*]]: tensor<2x3xi32>, %[[S:.*]]: tensor<3xi32>)
// CHECK: %[[O:.*]] = ejk.paged_mla %[[QL]], %[[QR]], %[[C]], %[[L]], %[[T]], %[[S]] : tensor<6x4x32xf32>, tensor<6x4x0xf32>, tensor<10x16x32xf32>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf32>
// CHECK: return %[[O]]
func.func @plain(%ql: tensor<6x4x32xf32>, %qr: tensor<6x4x0xf32>, %c: tensor<10x16x32xf32>,
                 %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) -> tensor<6x4x32xf32> {
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s
      : tensor<6x4x32xf32>, tensor<6x4x0xf32>, tensor<10x16x32xf32>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32>
      -> tensor<6x4x32xf32>
  return %o : tensor<6x4x32xf32>
}

// -----

// DeepSeek-V3 decode over pages of 64: every attribute and both results.
// CHECK-LABEL: func.func @deepseek_decode
// CHECK: %[[O:.*]], %[[LSE:.*]] = ejk.paged_mla
// CHECK-SAME: {config = #ejk.config<block_k = 32, num_splits = 2>, qk_nope_head_dim = 128 : i64}
// CHECK-SAME: -> tensor<32x128x512xbf16>, tensor<32x128xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @deepseek_decode(%ql: tensor<32x128x512xbf16>, %qr: tensor<32x128x64xbf16>,
                           %c: tensor<2048x64x576xbf16>, %l: tensor<32xi32>,
                           %t: tensor<32x64xi32>, %s: tensor<33xi32>)
    -> (tensor<32x128x512xbf16>, tensor<32x128xf32>) {
  %o, %lse = ejk.paged_mla %ql, %qr, %c, %l, %t, %s
      {qk_nope_head_dim = 128, config = #ejk.config<block_k = 32, num_splits = 2>}
      : tensor<32x128x512xbf16>, tensor<32x128x64xbf16>, tensor<2048x64x576xbf16>,
        tensor<32xi32>, tensor<32x64xi32>, tensor<33xi32>
      -> tensor<32x128x512xbf16>, tensor<32x128xf32>
  return %o, %lse : tensor<32x128x512xbf16>, tensor<32x128xf32>
}
