// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// GQA 32:8, only the required ring_size.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<1x1024x32x128xbf16>, %[[K:.*]]: tensor<1x1024x8x128xbf16>, %[[V:.*]]: tensor<1x1024x8x128xbf16>)
// CHECK: %[[O:.*]] = ejk.ring_attention %[[Q]], %[[K]], %[[V]] {ring_size = 8 : i64} : tensor<1x1024x32x128xbf16>, tensor<1x1024x8x128xbf16>, tensor<1x1024x8x128xbf16> -> tensor<1x1024x32x128xbf16>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<1x1024x32x128xbf16>, %k: tensor<1x1024x8x128xbf16>, %v: tensor<1x1024x8x128xbf16>)
    -> tensor<1x1024x32x128xbf16> {
  %o = ejk.ring_attention %q, %k, %v {ring_size = 8 : i64}
      : tensor<1x1024x32x128xbf16>, tensor<1x1024x8x128xbf16>, tensor<1x1024x8x128xbf16>
      -> tensor<1x1024x32x128xbf16>
  return %o : tensor<1x1024x32x128xbf16>
}

// -----

// Every optional operand and attribute, both results, head_dim_v != head_dim.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[QS:[^:]*]]: tensor<2x64xi32>, %[[KS:[^:]*]]: tensor<2x64xi32>
// CHECK: %{{.*}}, %{{.*}} = ejk.ring_attention %{{.*}}, %{{.*}}, %{{.*}} q_segment_ids(%[[QS]] : tensor<2x64xi32>) kv_segment_ids(%[[KS]] : tensor<2x64xi32>)
// CHECK-SAME: axis_name = "sp"
// CHECK-SAME: causal
// CHECK-SAME: config = #ejk.config<block_k = 32, block_q = 16>
// CHECK-SAME: logits_soft_cap = 2.000000e+01 : f32
// CHECK-SAME: ring_size = 4 : i64
// CHECK-SAME: sliding_window = array<i64: 100, 0>
// CHECK-SAME: softmax_scale = 1.250000e-01 : f32
// CHECK-SAME: -> tensor<2x64x4x32xf32>, tensor<2x4x64xf32>
func.func @all_options(%q: tensor<2x64x4x64xf32>, %k: tensor<2x64x4x64xf32>, %v: tensor<2x64x4x32xf32>,
                       %qs: tensor<2x64xi32>, %ks: tensor<2x64xi32>) -> (tensor<2x64x4x32xf32>, tensor<2x4x64xf32>) {
  %o, %lse = ejk.ring_attention %q, %k, %v q_segment_ids(%qs : tensor<2x64xi32>) kv_segment_ids(%ks : tensor<2x64xi32>)
      {ring_size = 4 : i64, axis_name = "sp", causal, sliding_window = array<i64: 100, 0>,
       softmax_scale = 0.125 : f32, logits_soft_cap = 20.0 : f32, config = #ejk.config<block_q = 16, block_k = 32>}
      : tensor<2x64x4x64xf32>, tensor<2x64x4x64xf32>, tensor<2x64x4x32xf32> -> tensor<2x64x4x32xf32>, tensor<2x4x64xf32>
  return %o, %lse : tensor<2x64x4x32xf32>, tensor<2x4x64xf32>
}
