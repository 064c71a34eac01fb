// Flash attentions with cm2 configs (test/Vulkan/cm2-emit.test): each
// dispatch's SPIR-V is compared word for word with bench/vulkan/cm2_fa.py's.

func.func @d128_v1(%q: tensor<4x2048x16x128xf16>, %k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 1>} : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}

func.func @d128_causal_v2(%q: tensor<4x2048x16x128xf16>, %k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal, config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 2>} : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}

func.func @d128_causal_v3(%q: tensor<4x2048x16x128xf16>, %k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal, config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 3>} : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}

func.func @d64_v3(%q: tensor<4x2048x32x64xf16>, %k: tensor<4x2048x32x64xf16>, %v: tensor<4x2048x32x64xf16>) -> tensor<4x2048x32x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 3>} : tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16> -> tensor<4x2048x32x64xf16>
  return %o : tensor<4x2048x32x64xf16>
}

func.func @d64_causal_v4(%q: tensor<4x2048x32x64xf16>, %k: tensor<4x2048x32x64xf16>, %v: tensor<4x2048x32x64xf16>) -> tensor<4x2048x32x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal, config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 4>} : tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16> -> tensor<4x2048x32x64xf16>
  return %o : tensor<4x2048x32x64xf16>
}

func.func @long_v2(%q: tensor<1x8192x16x128xf16>, %k: tensor<1x8192x16x128xf16>, %v: tensor<1x8192x16x128xf16>) -> tensor<1x8192x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 2>} : tensor<1x8192x16x128xf16>, tensor<1x8192x16x128xf16>, tensor<1x8192x16x128xf16> -> tensor<1x8192x16x128xf16>
  return %o : tensor<1x8192x16x128xf16>
}

func.func @scale_causal_v1(%q: tensor<2x512x2x64xf16>, %k: tensor<2x512x2x64xf16>, %v: tensor<2x512x2x64xf16>) -> tensor<2x512x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal, softmax_scale = 0.3 : f32, config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 1>} : tensor<2x512x2x64xf16>, tensor<2x512x2x64xf16>, tensor<2x512x2x64xf16> -> tensor<2x512x2x64xf16>
  return %o : tensor<2x512x2x64xf16>
}

func.func @small_blocks_v1(%q: tensor<1x1024x4x128xf16>, %k: tensor<1x1024x4x128xf16>, %v: tensor<1x1024x4x128xf16>) -> tensor<1x1024x4x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 64, block_k = 32, num_subgroups = 4, cm2 = 1>} : tensor<1x1024x4x128xf16>, tensor<1x1024x4x128xf16>, tensor<1x1024x4x128xf16> -> tensor<1x1024x4x128xf16>
  return %o : tensor<1x1024x4x128xf16>
}
