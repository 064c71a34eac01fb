// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// A 512-token chunk per sequence, GQA 32:8.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x512x32x128xbf16>, %[[KC:.*]]: tensor<1024x16x8x128xbf16>, %[[VC:.*]]: tensor<1024x16x8x128xbf16>, %[[LENS:.*]]: tensor<2xi32>, %[[TABLES:.*]]: tensor<2x256xi32>)
// CHECK: %[[O:.*]] = ejk.prefill_paged_attention %[[Q]], %[[KC]], %[[VC]], %[[LENS]], %[[TABLES]] : tensor<2x512x32x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<2xi32>, tensor<2x256xi32> -> tensor<2x512x32x128xbf16>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<2x512x32x128xbf16>, %kc: tensor<1024x16x8x128xbf16>, %vc: tensor<1024x16x8x128xbf16>,
                 %lens: tensor<2xi32>, %tables: tensor<2x256xi32>) -> tensor<2x512x32x128xbf16> {
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables
      : tensor<2x512x32x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<1024x16x8x128xbf16>, tensor<2xi32>, tensor<2x256xi32>
      -> tensor<2x512x32x128xbf16>
  return %o : tensor<2x512x32x128xbf16>
}

// -----

// Every attribute; f32 queries over an f16 cache, MHA.
// CHECK-LABEL: func.func @all_options
// CHECK: ejk.prefill_paged_attention
// CHECK-SAME: {config = #ejk.config<block_k = 64, block_q = 64, num_subgroups = 4>, logits_soft_cap = 3.000000e+01 : f32, softmax_scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<1x100x4x64xf32>, tensor<32x16x4x64xf16>, tensor<32x16x4x64xf16>, tensor<1xi32>, tensor<1x32xi32> -> tensor<1x100x4x64xf32>
func.func @all_options(%q: tensor<1x100x4x64xf32>, %kc: tensor<32x16x4x64xf16>, %vc: tensor<32x16x4x64xf16>,
                       %lens: tensor<1xi32>, %tables: tensor<1x32xi32>) -> tensor<1x100x4x64xf32> {
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables
      {softmax_scale = 0.125 : f32, logits_soft_cap = 30.0 : f32,
       config = #ejk.config<block_q = 64, block_k = 64, num_subgroups = 4>}
      : tensor<1x100x4x64xf32>, tensor<32x16x4x64xf16>, tensor<32x16x4x64xf16>, tensor<1xi32>, tensor<1x32xi32>
      -> tensor<1x100x4x64xf32>
  return %o : tensor<1x100x4x64xf32>
}
