// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x77x8x64xf32>, %[[K:.*]]: tensor<2x100x8x64xf32>, %[[V:.*]]: tensor<2x100x8x32xf32>)
// CHECK: %[[O:.*]] = ejk.flash_attention %[[Q]], %[[K]], %[[V]] : tensor<2x77x8x64xf32>, tensor<2x100x8x64xf32>, tensor<2x100x8x32xf32> -> tensor<2x77x8x32xf32>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<2x77x8x64xf32>, %k: tensor<2x100x8x64xf32>, %v: tensor<2x100x8x32xf32>) -> tensor<2x77x8x32xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<2x77x8x64xf32>, tensor<2x100x8x64xf32>, tensor<2x100x8x32xf32> -> tensor<2x77x8x32xf32>
  return %o : tensor<2x77x8x32xf32>
}

// -----

// GQA 8:2 with every option and both results.
// CHECK-LABEL: func.func @all_options
// CHECK: %{{.*}}, %{{.*}} = ejk.flash_attention %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<1x8x128x256xf32>) mask(%{{.*}} : tensor<1x1x128x256xi1>) q_segment_ids(%{{.*}} : tensor<1x128xi32>) kv_segment_ids(%{{.*}} : tensor<1x256xi32>)
// CHECK-SAME: causal
// CHECK-SAME: config = #ejk.config<block_k = 64, block_q = 32>
// CHECK-SAME: dropout_prob = 1.000000e-01 : f32
// CHECK-SAME: dropout_seed = 42
// CHECK-SAME: logits_soft_cap = 3.000000e+01 : f32
// CHECK-SAME: sliding_window = array<i64: 128, 0>
// CHECK-SAME: softmax_scale = 1.250000e-01 : f32
// CHECK-SAME: -> tensor<1x128x8x64xf16>, tensor<1x8x128xf32>
func.func @all_options(%q: tensor<1x128x8x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>,
                       %bias: tensor<1x8x128x256xf32>, %mask: tensor<1x1x128x256xi1>,
                       %qs: tensor<1x128xi32>, %ks: tensor<1x256xi32>) -> (tensor<1x128x8x64xf16>, tensor<1x8x128xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v bias(%bias : tensor<1x8x128x256xf32>) mask(%mask : tensor<1x1x128x256xi1>)
      q_segment_ids(%qs : tensor<1x128xi32>) kv_segment_ids(%ks : tensor<1x256xi32>)
      {causal, softmax_scale = 0.125 : f32, sliding_window = array<i64: 128, 0>, logits_soft_cap = 30.0 : f32,
       dropout_prob = 0.1 : f32, dropout_seed = 42 : i64, config = #ejk.config<block_q = 32, block_k = 64>}
      : tensor<1x128x8x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x128x8x64xf16>, tensor<1x8x128xf32>
  return %o, %lse : tensor<1x128x8x64xf16>, tensor<1x8x128xf32>
}

// -----

// MQA (one kv head), bf16, single query, empty config.
// CHECK-LABEL: func.func @mqa_decode
// CHECK: ejk.flash_attention %{{.*}}, %{{.*}}, %{{.*}} {config = #ejk.config<>} : tensor<4x1x32x128xbf16>, tensor<4x4096x1x128xbf16>, tensor<4x4096x1x128xbf16> -> tensor<4x1x32x128xbf16>
func.func @mqa_decode(%q: tensor<4x1x32x128xbf16>, %k: tensor<4x4096x1x128xbf16>, %v: tensor<4x4096x1x128xbf16>) -> tensor<4x1x32x128xbf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<>} : tensor<4x1x32x128xbf16>, tensor<4x4096x1x128xbf16>, tensor<4x4096x1x128xbf16> -> tensor<4x1x32x128xbf16>
  return %o : tensor<4x1x32x128xbf16>
}

// -----

// Bottom-right alignment (decode against a longer cache).
// CHECK-LABEL: func.func @bottom_right
// CHECK: ejk.flash_attention %{{.*}}, %{{.*}}, %{{.*}} {causal, mask_alignment = "bottom_right"}
func.func @bottom_right(%q: tensor<1x4x8x64xf32>, %k: tensor<1x100x2x64xf32>, %v: tensor<1x100x2x64xf32>) -> tensor<1x4x8x64xf32> {
  %o = ejk.flash_attention %q, %k, %v {causal, mask_alignment = "bottom_right"} : tensor<1x4x8x64xf32>, tensor<1x100x2x64xf32>, tensor<1x100x2x64xf32> -> tensor<1x4x8x64xf32>
  return %o : tensor<1x4x8x64xf32>
}

// -----

// Issue 16's options: sinks, a padding mask, variable lengths, an
// unnormalized output.
// CHECK-LABEL: func.func @sinks_padding_varlen
// CHECK: ejk.flash_attention %{{.*}}, %{{.*}}, %{{.*}} softmax_aux(%{{.*}} : tensor<8x2xf32>) padding_mask(%{{.*}} : tensor<2x16xi1>) cum_seqlens_q(%{{.*}} : tensor<3xi32>) cum_seqlens_k(%{{.*}} : tensor<3xi32>) {causal, normalize_output = false}
func.func @sinks_padding_varlen(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>, %s: tensor<8x2xf32>, %p: tensor<2x16xi1>, %cq: tensor<3xi32>, %ck: tensor<3xi32>) -> tensor<2x16x8x64xf32> {
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<8x2xf32>) padding_mask(%p : tensor<2x16xi1>) cum_seqlens_q(%cq : tensor<3xi32>) cum_seqlens_k(%ck : tensor<3xi32>) {causal, normalize_output = false} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return %o : tensor<2x16x8x64xf32>
}

// -----

// Shared sinks; normalize_output = true is the default and not printed.
// CHECK-LABEL: func.func @shared_sinks
// CHECK: ejk.flash_attention %{{.*}}, %{{.*}}, %{{.*}} softmax_aux(%{{.*}} : tensor<4xbf16>) :
func.func @shared_sinks(%q: tensor<1x4x8x64xbf16>, %k: tensor<1x4x8x64xbf16>, %v: tensor<1x4x8x64xbf16>, %s: tensor<4xbf16>) -> tensor<1x4x8x64xbf16> {
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<4xbf16>) {normalize_output = true} : tensor<1x4x8x64xbf16>, tensor<1x4x8x64xbf16>, tensor<1x4x8x64xbf16> -> tensor<1x4x8x64xbf16>
  return %o : tensor<1x4x8x64xbf16>
}
