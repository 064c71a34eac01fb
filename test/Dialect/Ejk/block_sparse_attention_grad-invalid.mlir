// RUN: ejk-opt %s -split-input-file -verify-diagnostics

// Every message of ejk.block_sparse_attention_grad's verifier.
func.func @query_rank(%q: tensor<2x10x8x64x1xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq_q, num_heads, head_dim], got rank 5}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64x1xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64x1xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @dynamic(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x?x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'value' to have a static shape, got 'tensor<2x20x?x64xf32>'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x?x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x?x64xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<2x10x8x64xf64>, %k: tensor<2x20x2x64xf64>, %v: tensor<2x20x2x64xf64>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'f64'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf64>, tensor<2x20x2x64xf64>, tensor<2x20x2x64xf64>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf64>, tensor<2x20x2x64xf64>, tensor<2x20x2x64xf64>
  return
}

// -----

func.func @key_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xbf16>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'key' element type to match 'query' ('f32'), got 'bf16'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xbf16>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xbf16>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @value_seq(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x16x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'value' dim 1 (seq_k) to be 20 to match 'key' dim 1 (seq_k), got 16}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x16x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x16x2x64xf32>
  return
}

// -----

func.func @gqa(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x3x64xf32>, %v: tensor<2x20x3x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 3 and 8}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x3x64xf32>, tensor<2x20x3x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x3x64xf32>, tensor<2x20x3x64xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf16>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f32'), got 'f16'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf16>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @d_output_rank(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'd_output' to have rank 4 [batch, seq_q, num_heads, head_dim_v], got rank 3}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @d_output_seq(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x9x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'd_output' dim 1 (seq_q) to be 10 to match 'query' dim 1 (seq_q), got 9}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x9x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @lse_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xbf16>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'lse' element type to be 'f32', got 'bf16'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xbf16>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @lse_heads(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x4x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'lse' dim 1 (num_heads) to be 8 to match 'query' dim 2 (num_heads), got 4}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x4x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @q_block_zero(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'q_block_size' to be at least 1, got 0}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 0 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @kv_block_negative(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'kv_block_size' to be at least 1, got -8}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = -8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @block_mask_rank(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<3x3xi1>) {
  // expected-error @+1 {{expects 'block_mask' to have rank 4 [batch, num_heads, num_q_blocks, num_kv_blocks], got rank 2}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @block_mask_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi32>) {
  // expected-error @+1 {{expects 'block_mask' element type to be 'i1', got 'i32'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi32>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @block_mask_heads(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x2x3x3xi1>) {
  // expected-error @+1 {{expects 'block_mask' dim 1 (num_heads) to be 1 or 8 to match 'query' dim 2 (num_heads), got 2}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x2x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @block_mask_q_blocks(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x2x3xi1>) {
  // expected-error @+1 {{expects 'block_mask' dim 2 (num_q_blocks) to be 3 (ceil(seq_q / q_block_size)), got 2}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x2x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @block_mask_kv_blocks(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x5xi1>) {
  // expected-error @+1 {{expects 'block_mask' dim 3 (num_kv_blocks) to be 3 (ceil(seq_k / kv_block_size)), got 5}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x5xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @softmax_scale(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got inf}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, softmax_scale = 0x7F800000 : f32}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @soft_cap(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got 0}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, logits_soft_cap = 0.0 : f32}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @window_size(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'sliding_window' to have 2 elements [left, right] or 1 [size], got 3}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, sliding_window = array<i64: 1, 2, 3>}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @window_negative(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'sliding_window' sizes to be non-negative, got [-1, 2]}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, sliding_window = array<i64: -1, 2>}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @chunk(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'chunk_size' to be at least 1, got 0}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, chunk_size = 0 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @alignment(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'mask_alignment' to be "top_left" or "bottom_right", got "centre"}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, mask_alignment = "centre"}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @d_query_dim(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'd_query' dim 3 (head_dim) to be 64 to match 'query' dim 3 (head_dim), got 32}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x32xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @d_key_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'd_key' element type to match 'key' ('f32'), got 'f16'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf16>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @d_value_heads(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'd_value' dim 2 (num_kv_heads) to be 2 to match 'value' dim 2 (num_kv_heads), got 8}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x8x64xf32>
  return
}

// -----

func.func @config(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{does not accept config entry 'num_subgroups', expected one of: block_q, block_k, dq_block_q, dq_block_k, fuse_dq}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, config = #ejk.config<block_q = 16, num_subgroups = 2>}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @bias_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>, %b: tensor<2x8x10x20xi32>) {
  // expected-error @+1 {{expects 'bias' element type to be f32, f16 or bf16, got 'i32'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm bias(%b : tensor<2x8x10x20xi32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @bias_seq(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>, %b: tensor<2x8x10x16xf32>) {
  // expected-error @+1 {{expects 'bias' dim 3 (seq_k) to be 20 to match 'key' dim 1 (seq_k), got 16}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm bias(%b : tensor<2x8x10x16xf32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @mask_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>, %b: tensor<2x8x10x20xf32>) {
  // expected-error @+1 {{expects 'mask' element type to be 'i1', got 'f32'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm mask(%b : tensor<2x8x10x20xf32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @mask_heads(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>, %b: tensor<2x2x10x20xi1>) {
  // expected-error @+1 {{expects 'mask' dim 1 (num_heads) to be 1 or 8 to match 'query' dim 2 (num_heads), got 2}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm mask(%b : tensor<2x2x10x20xi1>) {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @segments_together(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>, %b: tensor<2x10xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' and 'kv_segment_ids' to be given together}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm q_segment_ids(%b : tensor<2x10xi32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @segments_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>, %b: tensor<2x10xi1>, %c: tensor<2x20xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' element type to be 'i32', got 'i1'}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm q_segment_ids(%b : tensor<2x10xi1>) kv_segment_ids(%c : tensor<2x20xi32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}

// -----

func.func @segments_batch(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %o: tensor<2x10x8x64xf32>, %do: tensor<2x10x8x64xf32>, %lse: tensor<2x8x10xf32>, %bm: tensor<2x8x3x3xi1>, %b: tensor<2x10xi32>, %c: tensor<1x20xi32>) {
  // expected-error @+1 {{expects 'kv_segment_ids' dim 0 (batch) to be 2 to match 'key' dim 0 (batch), got 1}}
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm q_segment_ids(%b : tensor<2x10xi32>) kv_segment_ids(%c : tensor<1x20xi32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64}
      : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x10x8x64xf32>, tensor<2x10x8x64xf32>, tensor<2x8x10xf32>, tensor<2x8x3x3xi1>
      -> tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>
  return
}
