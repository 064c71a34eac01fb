// RUN: ejk-opt %s -split-input-file -verify-diagnostics
// Every verifier message of ejk.unified_attention.

func.func @queries_rank(%q: tensor<1x64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'queries' to have rank 3 [num_tokens, num_heads, head_dim], got rank 4}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<1x64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @queries_dtype(%q: tensor<64x8x64xi32>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'queries' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xi32>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xi32>
  return
}

// -----

func.func @key_cache_rank(%q: tensor<64x8x64xbf16>, %kc: tensor<512x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'key_cache' to have rank 4 [num_pages, page_size, num_kv_heads, head_dim], got rank 3}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<512x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @key_cache_int8(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xi8>, %vc: tensor<32x16x4x64xi8>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'key_cache' element type to be f32, f16 or bf16, got 'i8'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xi8>, tensor<32x16x4x64xi8>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @value_cache_dtype(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'value_cache' element type to match 'key_cache' ('bf16'), got 'f16'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @value_cache_pages(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<16x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'value_cache' dim 0 (num_pages) to be 32 to match 'key_cache' dim 0 (num_pages), got 16}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<16x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @head_dim(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x32xbf16>, %vc: tensor<32x16x4x32xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'key_cache' dim 3 (head_dim) to be 64 to match 'queries' dim 2 (head_dim), got 32}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x32xbf16>, tensor<32x16x4x32xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @kv_heads(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x3x64xbf16>, %vc: tensor<32x16x3x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'key_cache' dim 2 (num_kv_heads) to divide 'queries' dim 1 (num_heads), got 3 and 8}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x3x64xbf16>, tensor<32x16x3x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @kv_lens_dtype(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi64>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'kv_lens' element type to be 'i32', got 'i64'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi64>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @kv_lens_rank(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4x1xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'kv_lens' to have rank 1 [num_seqs], got rank 2}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4x1xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @block_tables_seqs(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<3x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'block_tables' dim 0 (num_seqs) to be 4 to match 'kv_lens' dim 0 (num_seqs), got 3}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<3x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @block_tables_dtype(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi64>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'block_tables' element type to be 'i32', got 'i64'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi64>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @query_start_loc_size(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<4xi32>) {
  // expected-error @+1 {{expects 'query_start_loc' dim 0 (num_seqs + 1) to be 5 (1 + 'kv_lens' dim 0 (num_seqs)), got 4}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<4xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @query_start_loc_dtype(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi64>) {
  // expected-error @+1 {{expects 'query_start_loc' element type to be 'i32', got 'i64'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi64> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @alibi_heads(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>, %alibi: tensor<4xf32>) {
  // expected-error @+1 {{expects 'alibi_slopes' dim 0 (num_heads) to be 8 to match 'queries' dim 1 (num_heads), got 4}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts alibi(%alibi : tensor<4xf32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @alibi_dtype(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>, %alibi: tensor<8xi32>) {
  // expected-error @+1 {{expects 'alibi_slopes' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts alibi(%alibi : tensor<8xi32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @alibi_rank(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>, %alibi: tensor<8x1xf32>) {
  // expected-error @+1 {{expects 'alibi_slopes' to have rank 1 [num_heads], got rank 2}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts alibi(%alibi : tensor<8x1xf32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @qq_bias_rank(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>, %qq: tensor<16xf32>) {
  // expected-error @+1 {{expects 'qq_bias' to have rank 2 [num_query_tokens, num_query_tokens], got rank 1}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts qq_bias(%qq : tensor<16xf32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @qq_bias_square(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>, %qq: tensor<16x8xf32>) {
  // expected-error @+1 {{expects 'qq_bias' dim 1 (num_query_tokens) to be 16 to match 'qq_bias' dim 0 (num_query_tokens), got 8}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts qq_bias(%qq : tensor<16x8xf32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @qq_bias_dtype(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>, %qq: tensor<16x16xi32>) {
  // expected-error @+1 {{expects 'qq_bias' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts qq_bias(%qq : tensor<16x16xi32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @sinks_heads(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>, %aux: tensor<2xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' dim 0 (num_heads) to be 8 to match 'queries' dim 1 (num_heads), got 2}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts sinks(%aux : tensor<2xf32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @sinks_dtype(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>, %aux: tensor<8xi32>) {
  // expected-error @+1 {{expects 'softmax_aux' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts sinks(%aux : tensor<8xi32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @softmax_scale(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -1}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {softmax_scale = -1.0 : f32} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @soft_cap(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got 0}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {logits_soft_cap = 0.0 : f32} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @window(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'sliding_window' to be at least 1, got 0}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {sliding_window = 0 : i64} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @output_shape(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'output' dim 0 (num_tokens) to be 64 to match 'queries' dim 0 (num_tokens), got 32}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<32x8x64xbf16>
  return
}

// -----

func.func @output_dtype(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{expects 'output' element type to match 'queries' ('bf16'), got 'f32'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xf32>
  return
}

// -----

func.func @config(%q: tensor<64x8x64xbf16>, %kc: tensor<32x16x4x64xbf16>, %vc: tensor<32x16x4x64xbf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) {
  // expected-error @+1 {{does not accept config entry 'num_splits', expected one of: block_q, block_k, num_subgroups}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {config = #ejk.config<block_k = 64, num_splits = 2>} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x8x64xbf16>
  return
}
