// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @q_latent_rank(%ql: tensor<6x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'q_latent' to have rank 3 [num_tokens, num_heads, latent_dim], got rank 2}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @q_latent_dtype(%ql: tensor<6x4x32xi16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'q_latent' element type to be f32, f16 or bf16, got 'i16'}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xi16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xi16>
  return
}

// -----

func.func @q_rope_static(%ql: tensor<6x4x32xf16>, %qr: tensor<6x?x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'q_rope' to have a static shape, got 'tensor<6x?x8xf16>'}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x?x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @q_rope_dtype(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf32>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'q_rope' element type to match 'q_latent' ('f16'), got 'f32'}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf32>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @q_rope_tokens(%ql: tensor<6x4x32xf16>, %qr: tensor<5x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'q_rope' dim 0 (num_tokens) to be 6 to match 'q_latent' dim 0 (num_tokens), got 5}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<5x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @q_rope_heads(%ql: tensor<6x4x32xf16>, %qr: tensor<6x2x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'q_rope' dim 1 (num_heads) to be 4 to match 'q_latent' dim 1 (num_heads), got 2}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x2x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @cache_rank(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x1x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'kv_cache' to have rank 3 [num_pages, page_size, latent_dim + rope_dim], got rank 4}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x1x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @cache_dtype(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xbf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'kv_cache' element type to match 'q_latent' ('f16'), got 'bf16'}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xbf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @cache_width(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x32xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'kv_cache' dim 2 (latent_dim + rope_dim) to be 40 ('q_latent' dim 2 (latent_dim) + 'q_rope' dim 2 (rope_dim)), got 32}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x32xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @lens_rank(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2x1xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'context_lens' to have rank 1 [num_seqs], got rank 2}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2x1xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @lens_dtype(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi64>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'context_lens' element type to be 'i32', got 'i64'}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi64>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @tables_dtype(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xf32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'block_tables' element type to be 'i32', got 'f32'}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xf32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @tables_seqs(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<3x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'block_tables' dim 0 (num_seqs) to be 2 to match 'context_lens' dim 0 (num_seqs), got 3}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<3x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @starts_rank(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3x1xi32>) {
  // expected-error @+1 {{expects 'query_start_loc' to have rank 1 [num_seqs + 1], got rank 2}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3x1xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @starts_dtype(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi16>) {
  // expected-error @+1 {{expects 'query_start_loc' element type to be 'i32', got 'i16'}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi16> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @starts_count(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<2xi32>) {
  // expected-error @+1 {{expects 'query_start_loc' dim 0 (num_seqs + 1) to be 3 (1 + 'context_lens' dim 0 (num_seqs)), got 2}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<2xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @scale(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -0.125}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s {softmax_scale = -0.125 : f32} : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @nope(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'qk_nope_head_dim' to be at least 1, got 0}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s {qk_nope_head_dim = 0} : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}

// -----

func.func @output_shape(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'output' dim 2 (latent_dim) to be 32 to match 'q_latent' dim 2 (latent_dim), got 8}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x8xf16>
  return
}

// -----

func.func @output_dtype(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'output' element type to match 'q_latent' ('f16'), got 'f32'}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf32>
  return
}

// -----

func.func @lse_rank(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'lse' to have rank 2 [num_tokens, num_heads], got rank 3}}
  %o, %lse = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>, tensor<6x4x1xf32>
  return
}

// -----

func.func @lse_dtype(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'lse' element type to be 'f32', got 'f16'}}
  %o, %lse = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>, tensor<6x4xf16>
  return
}

// -----

func.func @lse_tokens(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'lse' dim 0 (num_tokens) to be 6 to match 'q_latent' dim 0 (num_tokens), got 5}}
  %o, %lse = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>, tensor<5x4xf32>
  return
}

// -----

func.func @lse_heads(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{expects 'lse' dim 1 (num_heads) to be 4 to match 'q_latent' dim 1 (num_heads), got 2}}
  %o, %lse = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>, tensor<6x2xf32>
  return
}

// -----

func.func @config_name(%ql: tensor<6x4x32xf16>, %qr: tensor<6x4x8xf16>, %c: tensor<10x16x40xf16>, %l: tensor<2xi32>, %t: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: block_k, num_splits, block_h, head_lanes}}
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s {config = #ejk.config<block_q = 2>} : tensor<6x4x32xf16>, tensor<6x4x8xf16>, tensor<10x16x40xf16>, tensor<2xi32>, tensor<2x3xi32>, tensor<3xi32> -> tensor<6x4x32xf16>
  return
}
