// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<4x1x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'query' to have rank 3 [batch, num_heads, head_dim], got rank 4}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x1x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @dynamic(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x?xi32>) {
  // expected-error @+1 {{expects 'block_tables' to have a static shape, got 'tensor<4x?xi32>'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x?xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<4x8x64xf64>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'f64'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf64>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf64>
  return
}

// -----

func.func @key_cache_rank(%q: tensor<4x8x64xf32>, %kc: tensor<512x2x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'key_cache' to have rank 4 [num_pages, num_kv_heads, page_size, head_dim], got rank 3}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<512x2x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @key_cache_dtype(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xi16>, %vc: tensor<32x2x16x64xi16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'key_cache' element type to be f32, f16, bf16 or i8, got 'i16'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xi16>, tensor<32x2x16x64xi16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @value_cache_dtype(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf32>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'value_cache' element type to match 'key_cache' ('f16'), got 'f32'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf32>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @value_cache_page_size(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x8x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'value_cache' dim 2 (page_size) to be 16 to match 'key_cache' dim 2 (page_size), got 8}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x8x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @head_dim(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x128xf16>, %vc: tensor<32x2x16x128xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'key_cache' dim 3 (head_dim) to be 64 to match 'query' dim 2 (head_dim), got 128}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x128xf16>, tensor<32x2x16x128xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @gqa(%q: tensor<4x8x64xf32>, %kc: tensor<32x3x16x64xf16>, %vc: tensor<32x3x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'key_cache' dim 1 (num_kv_heads) to divide 'query' dim 1 (num_heads), got 3 and 8}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x3x16x64xf16>, tensor<32x3x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @context_lens_dtype(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi64>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'context_lens' element type to be 'i32', got 'i64'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi64>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @context_lens_batch(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<8xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'context_lens' dim 0 (batch) to be 4 to match 'query' dim 0 (batch), got 8}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<8xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @block_tables_rank(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<32xi32>) {
  // expected-error @+1 {{expects 'block_tables' to have rank 2 [batch, max_pages_per_seq], got rank 1}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<32xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @block_tables_batch(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<1x8xi32>) {
  // expected-error @+1 {{expects 'block_tables' dim 0 (batch) to be 4 to match 'query' dim 0 (batch), got 1}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<1x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @scale(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got 0}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {softmax_scale = 0.0 : f32} : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @soft_cap(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got -3}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {logits_soft_cap = -3.0 : f32} : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @sliding_window(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'sliding_window' to be at least 1, got 0}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {sliding_window = 0 : i64} : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f32'), got 'f16'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf16>
  return
}

// -----

func.func @output_heads(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'output' dim 1 (num_heads) to be 8 to match 'query' dim 1 (num_heads), got 2}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x2x64xf32>
  return
}

// -----

func.func @config_name(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: block_k, num_splits, num_subgroups}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_q = 16, block_k = 32>} : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @kv_layout(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'kv_layout' to be "head_major" or "token_major", got "bshd"}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {kv_layout = "bshd"} : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

// Token-major pages name their dims in that order.
func.func @token_major_gqa(%q: tensor<4x8x64xf32>, %kc: tensor<32x16x3x64xf16>, %vc: tensor<32x16x3x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'key_cache' dim 2 (num_kv_heads) to divide 'query' dim 1 (num_heads), got 3 and 8}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {kv_layout = "token_major"} : tensor<4x8x64xf32>, tensor<32x16x3x64xf16>, tensor<32x16x3x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @lse_dtype(%q: tensor<4x8x64xf16>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'lse' element type to be 'f32', got 'f16'}}
  %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf16>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf16>, tensor<4x8xf16>
  return
}

// -----

func.func @lse_rank(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'lse' to have rank 2 [batch, num_heads], got rank 3}}
  %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>, tensor<4x8x1xf32>
  return
}

// -----

func.func @lse_heads(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xf16>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'lse' dim 1 (num_heads) to be 8 to match 'query' dim 1 (num_heads), got 2}}
  %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xf16>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @int8_value_cache(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xi8>, %vc: tensor<32x2x16x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'value_cache' element type to match 'key_cache' ('i8'), got 'f16'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<4x8x64xf32>, tensor<32x2x16x64xi8>, tensor<32x2x16x64xf16>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @k_scale(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xi8>, %vc: tensor<32x2x16x64xi8>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'k_scale' to be positive and finite, got -0.5}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {k_scale = -0.5 : f32} : tensor<4x8x64xf32>, tensor<32x2x16x64xi8>, tensor<32x2x16x64xi8>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}

// -----

func.func @v_scale(%q: tensor<4x8x64xf32>, %kc: tensor<32x2x16x64xi8>, %vc: tensor<32x2x16x64xi8>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>) {
  // expected-error @+1 {{expects 'v_scale' to be positive and finite, got 0}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {v_scale = 0.0 : f32} : tensor<4x8x64xf32>, tensor<32x2x16x64xi8>, tensor<32x2x16x64xi8>, tensor<4xi32>, tensor<4x8xi32> -> tensor<4x8x64xf32>
  return
}
