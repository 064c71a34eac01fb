// RUN: ejk-opt %s -split-input-file -verify-diagnostics
// Every verifier message of ejk.ragged_decode_attention.

func.func @query_rank(%q: tensor<4x1x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'query' to have rank 3 [batch, num_heads, head_dim], got rank 4}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x1x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @query_dtype(%q: tensor<4x8x64xi32>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xi32>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xi32>
  return
}

// -----

func.func @key_rank(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'key' to have rank 4 [batch, seq_len, num_kv_heads, head_dim], got rank 3}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @key_int8(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xi8>, %v: tensor<4x128x2x64xi8>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'key' element type to be f32, f16 or bf16, got 'i8'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x64xi8>, tensor<4x128x2x64xi8>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @key_batch(%q: tensor<4x8x64xbf16>, %k: tensor<2x128x2x64xbf16>, %v: tensor<2x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'key' dim 0 (batch) to be 4 to match 'query' dim 0 (batch), got 2}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<2x128x2x64xbf16>, tensor<2x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @key_head_dim(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x32xbf16>, %v: tensor<4x128x2x32xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'key' dim 3 (head_dim) to be 64 to match 'query' dim 2 (head_dim), got 32}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x32xbf16>, tensor<4x128x2x32xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @kv_heads(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x3x64xbf16>, %v: tensor<4x128x3x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to divide 'query' dim 1 (num_heads), got 3 and 8}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x3x64xbf16>, tensor<4x128x3x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @value_seq_len(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x64x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'value' dim 1 (seq_len) to be 128 to match 'key' dim 1 (seq_len), got 64}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x64x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @value_dtype(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'value' element type to match 'key' ('bf16'), got 'f16'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @start_dtype(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi64>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'sequence_start' element type to be 'i32', got 'i64'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi64>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @end_batch(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<3xi32>) {
  // expected-error @+1 {{expects 'sequence_end' dim 0 (batch) to be 4 to match 'query' dim 0 (batch), got 3}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<3xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @end_rank(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4x1xi32>) {
  // expected-error @+1 {{expects 'sequence_end' to have rank 1 [batch], got rank 2}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4x1xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @sinks_rank(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>, %aux: tensor<8x1x1xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' to have rank 1 [num_sinks], got rank 3}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%aux : tensor<8x1x1xf32>) : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @sinks_heads(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>, %aux: tensor<3x1xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' dim 0 (heads) to be 2 ('key' dim 2, num_kv_heads) or 8 ('query' dim 1, num_heads), got 3}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%aux : tensor<3x1xf32>) : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @sinks_none(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>, %aux: tensor<8x0xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' dim 1 (num_sinks) to be at least 1 (a sink logit), got 0}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%aux : tensor<8x0xf32>) : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @sinks_empty(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>, %aux: tensor<0xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' dim 0 (num_sinks) to be at least 1 (a sink logit), got 0}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%aux : tensor<0xf32>) : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @sinks_dtype(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>, %aux: tensor<2x1xi32>) {
  // expected-error @+1 {{expects 'softmax_aux' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%aux : tensor<2x1xi32>) : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @sinks_dtype_1d(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>, %aux: tensor<1xi32>) {
  // expected-error @+1 {{expects 'softmax_aux' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends sinks(%aux : tensor<1xi32>) : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @window_size(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'sliding_window' to have 2 elements [left, right], got 1}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends {sliding_window = array<i64: 8>} : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @window_negative(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'sliding_window' sizes to be non-negative, got [-1, 0]}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends {sliding_window = array<i64: -1, 0>} : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @softmax_scale(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got inf}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends {softmax_scale = 0x7F800000 : f32} : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @soft_cap(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got -2}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends {logits_soft_cap = -2.0 : f32} : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @output_shape(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'output' dim 1 (num_heads) to be 8 to match 'query' dim 1 (num_heads), got 4}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x4x64xbf16>
  return
}

// -----

func.func @output_dtype(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('bf16'), got 'f16'}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xf16>
  return
}

// -----

func.func @config(%q: tensor<4x8x64xbf16>, %k: tensor<4x128x2x64xbf16>, %v: tensor<4x128x2x64xbf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: block_k, num_splits, num_subgroups}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends {config = #ejk.config<block_q = 1, block_k = 64>} : tensor<4x8x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4x128x2x64xbf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x8x64xbf16>
  return
}
