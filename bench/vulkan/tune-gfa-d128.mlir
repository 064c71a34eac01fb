// gfa-d128 (WORKLOADS.md: S 2048, 16 heads, D 128) at batch 1, the shape
// the Vulkan tuning run tunes on the GPU machine (bench/vulkan/tune.sh): at
// batch 4 the inputs and the reference outputs of the candidate directory
// would not fit the 64 MiB that can be carried there.
func.func @fp16(%q: tensor<1x2048x16x128xf16>, %k: tensor<1x2048x16x128xf16>, %v: tensor<1x2048x16x128xf16>) -> tensor<1x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16> -> tensor<1x2048x16x128xf16>
  return %o : tensor<1x2048x16x128xf16>
}
func.func @fp16_causal(%q: tensor<1x2048x16x128xf16>, %k: tensor<1x2048x16x128xf16>, %v: tensor<1x2048x16x128xf16>) -> tensor<1x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16> -> tensor<1x2048x16x128xf16>
  return %o : tensor<1x2048x16x128xf16>
}
