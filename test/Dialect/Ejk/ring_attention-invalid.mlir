// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<2x16x512xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq_q, num_heads, head_dim], got rank 3}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x512xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @dynamic(%q: tensor<?x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'query' to have a static shape, got 'tensor<?x16x8x64xf32>'}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<?x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<2x16x8x64xi8>, %k: tensor<2x16x2x64xi8>, %v: tensor<2x16x2x64xi8>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'i8'}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xi8>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8> -> tensor<2x16x8x64xi8>
  return
}

// -----

func.func @key_dtype(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf16>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'key' element type to match 'query' ('f32'), got 'f16'}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf16>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @key_head_dim(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x128xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'key' dim 3 (head_dim) to be 64 to match 'query' dim 3 (head_dim), got 128}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x128xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @gqa(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x5x64xf32>, %v: tensor<2x16x5x64xf32>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 5 and 8}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x5x64xf32>, tensor<2x16x5x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @shard_len(%q: tensor<2x16x8x64xf32>, %k: tensor<2x64x2x64xf32>, %v: tensor<2x64x2x64xf32>) {
  // expected-error @+1 {{expects 'key' dim 1 (seq_k) to be 16 to match 'query' dim 1 (seq_q), got 64}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x64x2x64xf32>, tensor<2x64x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @one_segment(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>, %ks: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' and 'kv_segment_ids' to be given together}}
  %o = ejk.ring_attention %q, %k, %v kv_segment_ids(%ks : tensor<2x16xi32>) {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @segment_dtype(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>, %qs: tensor<2x16xi64>, %ks: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' element type to be 'i32', got 'i64'}}
  %o = ejk.ring_attention %q, %k, %v q_segment_ids(%qs : tensor<2x16xi64>) kv_segment_ids(%ks : tensor<2x16xi32>) {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @segment_len(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>, %qs: tensor<2x16xi32>, %ks: tensor<2x64xi32>) {
  // expected-error @+1 {{expects 'kv_segment_ids' dim 1 (seq_k) to be 16 to match 'key' dim 1 (seq_k), got 64}}
  %o = ejk.ring_attention %q, %k, %v q_segment_ids(%qs : tensor<2x16xi32>) kv_segment_ids(%ks : tensor<2x64xi32>) {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @no_ring_size(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{requires attribute 'ring_size'}}
  %o = ejk.ring_attention %q, %k, %v {axis_name = "sp"} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @ring_size(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'ring_size' to be at least 1, got 0}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 0 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @axis_name(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'axis_name' to be non-empty}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64, axis_name = ""} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @scale(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -1}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64, softmax_scale = -1.0 : f32} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @soft_cap(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got nan}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64, logits_soft_cap = 0x7FC00000 : f32} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @window_size(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'sliding_window' to have 2 elements [left, right], got 1}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64, sliding_window = array<i64: 128>} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @window_negative(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'sliding_window' sizes to be non-negative, got [128, -2]}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64, sliding_window = array<i64: 128, -2>} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f32'), got 'bf16'}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xbf16>
  return
}

// -----

func.func @output_seq(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'output' dim 1 (seq_q) to be 16 to match 'query' dim 1 (seq_q), got 64}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x64x8x64xf32>
  return
}

// -----

func.func @lse_layout(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'lse' dim 2 (seq_q) to be 16 to match 'query' dim 1 (seq_q), got 64}}
  %o, %lse = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>, tensor<2x8x64xf32>
  return
}

// -----

func.func @lse_dtype(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{expects 'lse' element type to be 'f32', got 'f16'}}
  %o, %lse = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>, tensor<2x8x16xf16>
  return
}

// -----

func.func @config_name(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{does not accept config entry 'ring_chunk', expected one of: block_q, block_k, num_subgroups}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64, config = #ejk.config<block_q = 64, ring_chunk = 2>} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return
}
