// The heuristic's row_blocks where the fingerprint gives the SM count
// (`sm_count`, VK_NV_shader_sm_builtins): of 1, 2, 4 and 8 query blocks a
// workgroup (dividing the query blocks), the fewest block-times of whole
// waves (ceil(workgroups / SMs) waves of R blocks), the larger R at equal
// time; without `sm_count`, two where 512 workgroups remain (as before).
// RUN: printf 'kind=vulkan\ncooperative_matrix=1\ncooperative_matrix_shapes=16x16x16:f16*f16+f32=f32\nfloat16=1\nmax_shared_memory=49152\nmax_workgroup_invocations=1024\nspirv_version=1.6\nstorage16=1\nsubgroup_operations=basic,shuffle\nsubgroup_size=32\nvendor_id=0x10de\n' > %t-none.fp
// RUN: cp %t-none.fp %t-132.fp && echo sm_count=132 >> %t-132.fp
// RUN: cp %t-none.fp %t-114.fp && echo sm_count=114 >> %t-114.fp
// RUN: cp %t-none.fp %t-108.fp && echo sm_count=108 >> %t-108.fp
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan fingerprint=%t-none.fp cache-dir=%t-cache" | FileCheck %s --check-prefix=NONE
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan fingerprint=%t-132.fp cache-dir=%t-cache" | FileCheck %s --check-prefix=SM132
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan fingerprint=%t-114.fp cache-dir=%t-cache" | FileCheck %s --check-prefix=SM114
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan fingerprint=%t-108.fp cache-dir=%t-cache" | FileCheck %s --check-prefix=SM108

// The target records the SM count where the fingerprint gives it.
// NONE-NOT: sm_count
// SM132: ejk.target = {{.*}}sm_count = 132
// SM114: ejk.target = {{.*}}sm_count = 114

// gfa-d128 (B4 S2048 H16 D128, block_q 128: 1024 query blocks). 132 SMs:
// 8 block-times at every R, so 8 (128 workgroups, one wave). 114: 9 at
// one (9 waves, the last 112 of 114), 10 at two, 12 at four, 16 at eight:
// one. 108: 10 at one and two: two.
// NONE-LABEL: func.func @gfa_d128
// NONE: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8, row_blocks = 2>
// SM132-LABEL: func.func @gfa_d128
// SM132: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8, row_blocks = 8>
// SM114-LABEL: func.func @gfa_d128
// SM114: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>}
// SM108-LABEL: func.func @gfa_d128
// SM108: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8, row_blocks = 2>
func.func @gfa_d128(%q: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %q, %q : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}

// 256 query blocks: without the SM count one (128 workgroups < 512); 132
// SMs: 2 block-times at one and two, two; 114: 3 at one, 4 at two: one.
// NONE-LABEL: func.func @small
// NONE: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>}
// SM132-LABEL: func.func @small
// SM132: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8, row_blocks = 2>
// SM114-LABEL: func.func @small
// SM114: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>}
func.func @small(%q: tensor<1x2048x16x128xf16>) -> tensor<1x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16> -> tensor<1x2048x16x128xf16>
  return %o : tensor<1x2048x16x128xf16>
}

// 12 query blocks a head (768 in all), 132 SMs: 6 block-times at one and
// two, 8 at four; eight does not divide 12: two.
// SM132-LABEL: func.func @twelve
// SM132: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8, row_blocks = 2>
func.func @twelve(%q: tensor<4x1536x16x128xf16>) -> tensor<4x1536x16x128xf16> {
  %o = ejk.flash_attention %q, %q, %q : tensor<4x1536x16x128xf16>, tensor<4x1536x16x128xf16>, tensor<4x1536x16x128xf16> -> tensor<4x1536x16x128xf16>
  return %o : tensor<4x1536x16x128xf16>
}

// A causal mask, or head dim 64 (two row tiles a subgroup), keeps one
// whatever the SM count.
// SM132-LABEL: func.func @causal
// SM132: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>}
// SM132-LABEL: func.func @d64
// SM132: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 4>}
func.func @causal(%q: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %q, %q {causal} : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}
func.func @d64(%q: tensor<4x2048x32x64xf16>) -> tensor<4x2048x32x64xf16> {
  %o = ejk.flash_attention %q, %q, %q : tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16> -> tensor<4x2048x32x64xf16>
  return %o : tensor<4x2048x32x64xf16>
}
