// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// GQA 8:2, Dv != D, partial last blocks, a block mask broadcast over batch
// and heads.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x100x8x64xf32>, %[[K:.*]]: tensor<2x200x2x64xf32>, %[[V:.*]]: tensor<2x200x2x32xf32>, %[[O:.*]]: tensor<2x100x8x32xf32>, %[[DO:.*]]: tensor<2x100x8x32xf32>, %[[LSE:.*]]: tensor<2x8x100xf32>, %[[BM:.*]]: tensor<1x1x2x4xi1>)
// CHECK: %[[DQ:[^,]*]], %[[DK:[^,]*]], %[[DV:[^ ]*]] = ejk.block_sparse_attention_grad %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[LSE]], %[[BM]] {kv_block_size = 64 : i64, q_block_size = 64 : i64} : tensor<2x100x8x64xf32>, tensor<2x200x2x64xf32>, tensor<2x200x2x32xf32>, tensor<2x100x8x32xf32>, tensor<2x100x8x32xf32>, tensor<2x8x100xf32>, tensor<1x1x2x4xi1> -> tensor<2x100x8x64xf32>, tensor<2x200x2x64xf32>, tensor<2x200x2x32xf32>
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @plain(%q: tensor<2x100x8x64xf32>, %k: tensor<2x200x2x64xf32>, %v: tensor<2x200x2x32xf32>,
                 %o: tensor<2x100x8x32xf32>, %do: tensor<2x100x8x32xf32>, %lse: tensor<2x8x100xf32>,
                 %bm: tensor<1x1x2x4xi1>) -> (tensor<2x100x8x64xf32>, tensor<2x200x2x64xf32>, tensor<2x200x2x32xf32>) {
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 64 : i64, kv_block_size = 64 : i64}
      : tensor<2x100x8x64xf32>, tensor<2x200x2x64xf32>, tensor<2x200x2x32xf32>, tensor<2x100x8x32xf32>, tensor<2x100x8x32xf32>, tensor<2x8x100xf32>, tensor<1x1x2x4xi1>
      -> tensor<2x100x8x64xf32>, tensor<2x200x2x64xf32>, tensor<2x200x2x32xf32>
  return %dq, %dk, %dv : tensor<2x100x8x64xf32>, tensor<2x200x2x64xf32>, tensor<2x200x2x32xf32>
}

// -----

// Every optional operand and attribute, no block mask.
// CHECK-LABEL: func.func @all_options
// CHECK: ejk.block_sparse_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<1x4x32x48xf32>) mask(%{{.*}} : tensor<2x1x32x48xi1>) q_segment_ids(%{{.*}} : tensor<2x32xi32>) kv_segment_ids(%{{.*}} : tensor<2x48xi32>)
// CHECK-SAME: causal = false
// CHECK-SAME: chunk_size = 8 : i64
// CHECK-SAME: config = #ejk.config<block_k = 16, block_q = 16, fuse_dq = 1>
// CHECK-SAME: logits_soft_cap = 5.000000e+01 : f32
// CHECK-SAME: mask_alignment = "bottom_right"
// CHECK-SAME: sliding_window = array<i64: 8, 4>
// CHECK-SAME: softmax_scale = 1.250000e-01 : f32
func.func @all_options(%q: tensor<2x32x4x16xbf16>, %k: tensor<2x48x4x16xbf16>, %v: tensor<2x48x4x16xbf16>,
                       %o: tensor<2x32x4x16xbf16>, %do: tensor<2x32x4x16xbf16>, %lse: tensor<2x4x32xf32>,
                       %b: tensor<1x4x32x48xf32>, %m: tensor<2x1x32x48xi1>, %qs: tensor<2x32xi32>, %ks: tensor<2x48xi32>)
    -> (tensor<2x32x4x16xbf16>, tensor<2x48x4x16xbf16>, tensor<2x48x4x16xbf16>) {
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse bias(%b : tensor<1x4x32x48xf32>) mask(%m : tensor<2x1x32x48xi1>)
      q_segment_ids(%qs : tensor<2x32xi32>) kv_segment_ids(%ks : tensor<2x48xi32>)
      {q_block_size = 16 : i64, kv_block_size = 16 : i64, causal = false, chunk_size = 8 : i64, sliding_window = array<i64: 8, 4>,
       mask_alignment = "bottom_right", softmax_scale = 0.125 : f32, logits_soft_cap = 50.0 : f32,
       config = #ejk.config<block_q = 16, block_k = 16, fuse_dq = 1>}
      : tensor<2x32x4x16xbf16>, tensor<2x48x4x16xbf16>, tensor<2x48x4x16xbf16>, tensor<2x32x4x16xbf16>, tensor<2x32x4x16xbf16>, tensor<2x4x32xf32>
      -> tensor<2x32x4x16xbf16>, tensor<2x48x4x16xbf16>, tensor<2x48x4x16xbf16>
  return %dq, %dk, %dv : tensor<2x32x4x16xbf16>, tensor<2x48x4x16xbf16>, tensor<2x48x4x16xbf16>
}
