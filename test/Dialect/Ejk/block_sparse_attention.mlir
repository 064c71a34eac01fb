// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// GQA 8:2, partial last blocks (ceil(100 / 64) = 2, ceil(200 / 64) = 4), a
// block mask broadcast over batch and heads.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x100x8x64xf32>, %[[K:.*]]: tensor<2x200x2x64xf32>, %[[V:.*]]: tensor<2x200x2x32xf32>, %[[BM:.*]]: tensor<1x1x2x4xi1>)
// CHECK: %[[O:.*]] = ejk.block_sparse_attention %[[Q]], %[[K]], %[[V]], %[[BM]] {kv_block_size = 64 : i64, q_block_size = 64 : i64} : tensor<2x100x8x64xf32>, tensor<2x200x2x64xf32>, tensor<2x200x2x32xf32>, tensor<1x1x2x4xi1> -> tensor<2x100x8x32xf32>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<2x100x8x64xf32>, %k: tensor<2x200x2x64xf32>, %v: tensor<2x200x2x32xf32>,
                 %bm: tensor<1x1x2x4xi1>) -> tensor<2x100x8x32xf32> {
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 64 : i64, kv_block_size = 64 : i64}
      : tensor<2x100x8x64xf32>, tensor<2x200x2x64xf32>, tensor<2x200x2x32xf32>, tensor<1x1x2x4xi1>
      -> tensor<2x100x8x32xf32>
  return %o : tensor<2x100x8x32xf32>
}

// -----

// Every optional operand and attribute, both results, a per-head block mask.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[QS:[^:]*]]: tensor<2x256xi32>, %[[KS:[^:]*]]: tensor<2x512xi32>
// CHECK: %{{.*}}, %{{.*}} = ejk.block_sparse_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} q_segment_ids(%[[QS]] : tensor<2x256xi32>) kv_segment_ids(%[[KS]] : tensor<2x512xi32>)
// CHECK-SAME: causal = false
// CHECK-SAME: config = #ejk.config<block_k = 128, block_q = 64, num_subgroups = 2>
// CHECK-SAME: kv_block_size = 128 : i64
// CHECK-SAME: logits_soft_cap = 5.000000e+01 : f32
// CHECK-SAME: q_block_size = 32 : i64
// CHECK-SAME: softmax_scale = 6.250000e-02 : f32
// CHECK-SAME: tensor<2x4x8x4xi1> -> tensor<2x256x4x128xf16>, tensor<2x4x256xf32>
func.func @all_options(%q: tensor<2x256x4x128xf16>, %k: tensor<2x512x4x128xf16>, %v: tensor<2x512x4x128xf16>,
                       %bm: tensor<2x4x8x4xi1>, %qs: tensor<2x256xi32>, %ks: tensor<2x512xi32>)
    -> (tensor<2x256x4x128xf16>, tensor<2x4x256xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm
      q_segment_ids(%qs : tensor<2x256xi32>) kv_segment_ids(%ks : tensor<2x512xi32>)
      {q_block_size = 32 : i64, kv_block_size = 128 : i64, causal = false, softmax_scale = 0.0625 : f32,
       logits_soft_cap = 50.0 : f32, config = #ejk.config<block_q = 64, block_k = 128, num_subgroups = 2>}
      : tensor<2x256x4x128xf16>, tensor<2x512x4x128xf16>, tensor<2x512x4x128xf16>, tensor<2x4x8x4xi1>
      -> tensor<2x256x4x128xf16>, tensor<2x4x256xf32>
  return %o, %lse : tensor<2x256x4x128xf16>, tensor<2x4x256xf32>
}

// -----

// No block mask: the attribute masks alone (ejKernel's ChunkedCausalMask:
// causal by default, chunks of 32), a token mask and a bias; causal = true
// is the default and not printed.
// CHECK-LABEL: func.func @attribute_masks
// CHECK: ejk.block_sparse_attention %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} bias(%{{.*}} : tensor<1x1x128x128xf32>) mask(%{{.*}} : tensor<1x4x128x128xi1>)
// CHECK-SAME: chunk_size = 32 : i64
// CHECK-NOT: causal
// CHECK-SAME: mask_alignment = "bottom_right"
// CHECK-SAME: sliding_window = array<i64: 16, 0>
// CHECK-SAME: : tensor<1x128x4x64xf32>, tensor<1x128x4x64xf32>, tensor<1x128x4x64xf32> -> tensor<1x128x4x64xf32>
func.func @attribute_masks(%q: tensor<1x128x4x64xf32>, %k: tensor<1x128x4x64xf32>, %v: tensor<1x128x4x64xf32>,
                           %b: tensor<1x1x128x128xf32>, %m: tensor<1x4x128x128xi1>) -> tensor<1x128x4x64xf32> {
  %o = ejk.block_sparse_attention %q, %k, %v bias(%b : tensor<1x1x128x128xf32>) mask(%m : tensor<1x4x128x128xi1>)
      {q_block_size = 64 : i64, kv_block_size = 64 : i64, causal = true, chunk_size = 32 : i64,
       sliding_window = array<i64: 16, 0>, mask_alignment = "bottom_right"}
      : tensor<1x128x4x64xf32>, tensor<1x128x4x64xf32>, tensor<1x128x4x64xf32> -> tensor<1x128x4x64xf32>
  return %o : tensor<1x128x4x64xf32>
}
