// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<64x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq_q, num_heads, head_dim], got rank 3}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<64x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @dynamic(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<?xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'context_lens' to have a static shape, got 'tensor<?xi32>'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<?xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @query_dtype(%q: tensor<2x32x8x64xi16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'i16'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xi16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xi16>
  return
}

// -----

func.func @key_cache_rank(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64x1xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'key_cache' to have rank 4 [num_pages, page_size, num_kv_heads, head_dim], got rank 5}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64x1xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @key_cache_dtype(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf64>, %vc: tensor<64x16x2x64xf64>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'key_cache' element type to be f32, f16 or bf16, got 'f64'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf64>, tensor<64x16x2x64xf64>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @value_cache_dtype(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xbf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'value_cache' element type to match 'key_cache' ('f16'), got 'bf16'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xbf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @value_cache_heads(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x4x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'value_cache' dim 2 (num_kv_heads) to be 2 to match 'key_cache' dim 2 (num_kv_heads), got 4}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x4x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @head_dim(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x80xf16>, %vc: tensor<64x16x2x80xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'key_cache' dim 3 (head_dim) to be 64 to match 'query' dim 3 (head_dim), got 80}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x80xf16>, tensor<64x16x2x80xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @gqa(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x3x64xf16>, %vc: tensor<64x16x3x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'key_cache' dim 2 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 3 and 8}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x3x64xf16>, tensor<64x16x3x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @context_lens_dtype(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi16>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'context_lens' element type to be 'i32', got 'i16'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi16>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @context_lens_batch(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<3xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'context_lens' dim 0 (batch) to be 2 to match 'query' dim 0 (batch), got 3}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<3xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @block_tables_rank(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16x1xi32>) {
  // expected-error @+1 {{expects 'block_tables' to have rank 2 [batch, max_pages_per_seq], got rank 3}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16x1xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @block_tables_dtype(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi64>) {
  // expected-error @+1 {{expects 'block_tables' element type to be 'i32', got 'i64'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi64> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @block_tables_batch(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<16x2xi32>) {
  // expected-error @+1 {{expects 'block_tables' dim 0 (batch) to be 2 to match 'query' dim 0 (batch), got 16}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<16x2xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @scale(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -1}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {softmax_scale = -1.0 : f32} : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @soft_cap(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got 0}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {logits_soft_cap = 0.0 : f32} : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @output_seq(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'output' dim 1 (seq_q) to be 32 to match 'query' dim 1 (seq_q), got 1}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x1x8x64xf16>
  return
}

// -----

func.func @output_dtype(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f16'), got 'f32'}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf32>
  return
}

// -----

func.func @config_name(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{does not accept config entry 'num_splits', expected one of: block_q, block_k, num_subgroups}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_q = 16, num_splits = 2>} : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @kv_layout(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'kv_layout' to be "head_major" or "token_major", got "hnd"}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {kv_layout = "hnd"} : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @head_major_heads(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'key_cache' dim 1 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 16 and 8}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {kv_layout = "head_major"} : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}

// -----

func.func @sliding_window(%q: tensor<2x32x8x64xf16>, %kc: tensor<64x16x2x64xf16>, %vc: tensor<64x16x2x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'sliding_window' to be at least 1, got 0}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {sliding_window = 0 : i64} : tensor<2x32x8x64xf16>, tensor<64x16x2x64xf16>, tensor<64x16x2x64xf16>, tensor<2xi32>, tensor<2x16xi32> -> tensor<2x32x8x64xf16>
  return
}
