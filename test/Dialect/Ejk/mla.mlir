// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// No options, f32. Every head shares kv_latent and k_rope.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[QL:.*]]: tensor<2x16x8x64xf32>, %[[QR:.*]]: tensor<2x16x8x16xf32>, %[[CKV:.*]]: tensor<2x48x64xf32>, %[[KR:.*]]: tensor<2x48x16xf32>)
// CHECK: %[[O:.*]] = ejk.mla %[[QL]], %[[QR]], %[[CKV]], %[[KR]] : tensor<2x16x8x64xf32>, tensor<2x16x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32> -> tensor<2x16x8x64xf32>
// CHECK: return %[[O]]
func.func @plain(%ql: tensor<2x16x8x64xf32>, %qr: tensor<2x16x8x16xf32>, %ckv: tensor<2x48x64xf32>,
                 %kr: tensor<2x48x16xf32>) -> tensor<2x16x8x64xf32> {
  %o = ejk.mla %ql, %qr, %ckv, %kr
      : tensor<2x16x8x64xf32>, tensor<2x16x8x16xf32>, tensor<2x48x64xf32>, tensor<2x48x16xf32>
      -> tensor<2x16x8x64xf32>
  return %o : tensor<2x16x8x64xf32>
}

// -----

// DeepSeek-V3 decode: 128 heads, kv_lora_rank 512, qk_rope_head_dim 64,
// scale 1/sqrt(192), every attribute and both results.
// CHECK-LABEL: func.func @deepseek_decode
// CHECK-SAME: (%[[QL:.*]]: tensor<4x1x128x512xbf16>, %[[QR:.*]]: tensor<4x1x128x64xbf16>, %[[CKV:.*]]: tensor<4x4096x512xbf16>, %[[KR:.*]]: tensor<4x4096x64xbf16>)
// CHECK: %[[O:.*]], %[[LSE:.*]] = ejk.mla %[[QL]], %[[QR]], %[[CKV]], %[[KR]]
// CHECK-SAME: {causal, config = #ejk.config<block_k = 16, head_lanes = 16, num_splits = 4>, qk_nope_head_dim = 128 : i64, softmax_scale = 0.0721{{[0-9]*}} : f32}
// CHECK-SAME: : tensor<4x1x128x512xbf16>, tensor<4x1x128x64xbf16>, tensor<4x4096x512xbf16>, tensor<4x4096x64xbf16> -> tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @deepseek_decode(%ql: tensor<4x1x128x512xbf16>, %qr: tensor<4x1x128x64xbf16>,
                           %ckv: tensor<4x4096x512xbf16>, %kr: tensor<4x4096x64xbf16>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = ejk.mla %ql, %qr, %ckv, %kr
      {causal, softmax_scale = 0.0721687824 : f32, qk_nope_head_dim = 128, config = #ejk.config<block_k = 16, num_splits = 4, head_lanes = 16>}
      : tensor<4x1x128x512xbf16>, tensor<4x1x128x64xbf16>, tensor<4x4096x512xbf16>, tensor<4x4096x64xbf16>
      -> tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
  return %o, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}
