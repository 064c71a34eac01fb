// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs
// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs=target=vulkan

// Configs the ragged kernels reject, on both targets.

func.func @no_block_k(%q: tensor<2x4x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x4x4x32xf32> {
  // expected-error @+1 {{config needs 'block_k'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_q = 1>} : tensor<2x4x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x4x4x32xf32>
  return %o : tensor<2x4x4x32xf32>
}

// -----

// Writing new_kv with no query heads or no query tokens: the cache write
// runs in the attention's dispatch, which was dispatched over zero-sized
// query and output buffers ('failed to legalize operation gpu.func',
// 'missing LLVMTranslationDialectInterface').
func.func @write_no_heads(%q: tensor<8x0x32xf32>, %kc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>, %k: tensor<8x2x32xf32>) -> (tensor<8x0x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>) {
  // expected-error @+1 {{writing 'new_kv' with no query heads has no kernel: the cache write runs with the attention}}
  %o:3 = ejk.ragged_paged_attention %q, %kc, %kc, %lens, %tables, %cu, %n new_kv(%k, %k : tensor<8x2x32xf32>, tensor<8x2x32xf32>) : tensor<8x0x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<8x0x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>
  return %o#0, %o#1, %o#2 : tensor<8x0x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>
}

// -----

func.func @write_no_tokens(%q: tensor<0x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>, %k: tensor<0x2x32xf32>) -> (tensor<0x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>) {
  // expected-error @+1 {{writing 'new_kv' with no query tokens has no kernel: the cache write runs with the attention}}
  %o:3 = ejk.ragged_paged_attention %q, %kc, %kc, %lens, %tables, %cu, %n new_kv(%k, %k : tensor<0x2x32xf32>, tensor<0x2x32xf32>) : tensor<0x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<0x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>
  return %o#0, %o#1, %o#2 : tensor<0x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>
}
