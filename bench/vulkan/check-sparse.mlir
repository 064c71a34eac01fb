// Block-sparse cases for the cooperative-matrix kernel on the GPU machine
// (issue 19): the live-block lists over random block masks, the listed
// blocks' whole-block path (no mask per element where a block lies below
// seq_k and, causal, on or before a tile's first diagonal) and where it does
// not apply, in f16 and (check.sh's sed) bf16. Checked against the
// reference evaluator through ejk-tune's remote path, every candidate config
// of each case (bench/vulkan/check.sh, docs/testing.md).

// gsparse in small: d128, not causal, keys in whole blocks (every listed
// block skips the masks).
func.func @gsparse(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>, %bm: tensor<1x2x2x2xi1>) -> (tensor<1x256x2x128xf16>, tensor<1x2x256xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 128 : i64, causal = false}
      : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x2x2x2xi1> -> tensor<1x256x2x128xf16>, tensor<1x2x256xf32>
  return %o, %lse : tensor<1x256x2x128xf16>, tensor<1x2x256xf32>
}

// Causal d64: blocks below the diagonal whole, diagonal ones masked.
func.func @causal_d64(%q: tensor<1x512x2x64xf16>, %k: tensor<1x512x2x64xf16>, %v: tensor<1x512x2x64xf16>, %bm: tensor<1x2x4x4xi1>) -> (tensor<1x512x2x64xf16>, tensor<1x2x512xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 128 : i64, causal = true}
      : tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>, tensor<1x2x4x4xi1> -> tensor<1x512x2x64xf16>, tensor<1x2x512xf32>
  return %o, %lse : tensor<1x512x2x64xf16>, tensor<1x2x512xf32>
}

// Ragged: the last key block is partial (masked per element), bottom-right
// causal with seq_q < seq_k, GQA, a per-batch mask.
func.func @ragged_causal_gqa(%q: tensor<2x200x4x64xf16>, %k: tensor<2x300x2x64xf16>, %v: tensor<2x300x2x64xf16>, %bm: tensor<2x4x4x5xi1>) -> (tensor<2x200x4x64xf16>, tensor<2x4x200xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 64 : i64, kv_block_size = 64 : i64, mask_alignment = "bottom_right"}
      : tensor<2x200x4x64xf16>, tensor<2x300x2x64xf16>, tensor<2x300x2x64xf16>, tensor<2x4x4x5xi1> -> tensor<2x200x4x64xf16>, tensor<2x4x200xf32>
  return %o, %lse : tensor<2x200x4x64xf16>, tensor<2x4x200xf32>
}

// A sliding window and a broadcast mask: masks per element everywhere.
func.func @window(%q: tensor<1x384x2x64xf16>, %k: tensor<1x384x2x64xf16>, %v: tensor<1x384x2x64xf16>, %bm: tensor<1x1x6x6xi1>) -> (tensor<1x384x2x64xf16>, tensor<1x2x384xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 64 : i64, kv_block_size = 64 : i64, causal = false, sliding_window = array<i64: 100, 20>}
      : tensor<1x384x2x64xf16>, tensor<1x384x2x64xf16>, tensor<1x384x2x64xf16>, tensor<1x1x6x6xi1> -> tensor<1x384x2x64xf16>, tensor<1x2x384xf32>
  return %o, %lse : tensor<1x384x2x64xf16>, tensor<1x2x384xf32>
}

// Soft cap and a scale (no plain logits: the logit path), 32-key mask
// blocks.
func.func @soft_cap(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %bm: tensor<1x2x2x8xi1>) -> (tensor<1x256x2x64xf16>, tensor<1x2x256xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 32 : i64, causal = false, logits_soft_cap = 5.0 : f32, softmax_scale = 0.2 : f32}
      : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x2x2x8xi1> -> tensor<1x256x2x64xf16>, tensor<1x2x256xf32>
  return %o, %lse : tensor<1x256x2x64xf16>, tensor<1x2x256xf32>
}

// 256 lists (2 batches, 16 heads, 8 query blocks of 32 rows): at 32-row
// kernel blocks of 2 subgroups, the grid's last group of 64 jobs is what
// the job-order experiment (bench/results/h200/sparse-2026-11-27d) ranks by
// list length; the tree runs every group in order.
func.func @job_groups(%q: tensor<2x256x16x64xf16>, %k: tensor<2x256x16x64xf16>, %v: tensor<2x256x16x64xf16>, %bm: tensor<2x16x8x4xi1>) -> (tensor<2x256x16x64xf16>, tensor<2x16x256xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 32 : i64, kv_block_size = 64 : i64, causal = false}
      : tensor<2x256x16x64xf16>, tensor<2x256x16x64xf16>, tensor<2x256x16x64xf16>, tensor<2x16x8x4xi1> -> tensor<2x256x16x64xf16>, tensor<2x16x256xf32>
  return %o, %lse : tensor<2x256x16x64xf16>, tensor<2x16x256xf32>
}
