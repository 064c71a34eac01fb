// RUN: ejk-opt %s -split-input-file -ejk-expand-entries | FileCheck %s
// The entries ejk.ring_attention expands into (docs/ops/ring.md): the
// names carry ring size, causal and window; causal without a window adds
// the zigzag halves, a window adds the masked block; every block has a
// backward block `__grad_<role>` (flash_attention_grad with the same
// options: q, k, v, o, d_o, lse[, mask] -> dq, dk, dv).

// CHECK-NOT: func.func @causal(
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__full
// CHECK-SAME: (%{{.*}}: tensor<1x64x8x32xf32>, %{{.*}}: tensor<1x64x2x32xf32>, %{{.*}}: tensor<1x64x2x16xf32>) -> (tensor<1x64x8x16xf32>, tensor<1x8x64xf32>)
// CHECK: ejk.flash_attention
// CHECK-SAME: logits_soft_cap = 2.000000e+00 : f32, softmax_scale = 5.000000e-01 : f32}
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__diag
// CHECK: ejk.flash_attention %{{.*}} {causal, logits_soft_cap
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__zzkv
// CHECK-SAME: tensor<1x64x8x32xf32>, %{{.*}}: tensor<1x32x2x32xf32>, %{{.*}}: tensor<1x32x2x16xf32>) -> (tensor<1x64x8x16xf32>, tensor<1x8x64xf32>)
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__zzq
// CHECK-SAME: tensor<1x32x8x32xf32>, %{{.*}}: tensor<1x64x2x32xf32>, %{{.*}}: tensor<1x64x2x16xf32>) -> (tensor<1x32x8x16xf32>, tensor<1x8x32xf32>)
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__grad_full
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x64x8x32xf32>, %[[K:[^:]*]]: tensor<1x64x2x32xf32>, %[[V:[^:]*]]: tensor<1x64x2x16xf32>, %[[O:[^:]*]]: tensor<1x64x8x16xf32>, %[[DO:[^:]*]]: tensor<1x64x8x16xf32>, %[[L:[^:]*]]: tensor<1x8x64xf32>)
// CHECK-SAME: -> (tensor<1x64x8x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x16xf32>)
// CHECK: ejk.flash_attention_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[L]] {logits_soft_cap = 2.000000e+00 : f32, softmax_scale = 5.000000e-01 : f32}
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__grad_diag
// CHECK: ejk.flash_attention_grad %{{.*}} {causal, logits_soft_cap
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__grad_zzkv
// CHECK-SAME: tensor<1x64x8x32xf32>, %{{.*}}: tensor<1x32x2x32xf32>, %{{.*}}: tensor<1x32x2x16xf32>, %{{.*}}: tensor<1x64x8x16xf32>, %{{.*}}: tensor<1x64x8x16xf32>, %{{.*}}: tensor<1x8x64xf32>) -> (tensor<1x64x8x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x16xf32>)
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__grad_zzq
// CHECK-SAME: tensor<1x32x8x32xf32>, %{{.*}}: tensor<1x64x2x32xf32>, %{{.*}}: tensor<1x64x2x16xf32>, %{{.*}}: tensor<1x32x8x16xf32>, %{{.*}}: tensor<1x32x8x16xf32>, %{{.*}}: tensor<1x8x32xf32>) -> (tensor<1x32x8x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x16xf32>)
// The gathered form's blocks (forward only, unmasked): rank r's first
// chunk (32 rows) against chunks 0..r-1, its second against the 2n-2-r
// chunks before it but its own (prefixes of the gathered key/value).
// CHECK-NOT: gzlo0
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__gzlo1
// CHECK-SAME: (%{{.*}}: tensor<1x32x8x32xf32>, %{{.*}}: tensor<1x32x2x32xf32>, %{{.*}}: tensor<1x32x2x16xf32>) -> (tensor<1x32x8x16xf32>, tensor<1x8x32xf32>)
// CHECK: ejk.flash_attention %{{.*}} {logits_soft_cap = 2.000000e+00 : f32, softmax_scale = 5.000000e-01 : f32}
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__gzlo3
// CHECK-SAME: tensor<1x96x2x32xf32>
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__gzhi0
// CHECK-SAME: tensor<1x192x2x32xf32>
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__gzhi3
// CHECK-SAME: (%{{.*}}: tensor<1x32x8x32xf32>, %{{.*}}: tensor<1x96x2x32xf32>, %{{.*}}: tensor<1x96x2x16xf32>) -> (tensor<1x32x8x16xf32>, tensor<1x8x32xf32>)
// The whole-sequence blocks of the device copies: rank r's first chunk
// against chunks 0..r, its second (chunk 2n-1-r) against chunks
// 0..2n-1-r, causal with the diagonal bottom-right.
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__gclo0
// CHECK-SAME: (%{{.*}}: tensor<1x32x8x32xf32>, %{{.*}}: tensor<1x32x2x32xf32>, %{{.*}}: tensor<1x32x2x16xf32>) -> (tensor<1x32x8x16xf32>, tensor<1x8x32xf32>)
// CHECK: ejk.flash_attention %{{.*}} {causal, logits_soft_cap = 2.000000e+00 : f32, mask_alignment = "bottom_right", softmax_scale = 5.000000e-01 : f32}
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__gclo3
// CHECK-SAME: tensor<1x128x2x32xf32>
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__gchi0
// CHECK-SAME: tensor<1x256x2x32xf32>
// CHECK: mask_alignment = "bottom_right"
// CHECK-LABEL: func.func @causal__ring__n4__c1__wn__gchi3
// CHECK-SAME: (%{{.*}}: tensor<1x32x8x32xf32>, %{{.*}}: tensor<1x160x2x32xf32>, %{{.*}}: tensor<1x160x2x16xf32>) -> (tensor<1x32x8x16xf32>, tensor<1x8x32xf32>)
// CHECK-NOT: __grad_g
func.func @causal(%q: tensor<1x64x8x32xf32>, %k: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x16xf32>)
    -> (tensor<1x64x8x16xf32>, tensor<1x8x64xf32>) {
  %o, %l = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64, causal, logits_soft_cap = 2.0 : f32, softmax_scale = 0.5 : f32}
      : tensor<1x64x8x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x8x16xf32>, tensor<1x8x64xf32>
  return %o, %l : tensor<1x64x8x16xf32>, tensor<1x8x64xf32>
}

// -----

// Without lse the entries still return it: the ring merges with it.
// CHECK-LABEL: func.func @window__ring__n2__c0__w10_3__full
// CHECK-LABEL: func.func @window__ring__n2__c0__w10_3__diag
// CHECK: ejk.flash_attention %{{.*}} {sliding_window = array<i64: 10, 3>, softmax_scale
// CHECK-LABEL: func.func @window__ring__n2__c0__w10_3__masked
// CHECK-SAME: %[[M:[^:]*]]: tensor<1x1x16x16xi1>) -> (tensor<2x16x4x8xf32>, tensor<2x4x16xf32>)
// CHECK: ejk.flash_attention %{{.*}} mask(%[[M]] : tensor<1x1x16x16xi1>)
// CHECK-LABEL: func.func @window__ring__n2__c0__w10_3__grad_full
// CHECK-LABEL: func.func @window__ring__n2__c0__w10_3__grad_diag
// CHECK: ejk.flash_attention_grad %{{.*}} {sliding_window = array<i64: 10, 3>, softmax_scale
// CHECK-LABEL: func.func @window__ring__n2__c0__w10_3__grad_masked
// CHECK-SAME: %[[GM:[^:]*]]: tensor<1x1x16x16xi1>) -> (tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>)
// CHECK: ejk.flash_attention_grad %{{.*}} mask(%[[GM]] : tensor<1x1x16x16xi1>)
// CHECK-NOT: zzkv
// CHECK-NOT: __g
func.func @window(%q: tensor<2x16x4x8xf32>, %k: tensor<2x16x4x8xf32>, %v: tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32> {
  %o = ejk.ring_attention %q, %k, %v {ring_size = 2 : i64, sliding_window = array<i64: 10, 3>}
      : tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32> -> tensor<2x16x4x8xf32>
  return %o : tensor<2x16x4x8xf32>
}

// -----

// f16 rings: the blocks keep the element type; lse stays f32.
// CHECK-LABEL: func.func @half__ring__n2__c1__wn__full
// CHECK-SAME: -> (tensor<1x16x2x8xf16>, tensor<1x2x16xf32>)
// CHECK-LABEL: func.func @half__ring__n2__c1__wn__zzq
// CHECK-SAME: (%{{.*}}: tensor<1x8x2x8xf16>, %{{.*}}: tensor<1x16x2x8xf16>, %{{.*}}: tensor<1x16x2x8xf16>) -> (tensor<1x8x2x8xf16>, tensor<1x2x8xf32>)
func.func @half(%q: tensor<1x16x2x8xf16>, %k: tensor<1x16x2x8xf16>, %v: tensor<1x16x2x8xf16>) -> tensor<1x16x2x8xf16> {
  %o = ejk.ring_attention %q, %k, %v {ring_size = 2 : i64, causal}
      : tensor<1x16x2x8xf16>, tensor<1x16x2x8xf16>, tensor<1x16x2x8xf16> -> tensor<1x16x2x8xf16>
  return %o : tensor<1x16x2x8xf16>
}

// -----

// Segment ids: every block takes the segment ids of its rows last
// (q_segment_ids [B, q rows], kv_segment_ids [B, kv rows]), the zigzag
// halves' of their halves, and masks with them; mask before them.
// CHECK-LABEL: func.func @packed__ring__n2__c1__wn__full
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<2x16x4x8xf16>, %[[K:[^:]*]]: tensor<2x16x2x8xf16>, %[[V:[^:]*]]: tensor<2x16x2x8xf16>, %[[QS:[^:]*]]: tensor<2x16xi32>, %[[KS:[^:]*]]: tensor<2x16xi32>)
// CHECK: ejk.flash_attention %[[Q]], %[[K]], %[[V]] q_segment_ids(%[[QS]] : tensor<2x16xi32>) kv_segment_ids(%[[KS]] : tensor<2x16xi32>) {softmax_scale
// CHECK-LABEL: func.func @packed__ring__n2__c1__wn__diag
// CHECK: ejk.flash_attention %{{.*}} q_segment_ids(%{{.*}} : tensor<2x16xi32>) kv_segment_ids(%{{.*}} : tensor<2x16xi32>) {causal,
// CHECK-LABEL: func.func @packed__ring__n2__c1__wn__zzkv
// CHECK-SAME: %{{.*}}: tensor<2x16xi32>, %{{.*}}: tensor<2x8xi32>) -> (tensor<2x16x4x8xf16>, tensor<2x4x16xf32>)
// CHECK: q_segment_ids(%{{.*}} : tensor<2x16xi32>) kv_segment_ids(%{{.*}} : tensor<2x8xi32>)
// CHECK-LABEL: func.func @packed__ring__n2__c1__wn__zzq
// CHECK-SAME: %{{.*}}: tensor<2x8xi32>, %{{.*}}: tensor<2x16xi32>) -> (tensor<2x8x4x8xf16>, tensor<2x4x8xf32>)
// CHECK: q_segment_ids(%{{.*}} : tensor<2x8xi32>) kv_segment_ids(%{{.*}} : tensor<2x16xi32>)
// CHECK-LABEL: func.func @packed__ring__n2__c1__wn__grad_full
// CHECK-SAME: (%[[GQ:[^:]*]]: tensor<2x16x4x8xf16>, %{{[^:]*}}: tensor<2x16x2x8xf16>, %{{[^:]*}}: tensor<2x16x2x8xf16>, %{{[^:]*}}: tensor<2x16x4x8xf16>, %{{[^:]*}}: tensor<2x16x4x8xf16>, %{{[^:]*}}: tensor<2x4x16xf32>, %[[GQS:[^:]*]]: tensor<2x16xi32>, %[[GKS:[^:]*]]: tensor<2x16xi32>)
// CHECK: ejk.flash_attention_grad %[[GQ]], {{.*}} q_segment_ids(%[[GQS]] : tensor<2x16xi32>) kv_segment_ids(%[[GKS]] : tensor<2x16xi32>)
// CHECK-LABEL: func.func @packed__ring__n2__c1__wn__grad_zzkv
// CHECK-SAME: %{{.*}}: tensor<2x16xi32>, %{{.*}}: tensor<2x8xi32>) -> (tensor<2x16x4x8xf16>, tensor<2x8x2x8xf16>, tensor<2x8x2x8xf16>)
// CHECK-LABEL: func.func @packed__ring__n2__c1__wn__grad_zzq
// CHECK-SAME: %{{.*}}: tensor<2x8xi32>, %{{.*}}: tensor<2x16xi32>) -> (tensor<2x8x4x8xf16>, tensor<2x16x2x8xf16>, tensor<2x16x2x8xf16>)
func.func @packed(%q: tensor<2x16x4x8xf16>, %k: tensor<2x16x2x8xf16>, %v: tensor<2x16x2x8xf16>, %qs: tensor<2x16xi32>, %ks: tensor<2x16xi32>)
    -> (tensor<2x16x4x8xf16>, tensor<2x4x16xf32>) {
  %o, %l = ejk.ring_attention %q, %k, %v q_segment_ids(%qs : tensor<2x16xi32>) kv_segment_ids(%ks : tensor<2x16xi32>) {ring_size = 2 : i64, causal}
      : tensor<2x16x4x8xf16>, tensor<2x16x2x8xf16>, tensor<2x16x2x8xf16> -> tensor<2x16x4x8xf16>, tensor<2x4x16xf32>
  return %o, %l : tensor<2x16x4x8xf16>, tensor<2x4x16xf32>
}

// -----

// A window ring with segments: the masked block takes its mask, then the
// segment ids.
// CHECK-LABEL: func.func @packed_window__ring__n2__c0__w4_0__masked
// CHECK-SAME: %[[M:[^:]*]]: tensor<1x1x8x8xi1>, %[[MQS:[^:]*]]: tensor<1x8xi32>, %[[MKS:[^:]*]]: tensor<1x8xi32>)
// CHECK: ejk.flash_attention %{{.*}} mask(%[[M]] : tensor<1x1x8x8xi1>) q_segment_ids(%[[MQS]] : tensor<1x8xi32>) kv_segment_ids(%[[MKS]] : tensor<1x8xi32>)
// CHECK-LABEL: func.func @packed_window__ring__n2__c0__w4_0__grad_masked
// CHECK-SAME: %[[GM:[^:]*]]: tensor<1x1x8x8xi1>, %[[GMQS:[^:]*]]: tensor<1x8xi32>, %[[GMKS:[^:]*]]: tensor<1x8xi32>)
// CHECK: ejk.flash_attention_grad %{{.*}} mask(%[[GM]] : tensor<1x1x8x8xi1>) q_segment_ids(%[[GMQS]] : tensor<1x8xi32>) kv_segment_ids(%[[GMKS]] : tensor<1x8xi32>)
func.func @packed_window(%q: tensor<1x8x2x8xf32>, %k: tensor<1x8x2x8xf32>, %v: tensor<1x8x2x8xf32>, %qs: tensor<1x8xi32>, %ks: tensor<1x8xi32>) -> tensor<1x8x2x8xf32> {
  %o = ejk.ring_attention %q, %k, %v q_segment_ids(%qs : tensor<1x8xi32>) kv_segment_ids(%ks : tensor<1x8xi32>) {ring_size = 2 : i64, sliding_window = array<i64: 4, 0>}
      : tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32> -> tensor<1x8x2x8xf32>
  return %o : tensor<1x8x2x8xf32>
}

// -----

// Non-causal: one gathered block, all queries against the other 3 shards.
// CHECK-LABEL: func.func @plain__ring__n4__c0__wn__gfull
// CHECK-SAME: (%{{.*}}: tensor<1x16x4x8xf16>, %{{.*}}: tensor<1x48x2x8xf16>, %{{.*}}: tensor<1x48x2x8xf16>) -> (tensor<1x16x4x8xf16>, tensor<1x4x16xf32>)
// CHECK: ejk.flash_attention %{{.*}} {softmax_scale
// CHECK-NOT: gz
// And the whole-sequence block: all queries against all 4 shards.
// CHECK-LABEL: func.func @plain__ring__n4__c0__wn__gall
// CHECK-SAME: (%{{.*}}: tensor<1x16x4x8xf16>, %{{.*}}: tensor<1x64x2x8xf16>, %{{.*}}: tensor<1x64x2x8xf16>) -> (tensor<1x16x4x8xf16>, tensor<1x4x16xf32>)
// CHECK: ejk.flash_attention %{{.*}} {softmax_scale
// CHECK-NOT: gclo
func.func @plain(%q: tensor<1x16x4x8xf16>, %k: tensor<1x16x2x8xf16>, %v: tensor<1x16x2x8xf16>) -> tensor<1x16x4x8xf16> {
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64}
      : tensor<1x16x4x8xf16>, tensor<1x16x2x8xf16>, tensor<1x16x2x8xf16> -> tensor<1x16x4x8xf16>
  return %o : tensor<1x16x4x8xf16>
}

// -----

// The whole-sequence causal blocks of a ring of 3 (shards of 8: chunks of
// 4, rank r holding chunks r and 5-r): rank r's first chunk sees chunks
// 0..r, (r+1) 4 keys; its second chunk sees chunks 0..5-r, (6-r) 4 keys;
// both causal with the diagonal bottom-right, so that query i of a chunk
// sees the prefix up to its own global position.
// CHECK-LABEL: func.func @three__ring__n3__c1__wn__gclo0
// CHECK-SAME: (%{{.*}}: tensor<1x4x2x8xf32>, %{{.*}}: tensor<1x4x2x8xf32>, %{{.*}}: tensor<1x4x2x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
// CHECK: ejk.flash_attention %{{.*}} {causal, mask_alignment = "bottom_right"
// CHECK-LABEL: func.func @three__ring__n3__c1__wn__gclo1
// CHECK-SAME: tensor<1x8x2x8xf32>
// CHECK: {causal, mask_alignment = "bottom_right"
// CHECK-LABEL: func.func @three__ring__n3__c1__wn__gclo2
// CHECK-SAME: tensor<1x12x2x8xf32>
// CHECK: {causal, mask_alignment = "bottom_right"
// CHECK-LABEL: func.func @three__ring__n3__c1__wn__gchi0
// CHECK-SAME: (%{{.*}}: tensor<1x4x2x8xf32>, %{{.*}}: tensor<1x24x2x8xf32>, %{{.*}}: tensor<1x24x2x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
// CHECK: {causal, mask_alignment = "bottom_right"
// CHECK-LABEL: func.func @three__ring__n3__c1__wn__gchi1
// CHECK-SAME: tensor<1x20x2x8xf32>
// CHECK: {causal, mask_alignment = "bottom_right"
// CHECK-LABEL: func.func @three__ring__n3__c1__wn__gchi2
// CHECK-SAME: tensor<1x16x2x8xf32>
// CHECK: {causal, mask_alignment = "bottom_right"
// CHECK-NOT: gall
func.func @three(%q: tensor<1x8x2x8xf32>, %k: tensor<1x8x2x8xf32>, %v: tensor<1x8x2x8xf32>) -> tensor<1x8x2x8xf32> {
  %o = ejk.ring_attention %q, %k, %v {ring_size = 3 : i64, causal}
      : tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32> -> tensor<1x8x2x8xf32>
  return %o : tensor<1x8x2x8xf32>
}

// -----

// Odd causal shards have no zigzag chunks: no whole-sequence blocks (the
// runtime then keeps the step-by-step ring), and no `gall` either.
// CHECK-LABEL: func.func @odd__ring__n2__c1__wn__full
// CHECK-NOT: {{__g(all|clo|chi|z|full)}}
func.func @odd(%q: tensor<1x7x2x8xf32>, %k: tensor<1x7x2x8xf32>, %v: tensor<1x7x2x8xf32>) -> tensor<1x7x2x8xf32> {
  %o = ejk.ring_attention %q, %k, %v {ring_size = 2 : i64, causal}
      : tensor<1x7x2x8xf32>, tensor<1x7x2x8xf32>, tensor<1x7x2x8xf32> -> tensor<1x7x2x8xf32>
  return %o : tensor<1x7x2x8xf32>
}
