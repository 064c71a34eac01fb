// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// GQA 8:2 with head_dim_v != head_dim, no options.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x77x8x64xf32>, %[[K:.*]]: tensor<2x100x2x64xf32>, %[[V:.*]]: tensor<2x100x2x32xf32>, %[[O:.*]]: tensor<2x77x8x32xf32>, %[[DO:.*]]: tensor<2x77x8x32xf32>, %[[LSE:.*]]: tensor<2x8x77xf32>)
// CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = ejk.flash_attention_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]] : tensor<2x77x8x64xf32>, tensor<2x100x2x64xf32>, tensor<2x100x2x32xf32>, tensor<2x77x8x32xf32>, tensor<2x77x8x32xf32>, tensor<2x8x77xf32> -> tensor<2x77x8x64xf32>, tensor<2x100x2x64xf32>, tensor<2x100x2x32xf32>
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @plain(%q: tensor<2x77x8x64xf32>, %k: tensor<2x100x2x64xf32>, %v: tensor<2x100x2x32xf32>,
                 %o: tensor<2x77x8x32xf32>, %do: tensor<2x77x8x32xf32>, %lse: tensor<2x8x77xf32>)
    -> (tensor<2x77x8x64xf32>, tensor<2x100x2x64xf32>, tensor<2x100x2x32xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse
      : tensor<2x77x8x64xf32>, tensor<2x100x2x64xf32>, tensor<2x100x2x32xf32>,
        tensor<2x77x8x32xf32>, tensor<2x77x8x32xf32>, tensor<2x8x77xf32>
      -> tensor<2x77x8x64xf32>, tensor<2x100x2x64xf32>, tensor<2x100x2x32xf32>
  return %dq, %dk, %dv : tensor<2x77x8x64xf32>, tensor<2x100x2x64xf32>, tensor<2x100x2x32xf32>
}

// -----

// Every optional operand and attribute, bf16, MHA.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<1x1x128x256xf32>, %[[MASK:[^:]*]]: tensor<1x4x128x256xi1>, %[[QS:[^:]*]]: tensor<1x128xi32>, %[[KS:[^:]*]]: tensor<1x256xi32>
// CHECK: ejk.flash_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} bias(%[[BIAS]] : tensor<1x1x128x256xf32>) mask(%[[MASK]] : tensor<1x4x128x256xi1>) q_segment_ids(%[[QS]] : tensor<1x128xi32>) kv_segment_ids(%[[KS]] : tensor<1x256xi32>)
// CHECK-SAME: causal
// CHECK-SAME: config = #ejk.config<block_k = 64, block_q = 32, dq_block_k = 32, dq_block_q = 16>
// CHECK-SAME: dropout_prob = 1.000000e-01 : f32
// CHECK-SAME: dropout_seed = 42
// CHECK-SAME: logits_soft_cap = 3.000000e+01 : f32
// CHECK-SAME: sliding_window = array<i64: 128, 0>
// CHECK-SAME: softmax_scale = 1.250000e-01 : f32
// CHECK-SAME: -> tensor<1x128x4x64xbf16>, tensor<1x256x4x64xbf16>, tensor<1x256x4x64xbf16>
func.func @all_options(%q: tensor<1x128x4x64xbf16>, %k: tensor<1x256x4x64xbf16>, %v: tensor<1x256x4x64xbf16>,
                       %o: tensor<1x128x4x64xbf16>, %do: tensor<1x128x4x64xbf16>, %lse: tensor<1x4x128xf32>,
                       %bias: tensor<1x1x128x256xf32>, %mask: tensor<1x4x128x256xi1>,
                       %qs: tensor<1x128xi32>, %ks: tensor<1x256xi32>)
    -> (tensor<1x128x4x64xbf16>, tensor<1x256x4x64xbf16>, tensor<1x256x4x64xbf16>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse
      bias(%bias : tensor<1x1x128x256xf32>) mask(%mask : tensor<1x4x128x256xi1>)
      q_segment_ids(%qs : tensor<1x128xi32>) kv_segment_ids(%ks : tensor<1x256xi32>)
      {causal, softmax_scale = 0.125 : f32, sliding_window = array<i64: 128, 0>, logits_soft_cap = 30.0 : f32,
       dropout_prob = 0.1 : f32, dropout_seed = 42 : i64,
       config = #ejk.config<block_q = 32, block_k = 64, dq_block_q = 16, dq_block_k = 32>}
      : tensor<1x128x4x64xbf16>, tensor<1x256x4x64xbf16>, tensor<1x256x4x64xbf16>,
        tensor<1x128x4x64xbf16>, tensor<1x128x4x64xbf16>, tensor<1x4x128xf32>
      -> tensor<1x128x4x64xbf16>, tensor<1x256x4x64xbf16>, tensor<1x256x4x64xbf16>
  return %dq, %dk, %dv : tensor<1x128x4x64xbf16>, tensor<1x256x4x64xbf16>, tensor<1x256x4x64xbf16>
}

// -----

// MQA (one kv head), f16: d_key and d_value sum over all 16 query heads.
// CHECK-LABEL: func.func @mqa
// CHECK: ejk.flash_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal}
// CHECK-SAME: -> tensor<2x64x16x128xf16>, tensor<2x64x1x128xf16>, tensor<2x64x1x128xf16>
func.func @mqa(%q: tensor<2x64x16x128xf16>, %k: tensor<2x64x1x128xf16>, %v: tensor<2x64x1x128xf16>,
               %o: tensor<2x64x16x128xf16>, %do: tensor<2x64x16x128xf16>, %lse: tensor<2x16x64xf32>)
    -> (tensor<2x64x16x128xf16>, tensor<2x64x1x128xf16>, tensor<2x64x1x128xf16>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {causal}
      : tensor<2x64x16x128xf16>, tensor<2x64x1x128xf16>, tensor<2x64x1x128xf16>,
        tensor<2x64x16x128xf16>, tensor<2x64x16x128xf16>, tensor<2x16x64xf32>
      -> tensor<2x64x16x128xf16>, tensor<2x64x1x128xf16>, tensor<2x64x1x128xf16>
  return %dq, %dk, %dv : tensor<2x64x16x128xf16>, tensor<2x64x1x128xf16>, tensor<2x64x1x128xf16>
}

// -----

// The forward's padding mask and cumulative lengths (issue 16).
// CHECK-LABEL: func.func @padding_varlen
// CHECK-SAME: %[[P:[^:]*]]: tensor<3x64xi1>, %[[CQ:[^:]*]]: tensor<4xi32>, %[[CK:[^:]*]]: tensor<4xi32>
// CHECK: ejk.flash_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} padding_mask(%[[P]] : tensor<3x64xi1>) cum_seqlens_q(%[[CQ]] : tensor<4xi32>) cum_seqlens_k(%[[CK]] : tensor<4xi32>) {causal, mask_alignment = "bottom_right"}
func.func @padding_varlen(%q: tensor<3x64x4x32xf32>, %k: tensor<3x64x2x32xf32>, %v: tensor<3x64x2x32xf32>,
                          %o: tensor<3x64x4x32xf32>, %do: tensor<3x64x4x32xf32>, %lse: tensor<3x4x64xf32>,
                          %p: tensor<3x64xi1>, %cq: tensor<4xi32>, %ck: tensor<4xi32>)
    -> (tensor<3x64x4x32xf32>, tensor<3x64x2x32xf32>, tensor<3x64x2x32xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse
      padding_mask(%p : tensor<3x64xi1>) cum_seqlens_q(%cq : tensor<4xi32>) cum_seqlens_k(%ck : tensor<4xi32>)
      {causal, mask_alignment = "bottom_right"}
      : tensor<3x64x4x32xf32>, tensor<3x64x2x32xf32>, tensor<3x64x2x32xf32>,
        tensor<3x64x4x32xf32>, tensor<3x64x4x32xf32>, tensor<3x4x64xf32>
      -> tensor<3x64x4x32xf32>, tensor<3x64x2x32xf32>, tensor<3x64x2x32xf32>
  return %dq, %dk, %dv : tensor<3x64x4x32xf32>, tensor<3x64x2x32xf32>, tensor<3x64x2x32xf32>
}
