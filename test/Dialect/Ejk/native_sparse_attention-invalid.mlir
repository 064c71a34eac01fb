// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq_len, num_heads, head_dim], got rank 3}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<1x16x4x32xf64>, %k: tensor<1x16x2x32xf64>, %v: tensor<1x16x2x32xf64>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'f64'}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf64>, tensor<1x16x2x32xf64>, tensor<1x16x2x32xf64> -> tensor<1x16x4x32xf64>
  return
}

// -----

func.func @key_dtype(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xbf16>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'key' element type to match 'query' ('f32'), got 'bf16'}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xbf16>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @value_dtype(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf16>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'value' element type to match 'query' ('f32'), got 'f16'}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf16> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @key_seq(%q: tensor<1x16x4x32xf32>, %k: tensor<1x8x2x32xf32>, %v: tensor<1x8x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'key' dim 1 (seq_len) to be 16 to match 'query' dim 1 (seq_len), got 8}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x8x2x32xf32>, tensor<1x8x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @value_dim(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x16xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'value' dim 3 (head_dim) to be 32 to match 'key' dim 3 (head_dim), got 16}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x16xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @head_dim_zero(%q: tensor<1x16x4x0xf32>, %k: tensor<1x16x2x0xf32>, %v: tensor<1x16x2x0xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'query' dim 3 (head_dim) to be at least 1 (scores are dot products over it), got 0}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x0xf32>, tensor<1x16x2x0xf32>, tensor<1x16x2x0xf32> -> tensor<1x16x4x0xf32>
  return
}

// -----

func.func @kv_heads_zero(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x0x32xf32>, %v: tensor<1x16x0x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to be at least 1 (query heads read key/value heads), got 0}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x0x32xf32>, tensor<1x16x0x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @group(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x3x32xf32>, %v: tensor<1x16x3x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 3 and 4}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x3x32xf32>, tensor<1x16x3x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @block_size(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'block_size' to be at least 1, got 0}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 0 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @block_counts(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'block_counts' to be at least 1, got 0}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_counts = 0 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @window_size(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'window_size' to be at least 0, got -1}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {window_size = -1 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @scale(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -0.5}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {softmax_scale = -0.5 : f32} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @gate_rank(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<16x4xf32>) {
  // expected-error @+1 {{expects 'g_cmp' to have rank 3 [batch, seq_len, num_heads], got rank 2}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @gate_heads(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>, %gs: tensor<1x16x2xf32>) {
  // expected-error @+1 {{expects 'g_slc' dim 2 (num_heads) to be 4 to match 'query' dim 2 (num_heads), got 2}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) g_slc(%gs : tensor<1x16x2xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @gate_dtype(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>, %gw: tensor<1x16x4xf16>) {
  // expected-error @+1 {{expects 'g_swa' element type to match 'query' ('f32'), got 'f16'}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) g_swa(%gw : tensor<1x16x4xf16>) {window_size = 8 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @swa_without_window(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>, %gw: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'window_size' to be positive when 'g_swa' is given (the sliding-window branch it gates)}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) g_swa(%gw : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @no_selection(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gs: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'g_cmp' (select the blocks by the compression branch) or 'block_indices'}}
  %o = ejk.native_sparse_attention %q, %k, %v g_slc(%gs : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @both(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>, %bi: tensor<1x16x2x3xi32>) {
  // expected-error @+1 {{expects 'g_cmp' or 'block_indices', not both (with 'g_cmp' the blocks are selected from the compression branch; ejKernel ignores 'block_indices' then)}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) block_indices(%bi : tensor<1x16x2x3xi32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @indices_rank(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %bi: tensor<16x2x3xi32>) {
  // expected-error @+1 {{expects 'block_indices' to have rank 4 [batch, rows, cols, num_selected], got rank 3}}
  %o = ejk.native_sparse_attention %q, %k, %v block_indices(%bi : tensor<16x2x3xi32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @indices_dtype(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %bi: tensor<1x16x2x3xi64>) {
  // expected-error @+1 {{expects 'block_indices' element type to be 'i32', got 'i64'}}
  %o = ejk.native_sparse_attention %q, %k, %v block_indices(%bi : tensor<1x16x2x3xi64>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @indices_batch(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %bi: tensor<2x16x2x3xi32>) {
  // expected-error @+1 {{expects 'block_indices' dim 0 (batch) to be 1 to match 'query' dim 0 (batch), got 2}}
  %o = ejk.native_sparse_attention %q, %k, %v block_indices(%bi : tensor<2x16x2x3xi32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @indices_slots(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %bi: tensor<1x16x2x0xi32>) {
  // expected-error @+1 {{expects 'block_indices' dim 3 (num_selected) to be at least 1 (a token selects at least one slot), got 0}}
  %o = ejk.native_sparse_attention %q, %k, %v block_indices(%bi : tensor<1x16x2x0xi32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @indices_layout(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %bi: tensor<1x2x3x3xi32>) {
  // expected-error @+1 {{expects 'block_indices' dims 1 and 2 to be [seq_len, num_kv_heads] = [16, 2] (per token) or [num_kv_heads, ceil(seq_len / block_size)] = [2, 4] (per query block), got [2, 3]}}
  %o = ejk.native_sparse_attention %q, %k, %v block_indices(%bi : tensor<1x2x3x3xi32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f32'), got 'bf16'}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xbf16>
  return
}

// -----

func.func @output_shape(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{expects 'output' dim 2 (num_heads) to be 4 to match 'query' dim 2 (num_heads), got 2}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x2x32xf32>
  return
}

// -----

func.func @config(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x2x32xf32>, %v: tensor<1x16x2x32xf32>, %gc: tensor<1x16x4xf32>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: block_t}}
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x16x4xf32>) {block_size = 4 : i64, config = #ejk.config<block_q = 16>} : tensor<1x16x4x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32> -> tensor<1x16x4x32xf32>
  return
}
