// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// 16 sequence slots, 512 packed query tokens, GQA 32:8.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<512x32x128xbf16>, %[[KP:.*]]: tensor<2048x16x8x128xbf16>, %[[VP:.*]]: tensor<2048x16x8x128xbf16>, %[[KVL:.*]]: tensor<16xi32>, %[[PI:.*]]: tensor<16x128xi32>, %[[CU:.*]]: tensor<17xi32>, %[[N:.*]]: tensor<1xi32>)
// CHECK: %[[O:.*]] = ejk.ragged_paged_attention %[[Q]], %[[KP]], %[[VP]], %[[KVL]], %[[PI]], %[[CU]], %[[N]] : tensor<512x32x128xbf16>, tensor<2048x16x8x128xbf16>, tensor<2048x16x8x128xbf16>, tensor<16xi32>, tensor<16x128xi32>, tensor<17xi32>, tensor<1xi32> -> tensor<512x32x128xbf16>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<512x32x128xbf16>, %kp: tensor<2048x16x8x128xbf16>, %vp: tensor<2048x16x8x128xbf16>,
                 %kv_lens: tensor<16xi32>, %pages: tensor<16x128xi32>, %cu_q_lens: tensor<17xi32>,
                 %n: tensor<1xi32>) -> tensor<512x32x128xbf16> {
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu_q_lens, %n
      : tensor<512x32x128xbf16>, tensor<2048x16x8x128xbf16>, tensor<2048x16x8x128xbf16>, tensor<16xi32>,
        tensor<16x128xi32>, tensor<17xi32>, tensor<1xi32>
      -> tensor<512x32x128xbf16>
  return %o : tensor<512x32x128xbf16>
}

// -----

// Every attribute; f32 queries over f16 pages.
// CHECK-LABEL: func.func @all_options
// CHECK: ejk.ragged_paged_attention
// CHECK-SAME: {config = #ejk.config<block_k = 128, block_q = 32, num_subgroups = 4>, logits_soft_cap = 3.000000e+01 : f32, sliding_window = 4095 : i64, softmax_scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<64x8x64xf32>, tensor<256x16x2x64xf16>, tensor<256x16x2x64xf16>, tensor<4xi32>, tensor<4x64xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xf32>
func.func @all_options(%q: tensor<64x8x64xf32>, %kp: tensor<256x16x2x64xf16>, %vp: tensor<256x16x2x64xf16>,
                       %kv_lens: tensor<4xi32>, %pages: tensor<4x64xi32>, %cu_q_lens: tensor<5xi32>,
                       %n: tensor<1xi32>) -> tensor<64x8x64xf32> {
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu_q_lens, %n
      {softmax_scale = 0.125 : f32, logits_soft_cap = 30.0 : f32, sliding_window = 4095 : i64,
       config = #ejk.config<block_q = 32, block_k = 128, num_subgroups = 4>}
      : tensor<64x8x64xf32>, tensor<256x16x2x64xf16>, tensor<256x16x2x64xf16>, tensor<4xi32>, tensor<4x64xi32>,
        tensor<5xi32>, tensor<1xi32>
      -> tensor<64x8x64xf32>
  return %o : tensor<64x8x64xf32>
}

// -----

// v3's fused write with sinks over a head-major int8 cache.
// CHECK-LABEL: func.func @write_and_sinks
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = ejk.ragged_paged_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} new_kv(%[[K:.*]], %[[V:.*]] : tensor<64x2x64xf32>, tensor<64x2x64xf32>) sinks(%[[S:.*]] : tensor<8xf32>)
// CHECK-SAME: k_scale = 5.000000e-01 : f32, kv_layout = "head_major"
// CHECK-SAME: -> tensor<64x8x64xf32>, tensor<256x2x16x64xi8>, tensor<256x2x16x64xi8>
func.func @write_and_sinks(%q: tensor<64x8x64xf32>, %kp: tensor<256x2x16x64xi8>, %vp: tensor<256x2x16x64xi8>,
                           %kv_lens: tensor<4xi32>, %pages: tensor<4x64xi32>, %cu_q_lens: tensor<5xi32>,
                           %n: tensor<1xi32>, %k: tensor<64x2x64xf32>, %v: tensor<64x2x64xf32>,
                           %s: tensor<8xf32>) -> tensor<64x8x64xf32> {
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu_q_lens, %n
      new_kv(%k, %v : tensor<64x2x64xf32>, tensor<64x2x64xf32>) sinks(%s : tensor<8xf32>)
      {kv_layout = "head_major", k_scale = 0.5 : f32}
      : tensor<64x8x64xf32>, tensor<256x2x16x64xi8>, tensor<256x2x16x64xi8>, tensor<4xi32>, tensor<4x64xi32>,
        tensor<5xi32>, tensor<1xi32>
      -> tensor<64x8x64xf32>, tensor<256x2x16x64xi8>, tensor<256x2x16x64xi8>
  return %o#0 : tensor<64x8x64xf32>
}
