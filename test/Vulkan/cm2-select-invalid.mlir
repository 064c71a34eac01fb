// Where a cm2 config is refused: a device without VK_NV_cooperative_matrix2
// (no `cooperative_matrix2` feature), a variant that does not exist,
// problems the kernel does not take (masks, lse, bf16, unequal lengths),
// workgroups beyond the 256 invocations of workgroup-scope matrices,
// blocks that do not tile the sequence; and on CPU targets and block-sparse
// attention.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,vulkan_memory_model,cooperative_matrix2 cooperative-matrix=true subgroup-size=32" -verify-diagnostics
// RUN: ejk-opt %S/Inputs/cm2-no-feature.mlir -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,vulkan_memory_model cooperative-matrix=true subgroup-size=32" -verify-diagnostics
// RUN: ejk-opt %S/Inputs/cm2-cpu.mlir -ejk-select-configs="target=cpu" -verify-diagnostics

func.func @variant(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{'cm2' must be 1, 2, 3 or 4 (the kernel's variants), got 5}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 5>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}

// -----

func.func @lse(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> (tensor<1x256x2x64xf16>, tensor<1x2x256xf32>) {
  // expected-error @+1 {{'cm2' runs f16 attention with equal query and key lengths, head counts and head dims, no bias, mask, segment ids, lse, soft cap, dropout, window, sinks, padding mask or variable lengths}}
  %o, %lse = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 1>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>, tensor<1x2x256xf32>
  return %o, %lse : tensor<1x256x2x64xf16>, tensor<1x2x256xf32>
}

// -----

func.func @bf16(%q: tensor<1x256x2x64xbf16>, %k: tensor<1x256x2x64xbf16>, %v: tensor<1x256x2x64xbf16>) -> tensor<1x256x2x64xbf16> {
  // expected-error @+1 {{'cm2' runs f16 attention}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 1>} : tensor<1x256x2x64xbf16>, tensor<1x256x2x64xbf16>, tensor<1x256x2x64xbf16> -> tensor<1x256x2x64xbf16>
  return %o : tensor<1x256x2x64xbf16>
}

// -----

func.func @lengths(%q: tensor<1x256x2x64xf16>, %k: tensor<1x512x2x64xf16>, %v: tensor<1x512x2x64xf16>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{'cm2' runs f16 attention with equal query and key lengths}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 1>} : tensor<1x256x2x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}

// -----

func.func @threads(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{'cm2' takes workgroups of at most 256 invocations, got 512}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 16, cm2 = 1>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}

// -----

func.func @blocks(%q: tensor<1x200x2x64xf16>, %k: tensor<1x200x2x64xf16>, %v: tensor<1x200x2x64xf16>) -> tensor<1x200x2x64xf16> {
  // expected-error @+1 {{'cm2' needs 'block_q', 'block_k' and the head dim in multiples of 16 and whole blocks of the sequence, got 128, 64, 64 and 200}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 1>} : tensor<1x200x2x64xf16>, tensor<1x200x2x64xf16>, tensor<1x200x2x64xf16> -> tensor<1x200x2x64xf16>
  return %o : tensor<1x200x2x64xf16>
}

// -----

func.func @sparse(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  // expected-error @+1 {{'cm2' applies to dense flash attention only}}
  %o = ejk.block_sparse_attention %q, %k, %v {q_block_size = 64 : i64, kv_block_size = 64 : i64, config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, cm2 = 1>} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}
