// Cases for the VK_NV_cooperative_matrix2 attention (cm2 = 1-4,
// lib/Ops/Attention/Vulkan/Cm2Kernel.h) on the GPU machine: every problem
// form the kernel takes (f16, equal lengths, non-causal and causal, head
// dims 64 and 128, a softmax scale of its own, several batches and heads).
// bench/vulkan/cm2_check.sh keeps the cm2 candidates of the full space and
// checks them against the reference evaluator through ejk-tune-runner.

func.func @d128(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}

func.func @d128_causal(%q: tensor<1x384x2x128xf16>, %k: tensor<1x384x2x128xf16>, %v: tensor<1x384x2x128xf16>) -> tensor<1x384x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x384x2x128xf16>, tensor<1x384x2x128xf16>, tensor<1x384x2x128xf16> -> tensor<1x384x2x128xf16>
  return %o : tensor<1x384x2x128xf16>
}

func.func @d64_b2(%q: tensor<2x256x3x64xf16>, %k: tensor<2x256x3x64xf16>, %v: tensor<2x256x3x64xf16>) -> tensor<2x256x3x64xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<2x256x3x64xf16>, tensor<2x256x3x64xf16>, tensor<2x256x3x64xf16> -> tensor<2x256x3x64xf16>
  return %o : tensor<2x256x3x64xf16>
}

func.func @d64_causal_scale(%q: tensor<2x512x2x64xf16>, %k: tensor<2x512x2x64xf16>, %v: tensor<2x512x2x64xf16>) -> tensor<2x512x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal, softmax_scale = 0.3 : f32} : tensor<2x512x2x64xf16>, tensor<2x512x2x64xf16>, tensor<2x512x2x64xf16> -> tensor<2x512x2x64xf16>
  return %o : tensor<2x512x2x64xf16>
}
