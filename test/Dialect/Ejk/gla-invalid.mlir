// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<2x16x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq, num_heads, head_dim_k], got rank 3}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @dynamic(%q: tensor<2x?x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'query' to have a static shape, got 'tensor<2x?x4x32xf32>'}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x?x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<2x16x4x32xi32>, %k: tensor<2x16x4x32xi32>, %v: tensor<2x16x4x16xi32>, %g: tensor<2x16x4x32xi32>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'i32'}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xi32>) : tensor<2x16x4x32xi32>, tensor<2x16x4x32xi32>, tensor<2x16x4x16xi32> -> tensor<2x16x4x16xi32>
  return
}

// -----

func.func @key_dtype(%q: tensor<2x16x4x32xf16>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf16>, %g: tensor<2x16x4x32xf16>) {
  // expected-error @+1 {{expects 'key' element type to match 'query' ('f16'), got 'f32'}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf16>) : tensor<2x16x4x32xf16>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf16> -> tensor<2x16x4x16xf16>
  return
}

// -----

func.func @key_seq(%q: tensor<2x16x4x32xf32>, %k: tensor<2x8x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'key' dim 1 (seq) to be 16 to match 'query' dim 1 (seq), got 8}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x8x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @key_head_dim(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x8xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'key' dim 3 (head_dim_k) to be 32 to match 'query' dim 3 (head_dim_k), got 8}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @value_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xbf16>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'value' element type to match 'query' ('f32'), got 'bf16'}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xbf16> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @value_heads(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x2x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'value' dim 2 (num_kv_heads) to be 4 to match 'key' dim 2 (num_kv_heads), got 2}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_rank(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4xf32>) {
  // expected-error @+1 {{expects 'g' to have rank 4 [batch, seq, num_heads, head_dim_k], got rank 3}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xbf16>) {
  // expected-error @+1 {{expects 'g' element type to match 'query' ('f32'), got 'bf16'}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xbf16>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_head_dim(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'g' dim 3 (head_dim_k) to be 32 to match 'query' dim 3 (head_dim_k), got 16}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x16xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @initial_state_rank(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>, %s0: tensor<2x4x32xf32>) {
  // expected-error @+1 {{expects 'initial_state' to have rank 4 [num_seqs, num_heads, head_dim_k, head_dim_v], got rank 3}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) initial_state(%s0 : tensor<2x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @initial_state_dtype(%q: tensor<2x16x4x32xf16>, %k: tensor<2x16x4x32xf16>, %v: tensor<2x16x4x16xf16>, %g: tensor<2x16x4x32xf16>, %s0: tensor<2x4x32x16xf16>) {
  // expected-error @+1 {{expects 'initial_state' element type to be 'f32', got 'f16'}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf16>) initial_state(%s0 : tensor<2x4x32x16xf16>) : tensor<2x16x4x32xf16>, tensor<2x16x4x32xf16>, tensor<2x16x4x16xf16> -> tensor<2x16x4x16xf16>
  return
}

// -----

func.func @initial_state_heads(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>, %s0: tensor<2x8x32x16xf32>) {
  // expected-error @+1 {{expects 'initial_state' dim 1 (num_heads) to be 4 to match 'query' dim 2 (num_heads), got 8}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) initial_state(%s0 : tensor<2x8x32x16xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @initial_state_head_dim_v(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>, %s0: tensor<2x4x32x32xf32>) {
  // expected-error @+1 {{expects 'initial_state' dim 3 (head_dim_v) to be 16 to match 'value' dim 3 (head_dim_v), got 32}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) initial_state(%s0 : tensor<2x4x32x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @scale_zero(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'scale' to be positive and finite, got 0}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) {scale = 0.0 : f32} : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @scale_inf(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'scale' to be positive and finite, got inf}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) {scale = 0x7F800000 : f32} : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f32'), got 'f16'}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf16>
  return
}

// -----

func.func @output_seq(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'output' dim 1 (seq) to be 16 to match 'query' dim 1 (seq), got 8}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x8x4x16xf32>
  return
}

// -----

func.func @output_head_dim_v(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'output' dim 3 (head_dim_v) to be 16 to match 'value' dim 3 (head_dim_v), got 32}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x32xf32>
  return
}

// -----

func.func @final_state_dtype(%q: tensor<2x16x4x32xbf16>, %k: tensor<2x16x4x32xbf16>, %v: tensor<2x16x4x16xbf16>, %g: tensor<2x16x4x32xbf16>) {
  // expected-error @+1 {{expects 'final_state' element type to be 'f32', got 'bf16'}}
  %r0, %r1 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xbf16>) : tensor<2x16x4x32xbf16>, tensor<2x16x4x32xbf16>, tensor<2x16x4x16xbf16> -> tensor<2x16x4x16xbf16>, tensor<2x4x32x16xbf16>
  return
}

// -----

func.func @final_state_head_dim_k(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'final_state' dim 2 (head_dim_k) to be 32 to match 'query' dim 3 (head_dim_k), got 16}}
  %r0, %r1 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>, tensor<2x4x16x16xf32>
  return
}

// -----

func.func @config_name(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: chunk_size, block_v}}
  %r0 = ejk.gla %q, %k, %v g(%g : tensor<2x16x4x32xf32>) {config = #ejk.config<chunk_size = 64, block_q = 16>} : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @kv_heads_divide(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x3x32xf32>, %v: tensor<2x16x3x16xf32>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 3 and 4}}
  %r0 = ejk.gla %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x3x32xf32>, tensor<2x16x3x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @key_batch(%q: tensor<2x16x4x32xf32>, %k: tensor<1x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'key' dim 0 (batch) to be 2 to match 'query' dim 0 (batch), got 1}}
  %r0 = ejk.gla %q, %k, %v : tensor<2x16x4x32xf32>, tensor<1x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_gamma_rank(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %gg: tensor<2x4x1xf32>) {
  // expected-error @+1 {{expects 'g_gamma' to have rank 1 [num_heads] or 2 [num_seqs, num_heads], got rank 3}}
  %r0 = ejk.gla %q, %k, %v g_gamma(%gg : tensor<2x4x1xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_gamma_per_batch(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %gg: tensor<3x4xf32>) {
  // expected-error @+1 {{expects 'g_gamma' dim 0 (num_seqs) to be 2 to match 'query' dim 0 (batch), got 3}}
  %r0 = ejk.gla %q, %k, %v g_gamma(%gg : tensor<3x4xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_gamma_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %gg: tensor<4xf16>) {
  // expected-error @+1 {{expects 'g_gamma' element type to be 'f32', got 'f16'}}
  %r0 = ejk.gla %q, %k, %v g_gamma(%gg : tensor<4xf16>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_gamma_heads(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %gg: tensor<8xf32>) {
  // expected-error @+1 {{expects 'g_gamma' dim 0 (num_heads) to be 4 to match 'query' dim 2 (num_heads), got 8}}
  %r0 = ejk.gla %q, %k, %v g_gamma(%gg : tensor<8xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @cu_seqlens_rank(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %cu: tensor<2x3xi32>) {
  // expected-error @+1 {{expects 'cu_seqlens' to have rank 1 [num_seqs_plus_one], got rank 2}}
  %r0 = ejk.gla %q, %k, %v cu_seqlens(%cu : tensor<2x3xi32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @cu_seqlens_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %cu: tensor<3xi64>) {
  // expected-error @+1 {{expects 'cu_seqlens' element type to be 'i32', got 'i64'}}
  %r0 = ejk.gla %q, %k, %v cu_seqlens(%cu : tensor<3xi64>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @cu_seqlens_empty(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x4x32xf32>, %v: tensor<1x16x4x16xf32>, %cu: tensor<0xi32>) {
  // expected-error @+1 {{expects 'cu_seqlens' dim 0 (num_seqs_plus_one) to be at least 1, got 0}}
  %r0 = ejk.gla %q, %k, %v cu_seqlens(%cu : tensor<0xi32>) : tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32> -> tensor<1x16x4x16xf32>
  return
}

// -----

func.func @cu_seqlens_batch(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %cu: tensor<3xi32>) {
  // expected-error @+1 {{expects 'query' dim 0 (batch) to be 1 (packed sequences ('cu_seqlens')), got 2}}
  %r0 = ejk.gla %q, %k, %v cu_seqlens(%cu : tensor<3xi32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @cu_seqlens_initial_state(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x4x32xf32>, %v: tensor<1x16x4x16xf32>, %cu: tensor<4xi32>, %s0: tensor<2x4x32x16xf32>) {
  // expected-error @+1 {{expects 'initial_state' dim 0 (num_seqs) to be 3 (one state per sequence: 'cu_seqlens' dim 0 (num_seqs_plus_one) minus 1), got 2}}
  %r0 = ejk.gla %q, %k, %v initial_state(%s0 : tensor<2x4x32x16xf32>) cu_seqlens(%cu : tensor<4xi32>) : tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32> -> tensor<1x16x4x16xf32>
  return
}

// -----

func.func @cu_seqlens_final_state(%q: tensor<1x16x4x32xf32>, %k: tensor<1x16x4x32xf32>, %v: tensor<1x16x4x16xf32>, %cu: tensor<4xi32>) {
  // expected-error @+1 {{expects 'final_state' dim 0 (num_seqs) to be 3 (one state per sequence: 'cu_seqlens' dim 0 (num_seqs_plus_one) minus 1), got 1}}
  %r0, %r1 = ejk.gla %q, %k, %v cu_seqlens(%cu : tensor<4xi32>) : tensor<1x16x4x32xf32>, tensor<1x16x4x32xf32>, tensor<1x16x4x16xf32> -> tensor<1x16x4x16xf32>, tensor<1x4x32x16xf32>
  return
}

// -----

func.func @final_state_batch(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'final_state' dim 0 (num_seqs) to be 2 to match 'query' dim 0 (batch), got 3}}
  %r0, %r1 = ejk.gla %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>, tensor<3x4x32x16xf32>
  return
}

// -----

// A state of no key dim: every output would be 0 (the kernels used to be
// dispatched over zero-sized buffers, which neither lowering accepts).
func.func @head_dim_k_zero(%q: tensor<2x16x4x0xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'query' dim 3 (head_dim_k) to be at least 1 (a state of no key dim gives 0 for every query), got 0}}
  %r0 = ejk.gla %q, %q, %v : tensor<2x16x4x0xf32>, tensor<2x16x4x0xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @no_steps_initial_state(%q: tensor<2x0x4x32xf32>, %v: tensor<2x0x4x16xf32>, %s0: tensor<2x4x32x16xf32>) {
  // expected-error @+1 {{expects 'query' dim 1 (seq) to be at least 1 (a scan of no steps over an 'initial_state' would only copy it), got 0}}
  %r0, %s = ejk.gla %q, %q, %v initial_state(%s0 : tensor<2x4x32x16xf32>) : tensor<2x0x4x32xf32>, tensor<2x0x4x32xf32>, tensor<2x0x4x16xf32> -> tensor<2x0x4x16xf32>, tensor<2x4x32x16xf32>
  return
}
