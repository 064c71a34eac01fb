// Issue 21, session 18: problems with several query blocks at the heuristic
// config (128 x 64 x 8 at d128, 128 x 64 x 4 at d64), so that workgroups
// running 2 or 4 query blocks in turn (EJK_TMP_ROWS) and the staged output
// are checked at the gfa workloads' shapes, besides the small space.

func.func @d128_rows(%q: tensor<2x512x2x128xf16>, %k: tensor<2x512x2x128xf16>, %v: tensor<2x512x2x128xf16>) -> (tensor<2x512x2x128xf16>, tensor<2x2x512xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v
      : tensor<2x512x2x128xf16>, tensor<2x512x2x128xf16>, tensor<2x512x2x128xf16> -> tensor<2x512x2x128xf16>, tensor<2x2x512xf32>
  return %o, %lse : tensor<2x512x2x128xf16>, tensor<2x2x512xf32>
}

func.func @d128_rows_causal(%q: tensor<2x512x2x128xf16>, %k: tensor<2x512x2x128xf16>, %v: tensor<2x512x2x128xf16>) -> (tensor<2x512x2x128xf16>, tensor<2x2x512xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v {causal}
      : tensor<2x512x2x128xf16>, tensor<2x512x2x128xf16>, tensor<2x512x2x128xf16> -> tensor<2x512x2x128xf16>, tensor<2x2x512xf32>
  return %o, %lse : tensor<2x512x2x128xf16>, tensor<2x2x512xf32>
}

func.func @d128_rows_gqa_causal_ragged(%q: tensor<1x480x4x128xf16>, %k: tensor<1x520x2x128xf16>, %v: tensor<1x520x2x128xf16>) -> (tensor<1x480x4x128xf16>) {
  %o = ejk.flash_attention %q, %k, %v {causal, mask_alignment = "bottom_right"}
      : tensor<1x480x4x128xf16>, tensor<1x520x2x128xf16>, tensor<1x520x2x128xf16> -> tensor<1x480x4x128xf16>
  return %o : tensor<1x480x4x128xf16>
}

func.func @d64_rows_causal(%q: tensor<1x512x4x64xf16>, %k: tensor<1x512x4x64xf16>, %v: tensor<1x512x4x64xf16>) -> (tensor<1x512x4x64xf16>, tensor<1x4x512xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v {causal}
      : tensor<1x512x4x64xf16>, tensor<1x512x4x64xf16>, tensor<1x512x4x64xf16> -> tensor<1x512x4x64xf16>, tensor<1x4x512xf32>
  return %o, %lse : tensor<1x512x4x64xf16>, tensor<1x4x512xf32>
}
