// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// GQA 32:8, f32 queries over an f16 cache (vLLM's token-major pages).
// CHECK-LABEL: func.func @mixed_precision
// CHECK-SAME: (%[[Q:.*]]: tensor<8x32x128xf32>, %[[KC:.*]]: tensor<1024x16x8x128xf16>, %[[VC:.*]]: tensor<1024x16x8x128xf16>, %[[LENS:.*]]: tensor<8xi32>, %[[TABLES:.*]]: tensor<8x256xi32>)
// CHECK: %[[O:.*]] = ejk.paged_attention %[[Q]], %[[KC]], %[[VC]], %[[LENS]], %[[TABLES]] {kv_layout = "token_major"} : tensor<8x32x128xf32>, tensor<1024x16x8x128xf16>, tensor<1024x16x8x128xf16>, tensor<8xi32>, tensor<8x256xi32> -> tensor<8x32x128xf32>
// CHECK: return %[[O]]
func.func @mixed_precision(%q: tensor<8x32x128xf32>, %kc: tensor<1024x16x8x128xf16>, %vc: tensor<1024x16x8x128xf16>,
                           %lens: tensor<8xi32>, %tables: tensor<8x256xi32>) -> tensor<8x32x128xf32> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {kv_layout = "token_major"}
      : tensor<8x32x128xf32>, tensor<1024x16x8x128xf16>, tensor<1024x16x8x128xf16>, tensor<8xi32>, tensor<8x256xi32>
      -> tensor<8x32x128xf32>
  return %o : tensor<8x32x128xf32>
}

// -----

// Every attribute; MQA, bf16 throughout (head-major pages, the default); a
// window of 1 sees the last token only; the lse result.
// CHECK-LABEL: func.func @all_options
// CHECK: ejk.paged_attention
// CHECK-SAME: {config = #ejk.config<block_k = 256, num_splits = 4, num_subgroups = 2>, kv_layout = "head_major", logits_soft_cap = 5.000000e+01 : f32, sliding_window = 1 : i64, softmax_scale = 0.0883789062 : f32}
// CHECK-SAME: : tensor<2x16x128xbf16>, tensor<64x1x32x128xbf16>, tensor<64x1x32x128xbf16>, tensor<2xi32>, tensor<2x32xi32> -> tensor<2x16x128xbf16>, tensor<2x16xf32>
func.func @all_options(%q: tensor<2x16x128xbf16>, %kc: tensor<64x1x32x128xbf16>, %vc: tensor<64x1x32x128xbf16>,
                       %lens: tensor<2xi32>, %tables: tensor<2x32xi32>) -> (tensor<2x16x128xbf16>, tensor<2x16xf32>) {
  %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables
      {softmax_scale = 0.08837890625 : f32, logits_soft_cap = 50.0 : f32, sliding_window = 1 : i64,
       kv_layout = "head_major", config = #ejk.config<block_k = 256, num_subgroups = 2, num_splits = 4>}
      : tensor<2x16x128xbf16>, tensor<64x1x32x128xbf16>, tensor<64x1x32x128xbf16>, tensor<2xi32>, tensor<2x32xi32>
      -> tensor<2x16x128xbf16>, tensor<2x16xf32>
  return %o, %lse : tensor<2x16x128xbf16>, tensor<2x16xf32>
}

// -----

// A quantized int8 cache with its dequantization scales.
// CHECK-LABEL: func.func @int8_cache
// CHECK: ejk.paged_attention
// CHECK-SAME: {k_scale = 2.500000e-02 : f32, v_scale = 1.250000e-01 : f32}
// CHECK-SAME: tensor<16x4x16x64xi8>
func.func @int8_cache(%q: tensor<2x8x64xf16>, %kc: tensor<16x4x16x64xi8>, %vc: tensor<16x4x16x64xi8>,
                      %lens: tensor<2xi32>, %tables: tensor<2x8xi32>) -> tensor<2x8x64xf16> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {k_scale = 0.025 : f32, v_scale = 0.125 : f32}
      : tensor<2x8x64xf16>, tensor<16x4x16x64xi8>, tensor<16x4x16x64xi8>, tensor<2xi32>, tensor<2x8xi32>
      -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}
