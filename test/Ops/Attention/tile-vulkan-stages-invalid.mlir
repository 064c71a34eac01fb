// With the register softmax a subgroup owns one or two 16-row tiles; any
// other block_q per subgroup is rejected with both choices named.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -verify-diagnostics

func.func @coop_block_q(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{cooperative-matrix code needs 'block_q' = 16 or 32 * 'num_subgroups' (32 or 64), got 128}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 2>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
