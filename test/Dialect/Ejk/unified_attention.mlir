// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// 16 sequences, 512 packed query tokens, GQA 32:8.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<512x32x128xbf16>, %[[KC:.*]]: tensor<2048x16x8x128xbf16>, %[[VC:.*]]: tensor<2048x16x8x128xbf16>, %[[L:.*]]: tensor<16xi32>, %[[T:.*]]: tensor<16x128xi32>, %[[S:.*]]: tensor<17xi32>)
// CHECK: %[[O:.*]] = ejk.unified_attention %[[Q]], %[[KC]], %[[VC]], %[[L]], %[[T]], %[[S]] : tensor<512x32x128xbf16>, tensor<2048x16x8x128xbf16>, tensor<2048x16x8x128xbf16>, tensor<16xi32>, tensor<16x128xi32>, tensor<17xi32> -> tensor<512x32x128xbf16>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<512x32x128xbf16>, %kc: tensor<2048x16x8x128xbf16>, %vc: tensor<2048x16x8x128xbf16>,
                 %lens: tensor<16xi32>, %tables: tensor<16x128xi32>, %starts: tensor<17xi32>) -> tensor<512x32x128xbf16> {
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts
      : tensor<512x32x128xbf16>, tensor<2048x16x8x128xbf16>, tensor<2048x16x8x128xbf16>, tensor<16xi32>,
        tensor<16x128xi32>, tensor<17xi32> -> tensor<512x32x128xbf16>
  return %o : tensor<512x32x128xbf16>
}

// -----

// Every operand and attribute; f32 queries over f16 pages.
// CHECK-LABEL: func.func @all_options
// CHECK: ejk.unified_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} alibi(%{{.*}} : tensor<8xf32>) qq_bias(%{{.*}} : tensor<16x16xf32>) sinks(%{{.*}} : tensor<8xbf16>)
// CHECK-SAME: {config = #ejk.config<block_k = 64, block_q = 1>, logits_soft_cap = 3.000000e+01 : f32, sliding_window = 128 : i64, softmax_scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<64x8x64xf32>, tensor<256x16x2x64xf16>, tensor<256x16x2x64xf16>, tensor<4xi32>, tensor<4x64xi32>, tensor<5xi32> -> tensor<64x8x64xf32>
func.func @all_options(%q: tensor<64x8x64xf32>, %kc: tensor<256x16x2x64xf16>, %vc: tensor<256x16x2x64xf16>,
                       %lens: tensor<4xi32>, %tables: tensor<4x64xi32>, %starts: tensor<5xi32>,
                       %alibi: tensor<8xf32>, %qq: tensor<16x16xf32>, %aux: tensor<8xbf16>) -> tensor<64x8x64xf32> {
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts
      alibi(%alibi : tensor<8xf32>) qq_bias(%qq : tensor<16x16xf32>) sinks(%aux : tensor<8xbf16>)
      {softmax_scale = 0.125 : f32, logits_soft_cap = 30.0 : f32, sliding_window = 128 : i64,
       config = #ejk.config<block_q = 1, block_k = 64>}
      : tensor<64x8x64xf32>, tensor<256x16x2x64xf16>, tensor<256x16x2x64xf16>, tensor<4xi32>,
        tensor<4x64xi32>, tensor<5xi32> -> tensor<64x8x64xf32>
  return %o : tensor<64x8x64xf32>
}

// -----

// Sinks alone.
// CHECK-LABEL: func.func @sinks_only
// CHECK: ejk.unified_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} sinks(%{{.*}} : tensor<4xf32>) :
func.func @sinks_only(%q: tensor<8x4x32xf16>, %kc: tensor<8x1x4x32xf16>, %vc: tensor<8x1x4x32xf16>,
                      %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %starts: tensor<3xi32>,
                      %aux: tensor<4xf32>) -> tensor<8x4x32xf16> {
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts sinks(%aux : tensor<4xf32>)
      : tensor<8x4x32xf16>, tensor<8x1x4x32xf16>, tensor<8x1x4x32xf16>, tensor<2xi32>, tensor<2x4xi32>,
        tensor<3xi32> -> tensor<8x4x32xf16>
  return %o : tensor<8x4x32xf16>
}
