// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<2x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq_q, num_heads, head_dim], got rank 3}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @dynamic(%q: tensor<2x8x8x64xf32>, %k: tensor<2x?x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'key' to have a static shape, got 'tensor<2x?x4x64xf32>'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x?x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<2x8x8x64xi32>, %k: tensor<2x16x4x64xi32>, %v: tensor<2x16x4x32xi32>, %o: tensor<2x8x8x32xi32>, %do: tensor<2x8x8x32xi32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'i32'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xi32>, tensor<2x16x4x64xi32>, tensor<2x16x4x32xi32>, tensor<2x8x8x32xi32>, tensor<2x8x8x32xi32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xi32>, tensor<2x16x4x64xi32>, tensor<2x16x4x32xi32>
  return
}

// -----

func.func @value_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf16>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'value' element type to match 'query' ('f32'), got 'f16'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf16>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @key_batch(%q: tensor<2x8x8x64xf32>, %k: tensor<3x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'key' dim 0 (batch) to be 2 to match 'query' dim 0 (batch), got 3}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<3x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @gqa(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x3x64xf32>, %v: tensor<2x16x3x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 3 and 8}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x3x64xf32>, tensor<2x16x3x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x3x64xf32>, tensor<2x16x3x32xf32>
  return
}

// -----

func.func @output_head_dim_v(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x64xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'output' dim 3 (head_dim_v) to be 32 to match 'value' dim 3 (head_dim_v), got 64}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x64xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xbf16>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f32'), got 'bf16'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xbf16>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @d_output_rank(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x256xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'd_output' to have rank 4 [batch, seq_q, num_heads, head_dim_v], got rank 3}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x256xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @d_output_seq(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x9x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'd_output' dim 1 (seq_q) to be 8 to match 'query' dim 1 (seq_q), got 9}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x9x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @lse_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf16>) {
  // expected-error @+1 {{expects 'lse' element type to be 'f32', got 'f16'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf16> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @lse_layout(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x4xf32>) {
  // expected-error @+1 {{expects 'lse' dim 2 (seq_q) to be 8 to match 'query' dim 1 (seq_q), got 4}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x4xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @bias_heads(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %b: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{expects 'bias' dim 1 (num_heads) to be 1 or 8 to match 'query' dim 2 (num_heads), got 4}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse bias(%b : tensor<2x4x8x16xf32>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @bias_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %b: tensor<1x1x8x16xi8>) {
  // expected-error @+1 {{expects 'bias' element type to be f32, f16 or bf16, got 'i8'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse bias(%b : tensor<1x1x8x16xi8>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @mask_seq_k(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %m: tensor<1x1x8x8xi1>) {
  // expected-error @+1 {{expects 'mask' dim 3 (seq_k) to be 16 to match 'key' dim 1 (seq_k), got 8}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse mask(%m : tensor<1x1x8x8xi1>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @mask_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %m: tensor<1x1x8x16xi8>) {
  // expected-error @+1 {{expects 'mask' element type to be 'i1', got 'i8'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse mask(%m : tensor<1x1x8x16xi8>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @one_segment(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %ks: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' and 'kv_segment_ids' to be given together}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse kv_segment_ids(%ks : tensor<2x16xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @segment_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %qs: tensor<2x8xi32>, %ks: tensor<2x16xi64>) {
  // expected-error @+1 {{expects 'kv_segment_ids' element type to be 'i32', got 'i64'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse q_segment_ids(%qs : tensor<2x8xi32>) kv_segment_ids(%ks : tensor<2x16xi64>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @segment_len(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %qs: tensor<2x16xi32>, %ks: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' dim 1 (seq_q) to be 8 to match 'query' dim 1 (seq_q), got 16}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse q_segment_ids(%qs : tensor<2x16xi32>) kv_segment_ids(%ks : tensor<2x16xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @scale(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got 0}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {softmax_scale = 0.0 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @soft_cap(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got -5}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {logits_soft_cap = -5.0 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @window_size(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'sliding_window' to have 2 elements [left, right] or 1 [size], got 3}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {sliding_window = array<i64: 4, 0, 1>} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @window_negative(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'sliding_window' sizes to be non-negative, got [-1, 0]}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {sliding_window = array<i64: -1, 0>} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @dropout_range(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'dropout_prob' to be in [0, 1), got -5.000000e-01}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {dropout_prob = -0.5 : f32, dropout_seed = 1 : i64} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @dropout_no_seed(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'dropout_seed' when 'dropout_prob' is set}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {dropout_prob = 0.1 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @seed_no_dropout(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'dropout_seed' only with 'dropout_prob'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {dropout_seed = 9 : i64} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @d_query_shape(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'd_query' dim 3 (head_dim) to be 64 to match 'query' dim 3 (head_dim), got 32}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x32xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @d_key_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'd_key' element type to match 'key' ('f32'), got 'f16'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf16>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @d_value_heads(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'd_value' dim 2 (num_kv_heads) to be 4 to match 'value' dim 2 (num_kv_heads), got 8}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x8x32xf32>
  return
}

// -----

func.func @d_value_rank(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'd_value' to have rank 4 [batch, seq_k, num_kv_heads, head_dim_v], got rank 2}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<32x128xf32>
  return
}

// -----

func.func @config_name(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{does not accept config entry 'num_splits', expected one of: block_q, block_k, dq_block_q, dq_block_k, fuse_dq}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {config = #ejk.config<block_q = 64, num_splits = 4>} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @sinks_heads(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' dim 0 (num_heads) to be 8 to match 'query' dim 2 (num_heads), got 4}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse softmax_aux(%s : tensor<4x2xf32>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @padding_rank(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x16x8x32xf32>, %do: tensor<2x16x8x32xf32>, %lse: tensor<2x8x16xf32>, %p: tensor<2x1x16xi1>) {
  // expected-error @+1 {{expects 'padding_mask' to have rank 2 [batch, seq], got rank 3}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse padding_mask(%p : tensor<2x1x16xi1>) : tensor<2x16x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x16x8x32xf32>, tensor<2x16x8x32xf32>, tensor<2x8x16xf32> -> tensor<2x16x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @padding_element(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x16x8x32xf32>, %do: tensor<2x16x8x32xf32>, %lse: tensor<2x8x16xf32>, %p: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'padding_mask' element type to be 'i1', got 'i32'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse padding_mask(%p : tensor<2x16xi32>) : tensor<2x16x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x16x8x32xf32>, tensor<2x16x8x32xf32>, tensor<2x8x16xf32> -> tensor<2x16x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @padding_batch(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x16x8x32xf32>, %do: tensor<2x16x8x32xf32>, %lse: tensor<2x8x16xf32>, %p: tensor<1x16xi1>) {
  // expected-error @+1 {{expects 'padding_mask' dim 0 (batch) to be 2 to match 'query' dim 0 (batch), got 1}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse padding_mask(%p : tensor<1x16xi1>) : tensor<2x16x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x16x8x32xf32>, tensor<2x16x8x32xf32>, tensor<2x8x16xf32> -> tensor<2x16x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @padding_seq_q_ne_seq_k(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %p: tensor<2x8xi1>) {
  // expected-error @+1 {{expects 'padding_mask' only when seq_q equals seq_k (it masks queries and keys alike), got seq_q = 8 and seq_k = 16}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse padding_mask(%p : tensor<2x8xi1>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @padding_seq(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x16x8x32xf32>, %do: tensor<2x16x8x32xf32>, %lse: tensor<2x8x16xf32>, %p: tensor<2x8xi1>) {
  // expected-error @+1 {{expects 'padding_mask' dim 1 (seq) to be 16 to match 'query' dim 1 (seq_q), got 8}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse padding_mask(%p : tensor<2x8xi1>) : tensor<2x16x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x16x8x32xf32>, tensor<2x16x8x32xf32>, tensor<2x8x16xf32> -> tensor<2x16x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @cum_q_rank(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %c: tensor<3x1xi32>) {
  // expected-error @+1 {{expects 'cum_seqlens_q' to have rank 1 [batch_plus_one], got rank 2}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse cum_seqlens_q(%c : tensor<3x1xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @cum_q_element(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %c: tensor<3xi64>) {
  // expected-error @+1 {{expects 'cum_seqlens_q' element type to be 'i32', got 'i64'}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse cum_seqlens_q(%c : tensor<3xi64>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @cum_k_size(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>, %c: tensor<2xi32>) {
  // expected-error @+1 {{expects 'cum_seqlens_k' dim 0 (batch_plus_one) to be 3 (batch + 1), got 2}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse cum_seqlens_k(%c : tensor<2xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}

// -----

func.func @unnormalized(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x32xf32>, %o: tensor<2x8x8x32xf32>, %do: tensor<2x8x8x32xf32>, %lse: tensor<2x8x8xf32>) {
  // expected-error @+1 {{does not take 'normalize_output = false': the gradient of the unnormalized output needs each row's largest logit, which the forward does not return (only 'lse')}}
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {normalize_output = false} : tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32> -> tensor<2x8x8x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x32xf32>
  return
}
