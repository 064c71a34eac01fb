// Issue 16's options (sinks, padding mask, variable lengths, unnormalized
// output) run on the portable kernel only: on a device with cooperative
// matrices an f16 op that uses one of them is laid out for the portable
// kernel, and a config that only the cooperative layout takes says why.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -verify-diagnostics

func.func @coop_config_sinks(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>, %s: tensor<2xf32>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{each thread would keep 128 accumulators (at most 96); use fewer rows or keys per thread (the cooperative-matrix kernel does not implement 'softmax_aux', 'padding_mask', 'cum_seqlens_q'/'cum_seqlens_k' or 'normalize_output' = false: the portable kernel runs this op)}}
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<2xf32>) {config = #ejk.config<block_q = 64, block_k = 64, num_subgroups = 2>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}

// -----

func.func @coop_config_unnormalized(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{the cooperative-matrix kernel does not implement}}
  %o = ejk.flash_attention %q, %k, %v {normalize_output = false, config = #ejk.config<block_q = 64, block_k = 64, num_subgroups = 2>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}

// -----

// The same config without the options is a valid cooperative config.
func.func @coop_config_plain(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 64, block_k = 64, num_subgroups = 2>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
