// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<2x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq_q, num_heads, head_dim], got rank 3}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @dynamic(%q: tensor<2x?x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'query' to have a static shape, got 'tensor<2x?x8x64xf32>'}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x?x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<2x8x8x64xi32>, %k: tensor<2x16x8x64xi32>, %v: tensor<2x16x8x64xi32>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x64xi32>, tensor<2x16x8x64xi32>, tensor<2x16x8x64xi32> -> tensor<2x8x8x64xi32>
  return
}

// -----

func.func @key_dtype(%q: tensor<2x8x8x64xf16>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf16>) {
  // expected-error @+1 {{expects 'key' element type to match 'query' ('f16'), got 'f32'}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x64xf16>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf16> -> tensor<2x8x8x64xf16>
  return
}

// -----

func.func @key_batch(%q: tensor<2x8x8x64xf32>, %k: tensor<3x16x8x64xf32>, %v: tensor<3x16x8x64xf32>) {
  // expected-error @+1 {{expects 'key' dim 0 (batch) to be 2 to match 'query' dim 0 (batch), got 3}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x64xf32>, tensor<3x16x8x64xf32>, tensor<3x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @key_head_dim(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x32xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'key' dim 3 (head_dim) to be 64 to match 'query' dim 3 (head_dim), got 32}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x64xf32>, tensor<2x16x8x32xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @value_seq(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x17x8x64xf32>) {
  // expected-error @+1 {{expects 'value' dim 1 (seq_k) to be 16 to match 'key' dim 1 (seq_k), got 17}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x17x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @gqa(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x3x64xf32>, %v: tensor<2x16x3x64xf32>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 3 and 8}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x64xf32>, tensor<2x16x3x64xf32>, tensor<2x16x3x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @bias_heads(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %b: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{expects 'bias' dim 1 (num_heads) to be 1 or 8 to match 'query' dim 2 (num_heads), got 4}}
  %o = ejk.flash_attention %q, %k, %v bias(%b : tensor<2x4x8x16xf32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @bias_seq_k(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %b: tensor<1x1x8x15xf32>) {
  // expected-error @+1 {{expects 'bias' dim 3 (seq_k) to be 16 to match 'key' dim 1 (seq_k), got 15}}
  %o = ejk.flash_attention %q, %k, %v bias(%b : tensor<1x1x8x15xf32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @bias_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %b: tensor<1x1x8x16xi8>) {
  // expected-error @+1 {{expects 'bias' element type to be f32, f16 or bf16, got 'i8'}}
  %o = ejk.flash_attention %q, %k, %v bias(%b : tensor<1x1x8x16xi8>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @mask_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %m: tensor<1x1x8x16xf32>) {
  // expected-error @+1 {{expects 'mask' element type to be 'i1', got 'f32'}}
  %o = ejk.flash_attention %q, %k, %v mask(%m : tensor<1x1x8x16xf32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @one_segment(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %s: tensor<2x8xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' and 'kv_segment_ids' to be given together}}
  %o = ejk.flash_attention %q, %k, %v q_segment_ids(%s : tensor<2x8xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @segment_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %qs: tensor<2x8xi64>, %ks: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' element type to be 'i32', got 'i64'}}
  %o = ejk.flash_attention %q, %k, %v q_segment_ids(%qs : tensor<2x8xi64>) kv_segment_ids(%ks : tensor<2x16xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @segment_len(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %qs: tensor<2x8xi32>, %ks: tensor<2x8xi32>) {
  // expected-error @+1 {{expects 'kv_segment_ids' dim 1 (seq_k) to be 16 to match 'key' dim 1 (seq_k), got 8}}
  %o = ejk.flash_attention %q, %k, %v q_segment_ids(%qs : tensor<2x8xi32>) kv_segment_ids(%ks : tensor<2x8xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @scale(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -1}}
  %o = ejk.flash_attention %q, %k, %v {softmax_scale = -1.0 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @soft_cap(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got 0}}
  %o = ejk.flash_attention %q, %k, %v {logits_soft_cap = 0.0 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

// Non-finite values are spelled the same on every host.
func.func @scale_neg_inf(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -inf}}
  %o = ejk.flash_attention %q, %k, %v {softmax_scale = 0xFF800000 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

// A NaN prints without its sign.
func.func @soft_cap_neg_nan(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got nan}}
  %o = ejk.flash_attention %q, %k, %v {logits_soft_cap = 0xFFC00000 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

// Finite values print as C's %g: a signed zero keeps its sign...
func.func @scale_neg_zero(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -0}}
  %o = ejk.flash_attention %q, %k, %v {softmax_scale = -0.0 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

// ... and small magnitudes use the exponent form.
func.func @scale_tiny(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -2.5e-08}}
  %o = ejk.flash_attention %q, %k, %v {softmax_scale = -2.5e-08 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @window_size(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'sliding_window' to have 2 elements [left, right] or 1 [size], got 3}}
  %o = ejk.flash_attention %q, %k, %v {sliding_window = array<i64: 4, 4, 4>} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @mask_alignment(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'mask_alignment' to be "top_left" or "bottom_right", got "bottom_left"}}
  %o = ejk.flash_attention %q, %k, %v {causal, mask_alignment = "bottom_left"} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @window_negative(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'sliding_window' sizes to be non-negative, got [4, -1]}}
  %o = ejk.flash_attention %q, %k, %v {sliding_window = array<i64: 4, -1>} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @dropout_range(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'dropout_prob' to be in [0, 1), got 1}}
  %o = ejk.flash_attention %q, %k, %v {dropout_prob = 1.0 : f32, dropout_seed = 1 : i64} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @dropout_no_seed(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'dropout_seed' when 'dropout_prob' is set}}
  %o = ejk.flash_attention %q, %k, %v {dropout_prob = 0.5 : f32} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @seed_no_dropout(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'dropout_seed' only with 'dropout_prob'}}
  %o = ejk.flash_attention %q, %k, %v {dropout_seed = 3 : i64} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<2x8x8x64xf16>, %k: tensor<2x16x8x64xf16>, %v: tensor<2x16x8x64xf16>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f16'), got 'f32'}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x64xf16>, tensor<2x16x8x64xf16>, tensor<2x16x8x64xf16> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @output_head_dim_v(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x32xf32>) {
  // expected-error @+1 {{expects 'output' dim 3 (head_dim_v) to be 32 to match 'value' dim 3 (head_dim_v), got 64}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x32xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @lse_layout(%q: tensor<2x8x4x64xf32>, %k: tensor<2x16x4x64xf32>, %v: tensor<2x16x4x64xf32>) {
  // expected-error @+1 {{expects 'lse' dim 1 (num_heads) to be 4 to match 'query' dim 2 (num_heads), got 8}}
  %o, %l = ejk.flash_attention %q, %k, %v : tensor<2x8x4x64xf32>, tensor<2x16x4x64xf32>, tensor<2x16x4x64xf32> -> tensor<2x8x4x64xf32>, tensor<2x8x4xf32>
  return
}

// -----

func.func @lse_dtype(%q: tensor<2x8x4x64xf16>, %k: tensor<2x16x4x64xf16>, %v: tensor<2x16x4x64xf16>) {
  // expected-error @+1 {{expects 'lse' element type to be 'f32', got 'f16'}}
  %o, %l = ejk.flash_attention %q, %k, %v : tensor<2x8x4x64xf16>, tensor<2x16x4x64xf16>, tensor<2x16x4x64xf16> -> tensor<2x8x4x64xf16>, tensor<2x4x8xf16>
  return
}

// -----

func.func @config_name(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{does not accept config entry 'chunk_size', expected one of: block_q, block_k, num_subgroups}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 16, chunk_size = 4>} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @config_value(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{#ejk.config entry 'block_q' must be positive, got 0}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 0>} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @config_duplicate(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{duplicate #ejk.config entry 'block_q'}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 16, block_q = 32>} : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @zero_head_dim(%q: tensor<2x8x8x0xf32>, %k: tensor<2x16x8x0xf32>, %v: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{expects 'query' dim 3 (head_dim) to be at least 1 (with no head dim every key scores the same), got 0}}
  %o = ejk.flash_attention %q, %k, %v : tensor<2x8x8x0xf32>, tensor<2x16x8x0xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @misspelled_option(%q: tensor<2x8x8x64xf32>) {
  // expected-error @+1 {{'ejk.flash_attention' op has no attribute 'scale'; it takes: }}
  %o = ejk.flash_attention %q, %q, %q {scale = 0x7FC00000 : f32} : tensor<2x8x8x64xf32>, tensor<2x8x8x64xf32>, tensor<2x8x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @sinks_rank(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %s: tensor<1x8x2xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' to be [num_heads, num_sinks] or [num_sinks], got rank 3}}
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<1x8x2xf32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @sinks_heads(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>, %s: tensor<2x4xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' dim 0 (num_heads) to be 8 to match 'query' dim 2 (num_heads), got 2}}
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<2x4xf32>) : tensor<2x8x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @sinks_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %s: tensor<4xi32>) {
  // expected-error @+1 {{expects 'softmax_aux' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<4xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @padding_rank(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %p: tensor<2x1x16xi1>) {
  // expected-error @+1 {{expects 'padding_mask' to have rank 2 [batch, seq], got rank 3}}
  %o = ejk.flash_attention %q, %k, %v padding_mask(%p : tensor<2x1x16xi1>) : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @padding_dtype(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %p: tensor<2x16xi32>) {
  // expected-error @+1 {{expects 'padding_mask' element type to be 'i1', got 'i32'}}
  %o = ejk.flash_attention %q, %k, %v padding_mask(%p : tensor<2x16xi32>) : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @padding_batch(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %p: tensor<1x16xi1>) {
  // expected-error @+1 {{expects 'padding_mask' dim 0 (batch) to be 2 to match 'query' dim 0 (batch), got 1}}
  %o = ejk.flash_attention %q, %k, %v padding_mask(%p : tensor<1x16xi1>) : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @padding_cross(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %p: tensor<2x8xi1>) {
  // expected-error @+1 {{expects 'padding_mask' only when seq_q equals seq_k (it masks queries and keys alike), got seq_q = 8 and seq_k = 16}}
  %o = ejk.flash_attention %q, %k, %v padding_mask(%p : tensor<2x8xi1>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @padding_seq(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %p: tensor<2x8xi1>) {
  // expected-error @+1 {{expects 'padding_mask' dim 1 (seq) to be 16 to match 'query' dim 1 (seq_q), got 8}}
  %o = ejk.flash_attention %q, %k, %v padding_mask(%p : tensor<2x8xi1>) : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x16x8x64xf32>
  return
}

// -----

func.func @cum_seqlens_rank(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %c: tensor<1x3xi32>) {
  // expected-error @+1 {{expects 'cum_seqlens_q' to have rank 1 [batch_plus_one], got rank 2}}
  %o = ejk.flash_attention %q, %k, %v cum_seqlens_q(%c : tensor<1x3xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @cum_seqlens_dtype(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %c: tensor<3xi64>) {
  // expected-error @+1 {{expects 'cum_seqlens_k' element type to be 'i32', got 'i64'}}
  %o = ejk.flash_attention %q, %k, %v cum_seqlens_k(%c : tensor<3xi64>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}

// -----

func.func @cum_seqlens_batch(%q: tensor<2x8x8x64xf32>, %k: tensor<2x16x8x64xf32>, %v: tensor<2x16x8x64xf32>, %c: tensor<2xi32>) {
  // expected-error @+1 {{expects 'cum_seqlens_k' dim 0 (batch_plus_one) to be 3 (batch + 1), got 2}}
  %o = ejk.flash_attention %q, %k, %v cum_seqlens_k(%c : tensor<2xi32>) : tensor<2x8x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32> -> tensor<2x8x8x64xf32>
  return
}
