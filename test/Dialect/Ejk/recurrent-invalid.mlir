// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<2x16x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq, num_heads, head_dim_k], got rank 3}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @dynamic(%q: tensor<2x?x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'query' to have a static shape, got 'tensor<2x?x4x32xf32>'}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x?x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<2x16x4x32xi32>, %k: tensor<2x16x4x32xi32>, %v: tensor<2x16x4x16xi32>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'i32'}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xi32>, tensor<2x16x4x32xi32>, tensor<2x16x4x16xi32> -> tensor<2x16x4x16xi32>
  return
}

// -----

func.func @key_dtype(%q: tensor<2x16x4x32xf16>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf16>) {
  // expected-error @+1 {{expects 'key' element type to match 'query' ('f16'), got 'f32'}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf16>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf16> -> tensor<2x16x4x16xf16>
  return
}

// -----

func.func @key_seq(%q: tensor<2x16x4x32xf32>, %k: tensor<2x8x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'key' dim 1 (seq) to be 16 to match 'query' dim 1 (seq), got 8}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x8x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @key_head_dim(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x8xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'key' dim 3 (head_dim_k) to be 32 to match 'query' dim 3 (head_dim_k), got 8}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @value_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xbf16>) {
  // expected-error @+1 {{expects 'value' element type to match 'query' ('f32'), got 'bf16'}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xbf16> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @value_heads(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'value' dim 2 (num_heads) to be 4 to match 'query' dim 2 (num_heads), got 2}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_rank(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'g' to have rank 3 [batch, seq, num_heads], got rank 4}}
  %r0 = ejk.recurrent %q, %k, %v g(%g : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @g_dtype(%q: tensor<2x16x4x32xf16>, %k: tensor<2x16x4x32xf16>, %v: tensor<2x16x4x16xf16>, %g: tensor<2x16x4xf32>) {
  // expected-error @+1 {{expects 'g' element type to match 'query' ('f16'), got 'f32'}}
  %r0 = ejk.recurrent %q, %k, %v g(%g : tensor<2x16x4xf32>) : tensor<2x16x4x32xf16>, tensor<2x16x4x32xf16>, tensor<2x16x4x16xf16> -> tensor<2x16x4x16xf16>
  return
}

// -----

func.func @g_heads(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x1xf32>) {
  // expected-error @+1 {{expects 'g' dim 2 (num_heads) to be 4 to match 'query' dim 2 (num_heads), got 1}}
  %r0 = ejk.recurrent %q, %k, %v g(%g : tensor<2x16x1xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @gk_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %gk: tensor<2x16x4x32xf16>) {
  // expected-error @+1 {{expects 'gk' element type to match 'query' ('f32'), got 'f16'}}
  %r0 = ejk.recurrent %q, %k, %v gk(%gk : tensor<2x16x4x32xf16>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @gk_head_dim(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %gk: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'gk' dim 3 (head_dim_k) to be 32 to match 'query' dim 3 (head_dim_k), got 16}}
  %r0 = ejk.recurrent %q, %k, %v gk(%gk : tensor<2x16x4x16xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @gv_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %gv: tensor<2x16x4x16xbf16>) {
  // expected-error @+1 {{expects 'gv' element type to match 'query' ('f32'), got 'bf16'}}
  %r0 = ejk.recurrent %q, %k, %v gv(%gv : tensor<2x16x4x16xbf16>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @gv_head_dim(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %g: tensor<2x16x4xf32>, %gv: tensor<2x16x4x32xf32>) {
  // expected-error @+1 {{expects 'gv' dim 3 (head_dim_v) to be 16 to match 'value' dim 3 (head_dim_v), got 32}}
  %r0 = ejk.recurrent %q, %k, %v g(%g : tensor<2x16x4xf32>) gv(%gv : tensor<2x16x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @gv_batch(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %gk: tensor<2x16x4x32xf32>, %gv: tensor<1x16x4x16xf32>) {
  // expected-error @+1 {{expects 'gv' dim 0 (batch) to be 2 to match 'value' dim 0 (batch), got 1}}
  %r0 = ejk.recurrent %q, %k, %v gk(%gk : tensor<2x16x4x32xf32>) gv(%gv : tensor<1x16x4x16xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @initial_state_rank(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %s0: tensor<2x4x32xf32>) {
  // expected-error @+1 {{expects 'initial_state' to have rank 4 [batch, num_heads, head_dim_k, head_dim_v], got rank 3}}
  %r0 = ejk.recurrent %q, %k, %v initial_state(%s0 : tensor<2x4x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @initial_state_dtype(%q: tensor<2x16x4x32xf16>, %k: tensor<2x16x4x32xf16>, %v: tensor<2x16x4x16xf16>, %s0: tensor<2x4x32x16xf16>) {
  // expected-error @+1 {{expects 'initial_state' element type to be 'f32', got 'f16'}}
  %r0 = ejk.recurrent %q, %k, %v initial_state(%s0 : tensor<2x4x32x16xf16>) : tensor<2x16x4x32xf16>, tensor<2x16x4x32xf16>, tensor<2x16x4x16xf16> -> tensor<2x16x4x16xf16>
  return
}

// -----

func.func @initial_state_heads(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %s0: tensor<2x8x32x16xf32>) {
  // expected-error @+1 {{expects 'initial_state' dim 1 (num_heads) to be 4 to match 'query' dim 2 (num_heads), got 8}}
  %r0 = ejk.recurrent %q, %k, %v initial_state(%s0 : tensor<2x8x32x16xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @initial_state_head_dim_v(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>, %s0: tensor<2x4x32x32xf32>) {
  // expected-error @+1 {{expects 'initial_state' dim 3 (head_dim_v) to be 16 to match 'value' dim 3 (head_dim_v), got 32}}
  %r0 = ejk.recurrent %q, %k, %v initial_state(%s0 : tensor<2x4x32x32xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @scale_zero(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'scale' to be positive and finite, got 0}}
  %r0 = ejk.recurrent %q, %k, %v {scale = 0.0 : f32} : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @scale_inf(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'scale' to be positive and finite, got inf}}
  %r0 = ejk.recurrent %q, %k, %v {scale = 0x7F800000 : f32} : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f32'), got 'f16'}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf16>
  return
}

// -----

func.func @output_seq(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'output' dim 1 (seq) to be 16 to match 'query' dim 1 (seq), got 8}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x8x4x16xf32>
  return
}

// -----

func.func @output_head_dim_v(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'output' dim 3 (head_dim_v) to be 16 to match 'value' dim 3 (head_dim_v), got 32}}
  %r0 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x32xf32>
  return
}

// -----

func.func @final_state_dtype(%q: tensor<2x16x4x32xbf16>, %k: tensor<2x16x4x32xbf16>, %v: tensor<2x16x4x16xbf16>) {
  // expected-error @+1 {{expects 'final_state' element type to be 'f32', got 'bf16'}}
  %r0, %r1 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xbf16>, tensor<2x16x4x32xbf16>, tensor<2x16x4x16xbf16> -> tensor<2x16x4x16xbf16>, tensor<2x4x32x16xbf16>
  return
}

// -----

func.func @final_state_head_dim_k(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'final_state' dim 2 (head_dim_k) to be 32 to match 'query' dim 3 (head_dim_k), got 16}}
  %r0, %r1 = ejk.recurrent %q, %k, %v : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>, tensor<2x4x16x16xf32>
  return
}

// -----

func.func @config_name(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: chunk_size, block_k, block_v}}
  %r0 = ejk.recurrent %q, %k, %v {config = #ejk.config<chunk_size = 64, block_q = 16>} : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x16xf32> -> tensor<2x16x4x16xf32>
  return
}
