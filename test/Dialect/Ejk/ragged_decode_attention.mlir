// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<8x32x128xbf16>, %[[K:.*]]: tensor<8x4096x8x128xbf16>, %[[V:.*]]: tensor<8x4096x8x128xbf16>, %[[S:.*]]: tensor<8xi32>, %[[E:.*]]: tensor<8xi32>)
// CHECK: %[[O:.*]] = ejk.ragged_decode_attention %[[Q]], %[[K]], %[[V]], %[[S]], %[[E]] : tensor<8x32x128xbf16>, tensor<8x4096x8x128xbf16>, tensor<8x4096x8x128xbf16>, tensor<8xi32>, tensor<8xi32> -> tensor<8x32x128xbf16>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<8x32x128xbf16>, %k: tensor<8x4096x8x128xbf16>, %v: tensor<8x4096x8x128xbf16>,
                 %starts: tensor<8xi32>, %ends: tensor<8xi32>) -> tensor<8x32x128xbf16> {
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends
      : tensor<8x32x128xbf16>, tensor<8x4096x8x128xbf16>, tensor<8x4096x8x128xbf16>, tensor<8xi32>, tensor<8xi32>
      -> tensor<8x32x128xbf16>
  return %o : tensor<8x32x128xbf16>
}

// -----

// Every attribute, per-query-head sinks; f32 queries over f16 keys.
// CHECK-LABEL: func.func @all_options
// CHECK: ejk.ragged_decode_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} sinks(%{{.*}} : tensor<8x2xf32>)
// CHECK-SAME: {config = #ejk.config<block_k = 64, num_splits = 4>, logits_soft_cap = 3.000000e+01 : f32, sliding_window = array<i64: 255, 0>, softmax_scale = 1.250000e-01 : f32}
func.func @all_options(%q: tensor<4x8x64xf32>, %k: tensor<4x512x2x64xf16>, %v: tensor<4x512x2x64xf16>,
                       %starts: tensor<4xi32>, %ends: tensor<4xi32>, %aux: tensor<8x2xf32>) -> tensor<4x8x64xf32> {
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%aux : tensor<8x2xf32>)
      {softmax_scale = 0.125 : f32, logits_soft_cap = 30.0 : f32, sliding_window = array<i64: 255, 0>,
       config = #ejk.config<block_k = 64, num_splits = 4>}
      : tensor<4x8x64xf32>, tensor<4x512x2x64xf16>, tensor<4x512x2x64xf16>, tensor<4xi32>, tensor<4xi32>
      -> tensor<4x8x64xf32>
  return %o : tensor<4x8x64xf32>
}

// -----

// Sinks shared by every head, and per KV head.
// CHECK-LABEL: func.func @shared_sinks
// CHECK: sinks(%{{.*}} : tensor<3xf32>)
// CHECK: sinks(%{{.*}} : tensor<2x1xbf16>)
func.func @shared_sinks(%q: tensor<4x8x64xbf16>, %k: tensor<4x512x2x64xbf16>, %v: tensor<4x512x2x64xbf16>,
                        %starts: tensor<4xi32>, %ends: tensor<4xi32>, %aux: tensor<3xf32>, %kv_aux: tensor<2x1xbf16>)
    -> (tensor<4x8x64xbf16>, tensor<4x8x64xbf16>) {
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%aux : tensor<3xf32>)
      : tensor<4x8x64xbf16>, tensor<4x512x2x64xbf16>, tensor<4x512x2x64xbf16>, tensor<4xi32>, tensor<4xi32>
      -> tensor<4x8x64xbf16>
  %p = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%kv_aux : tensor<2x1xbf16>)
      : tensor<4x8x64xbf16>, tensor<4x512x2x64xbf16>, tensor<4x512x2x64xbf16>, tensor<4xi32>, tensor<4xi32>
      -> tensor<4x8x64xbf16>
  return %o, %p : tensor<4x8x64xbf16>, tensor<4x8x64xbf16>
}
