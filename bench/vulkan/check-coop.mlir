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
