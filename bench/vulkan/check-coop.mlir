// Cases for the cooperative-matrix attention on the GPU machine: every
// option of flash_attention in f16 on small, ragged shapes. Checked against
// the reference evaluator through ejk-tune's remote path, every candidate
// config of each case (bench/vulkan/check.sh, docs/testing.md).

func.func @gqa_8_1(%q: tensor<1x33x8x32xf16>, %k: tensor<1x45x1x32xf16>, %v: tensor<1x45x1x32xf16>) -> (tensor<1x33x8x32xf16>, tensor<1x8x33xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v
      : tensor<1x33x8x32xf16>, tensor<1x45x1x32xf16>, tensor<1x45x1x32xf16> -> tensor<1x33x8x32xf16>, tensor<1x8x33xf32>
  return %o, %lse : tensor<1x33x8x32xf16>, tensor<1x8x33xf32>
}

func.func @gqa_4_2_causal(%q: tensor<1x33x4x32xf16>, %k: tensor<1x45x2x32xf16>, %v: tensor<1x45x2x32xf16>) -> (tensor<1x33x4x32xf16>, tensor<1x4x33xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v  {causal}
      : tensor<1x33x4x32xf16>, tensor<1x45x2x32xf16>, tensor<1x45x2x32xf16> -> tensor<1x33x4x32xf16>, tensor<1x4x33xf32>
  return %o, %lse : tensor<1x33x4x32xf16>, tensor<1x4x33xf32>
}

func.func @everything(%q: tensor<2x40x4x64xf16>, %k: tensor<2x56x2x64xf16>, %v: tensor<2x56x2x64xf16>, %bias: tensor<1x4x40x56xf32>, %mask: tensor<2x1x40x56xi1>, %qs: tensor<2x40xi32>, %ks: tensor<2x56xi32>) -> (tensor<2x40x4x64xf16>, tensor<2x4x40xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v bias(%bias : tensor<1x4x40x56xf32>) mask(%mask : tensor<2x1x40x56xi1>) q_segment_ids(%qs : tensor<2x40xi32>) kv_segment_ids(%ks : tensor<2x56xi32>) {causal, sliding_window = array<i64: 24, 4>, logits_soft_cap = 5.0 : f32, dropout_prob = 0.1 : f32, dropout_seed = 7 : i64, softmax_scale = 0.2 : f32}
      : tensor<2x40x4x64xf16>, tensor<2x56x2x64xf16>, tensor<2x56x2x64xf16> -> tensor<2x40x4x64xf16>, tensor<2x4x40xf32>
  return %o, %lse : tensor<2x40x4x64xf16>, tensor<2x4x40xf32>
}

func.func @causal_window_gqa_d80(%q: tensor<1x100x8x80xf16>, %k: tensor<1x130x2x80xf16>, %v: tensor<1x130x2x80xf16>) -> (tensor<1x100x8x80xf16>, tensor<1x8x100xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v  {causal, sliding_window = array<i64: 32, 0>}
      : tensor<1x100x8x80xf16>, tensor<1x130x2x80xf16>, tensor<1x130x2x80xf16> -> tensor<1x100x8x80xf16>, tensor<1x8x100xf32>
  return %o, %lse : tensor<1x100x8x80xf16>, tensor<1x8x100xf32>
}

func.func @d128_causal(%q: tensor<1x200x4x128xf16>, %k: tensor<1x200x2x128xf16>, %v: tensor<1x200x2x128xf16>) -> (tensor<1x200x4x128xf16>, tensor<1x4x200xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v  {causal}
      : tensor<1x200x4x128xf16>, tensor<1x200x2x128xf16>, tensor<1x200x2x128xf16> -> tensor<1x200x4x128xf16>, tensor<1x4x200xf32>
  return %o, %lse : tensor<1x200x4x128xf16>, tensor<1x4x200xf32>
}

func.func @d64_ragged(%q: tensor<2x300x2x64xf16>, %k: tensor<2x257x2x64xf16>, %v: tensor<2x257x2x64xf16>) -> (tensor<2x300x2x64xf16>) {
  %o = ejk.flash_attention %q, %k, %v
      : tensor<2x300x2x64xf16>, tensor<2x257x2x64xf16>, tensor<2x257x2x64xf16> -> tensor<2x300x2x64xf16>
  return %o : tensor<2x300x2x64xf16>
}

func.func @decode_rows(%q: tensor<2x3x8x128xf16>, %k: tensor<2x70x2x128xf16>, %v: tensor<2x70x2x128xf16>) -> (tensor<2x3x8x128xf16>, tensor<2x8x3xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v  {causal}
      : tensor<2x3x8x128xf16>, tensor<2x70x2x128xf16>, tensor<2x70x2x128xf16> -> tensor<2x3x8x128xf16>, tensor<2x8x3xf32>
  return %o, %lse : tensor<2x3x8x128xf16>, tensor<2x8x3xf32>
}

// Issue 16's options on the cooperative-matrix kernel: sinks, the padding
// mask, variable lengths and unnormalized output (f16 versions of
// test/Integration/Vulkan/attention/sinks-padding-varlen.mlir's cases).

func.func @coop_sinks_per_head(%q: tensor<1x40x4x32xf16>, %k: tensor<1x50x2x32xf16>, %v: tensor<1x50x2x32xf16>, %sinks: tensor<4x3xf32>) -> (tensor<1x40x4x32xf16>, tensor<1x4x40xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v softmax_aux(%sinks : tensor<4x3xf32>)
      : tensor<1x40x4x32xf16>, tensor<1x50x2x32xf16>, tensor<1x50x2x32xf16> -> tensor<1x40x4x32xf16>, tensor<1x4x40xf32>
  return %o, %lse : tensor<1x40x4x32xf16>, tensor<1x4x40xf32>
}

func.func @coop_sinks_causal_empty_rows(%q: tensor<1x30x2x32xf16>, %k: tensor<1x10x2x32xf16>, %v: tensor<1x10x2x32xf16>, %sinks: tensor<2x2xf32>) -> (tensor<1x30x2x32xf16>, tensor<1x2x30xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v softmax_aux(%sinks : tensor<2x2xf32>) {sliding_window = array<i64: 2, 0>}
      : tensor<1x30x2x32xf16>, tensor<1x10x2x32xf16>, tensor<1x10x2x32xf16> -> tensor<1x30x2x32xf16>, tensor<1x2x30xf32>
  return %o, %lse : tensor<1x30x2x32xf16>, tensor<1x2x30xf32>
}

func.func @coop_unnormalized_causal_sinks(%q: tensor<1x50x4x32xf16>, %k: tensor<1x50x2x32xf16>, %v: tensor<1x50x2x32xf16>, %sinks: tensor<4x2xf32>) -> (tensor<1x50x4x32xf16>, tensor<1x4x50xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v softmax_aux(%sinks : tensor<4x2xf32>) {normalize_output = false, causal}
      : tensor<1x50x4x32xf16>, tensor<1x50x2x32xf16>, tensor<1x50x2x32xf16> -> tensor<1x50x4x32xf16>, tensor<1x4x50xf32>
  return %o, %lse : tensor<1x50x4x32xf16>, tensor<1x4x50xf32>
}

func.func @coop_padding_causal(%q: tensor<2x70x2x64xf16>, %k: tensor<2x70x1x64xf16>, %v: tensor<2x70x1x64xf16>, %pad: tensor<2x70xi1>) -> (tensor<2x70x2x64xf16>, tensor<2x2x70xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v padding_mask(%pad : tensor<2x70xi1>) {causal}
      : tensor<2x70x2x64xf16>, tensor<2x70x1x64xf16>, tensor<2x70x1x64xf16> -> tensor<2x70x2x64xf16>, tensor<2x2x70xf32>
  return %o, %lse : tensor<2x70x2x64xf16>, tensor<2x2x70xf32>
}

func.func @coop_varlen_causal_bottom_right(%q: tensor<3x40x4x32xf16>, %k: tensor<3x100x2x32xf16>, %v: tensor<3x100x2x32xf16>, %cum_seqlens_q: tensor<4xi32>, %cum_seqlens_k: tensor<4xi32>) -> (tensor<3x40x4x32xf16>, tensor<3x4x40xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v cum_seqlens_q(%cum_seqlens_q : tensor<4xi32>) cum_seqlens_k(%cum_seqlens_k : tensor<4xi32>) {causal, mask_alignment = "bottom_right"}
      : tensor<3x40x4x32xf16>, tensor<3x100x2x32xf16>, tensor<3x100x2x32xf16> -> tensor<3x40x4x32xf16>, tensor<3x4x40xf32>
  return %o, %lse : tensor<3x40x4x32xf16>, tensor<3x4x40xf32>
}

func.func @coop_varlen_window_bottom_right(%q: tensor<2x50x2x32xf16>, %k: tensor<2x80x2x32xf16>, %v: tensor<2x80x2x32xf16>, %cum_seqlens_q: tensor<3xi32>, %cum_seqlens_k: tensor<3xi32>) -> (tensor<2x50x2x32xf16>, tensor<2x2x50xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v cum_seqlens_q(%cum_seqlens_q : tensor<3xi32>) cum_seqlens_k(%cum_seqlens_k : tensor<3xi32>) {sliding_window = array<i64: 12, 3>, mask_alignment = "bottom_right"}
      : tensor<2x50x2x32xf16>, tensor<2x80x2x32xf16>, tensor<2x80x2x32xf16> -> tensor<2x50x2x32xf16>, tensor<2x2x50xf32>
  return %o, %lse : tensor<2x50x2x32xf16>, tensor<2x2x50xf32>
}

func.func @coop_everything(%q: tensor<3x48x4x64xf16>, %k: tensor<3x48x2x64xf16>, %v: tensor<3x48x2x64xf16>, %bias: tensor<1x4x48x48xf32>, %mask: tensor<3x1x48x48xi1>, %qs: tensor<3x48xi32>, %ks: tensor<3x48xi32>, %sinks: tensor<4x2xf32>, %pad: tensor<3x48xi1>, %cum_seqlens_q: tensor<4xi32>, %cum_seqlens_k: tensor<4xi32>) -> (tensor<3x48x4x64xf16>, tensor<3x4x48xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v bias(%bias : tensor<1x4x48x48xf32>) mask(%mask : tensor<3x1x48x48xi1>) q_segment_ids(%qs : tensor<3x48xi32>) kv_segment_ids(%ks : tensor<3x48xi32>) softmax_aux(%sinks : tensor<4x2xf32>) padding_mask(%pad : tensor<3x48xi1>) cum_seqlens_q(%cum_seqlens_q : tensor<4xi32>) cum_seqlens_k(%cum_seqlens_k : tensor<4xi32>) {causal, mask_alignment = "bottom_right", sliding_window = array<i64: 20, 4>, logits_soft_cap = 5.0 : f32, dropout_prob = 0.1 : f32, dropout_seed = 7 : i64, normalize_output = false}
      : tensor<3x48x4x64xf16>, tensor<3x48x2x64xf16>, tensor<3x48x2x64xf16> -> tensor<3x48x4x64xf16>, tensor<3x4x48xf32>
  return %o, %lse : tensor<3x48x4x64xf16>, tensor<3x4x48xf32>
}

// Blocks seen whole (issue 21): the register softmax skips the per-element
// masks where every row of a tile sees every key of the block (a constant
// when seq_k is a whole number of blocks and there is no causal mask; else
// a test per block), and folds the scale into its exp2.

func.func @d128_even_scaled(%q: tensor<1x256x4x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> (tensor<1x256x4x128xf16>, tensor<1x4x256xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v  {softmax_scale = 0.3 : f32}
      : tensor<1x256x4x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x4x128xf16>, tensor<1x4x256xf32>
  return %o, %lse : tensor<1x256x4x128xf16>, tensor<1x4x256xf32>
}

func.func @d64_causal_offset(%q: tensor<1x288x2x64xf16>, %k: tensor<1x352x2x64xf16>, %v: tensor<1x352x2x64xf16>) -> (tensor<1x288x2x64xf16>, tensor<1x2x288xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v  {causal}
      : tensor<1x288x2x64xf16>, tensor<1x352x2x64xf16>, tensor<1x352x2x64xf16> -> tensor<1x288x2x64xf16>, tensor<1x2x288xf32>
  return %o, %lse : tensor<1x288x2x64xf16>, tensor<1x2x288xf32>
}

func.func @even_sinks(%q: tensor<1x64x4x32xf16>, %k: tensor<1x64x2x32xf16>, %v: tensor<1x64x2x32xf16>, %sinks: tensor<4x3xf32>) -> (tensor<1x64x4x32xf16>, tensor<1x4x64xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v softmax_aux(%sinks : tensor<4x3xf32>)
      : tensor<1x64x4x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x4x32xf16>, tensor<1x4x64xf32>
  return %o, %lse : tensor<1x64x4x32xf16>, tensor<1x4x64xf32>
}
