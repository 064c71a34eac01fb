// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @q_latent_rank(%ql: tensor<2x4x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'q_latent' to have rank 4 [batch, seq_q, num_heads, latent_dim], got rank 3}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @kv_latent_rank(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x1x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'kv_latent' to have rank 3 [batch, seq_k, latent_dim], got rank 4}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x1x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @k_rope_rank(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x1x8xf16>) {
  // expected-error @+1 {{expects 'k_rope' to have rank 3 [batch, seq_k, rope_dim], got rank 4}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x1x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @dynamic(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x?x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'q_rope' to have a static shape, got 'tensor<2x4x?x8xf16>'}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x?x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @q_latent_dtype(%ql: tensor<2x4x16x32xi16>, %qr: tensor<2x4x16x8xi16>, %ckv: tensor<2x64x32xi16>, %kr: tensor<2x64x8xi16>) {
  // expected-error @+1 {{expects 'q_latent' element type to be f32, f16 or bf16, got 'i16'}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xi16>, tensor<2x4x16x8xi16>, tensor<2x64x32xi16>, tensor<2x64x8xi16> -> tensor<2x4x16x32xi16>
  return
}

// -----

func.func @q_rope_dtype(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf32>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'q_rope' element type to match 'q_latent' ('f16'), got 'f32'}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf32>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @kv_latent_dtype(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xbf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'kv_latent' element type to match 'q_latent' ('f16'), got 'bf16'}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xbf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @k_rope_dtype(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf32>) {
  // expected-error @+1 {{expects 'k_rope' element type to match 'q_latent' ('f16'), got 'f32'}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf32> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @q_rope_heads(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x1x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'q_rope' dim 2 (num_heads) to be 16 to match 'q_latent' dim 2 (num_heads), got 1}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x1x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @kv_latent_batch(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<1x64x32xf16>, %kr: tensor<1x64x8xf16>) {
  // expected-error @+1 {{expects 'kv_latent' dim 0 (batch) to be 2 to match 'q_latent' dim 0 (batch), got 1}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<1x64x32xf16>, tensor<1x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @kv_latent_dim(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x16xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'kv_latent' dim 2 (latent_dim) to be 32 to match 'q_latent' dim 3 (latent_dim), got 16}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x16xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @k_rope_seq(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x63x8xf16>) {
  // expected-error @+1 {{expects 'k_rope' dim 1 (seq_k) to be 64 to match 'kv_latent' dim 1 (seq_k), got 63}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x63x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @k_rope_dim(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x16xf16>) {
  // expected-error @+1 {{expects 'k_rope' dim 2 (rope_dim) to be 8 to match 'q_rope' dim 3 (rope_dim), got 16}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x16xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @scale(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -0.125}}
  %o = ejk.mla %ql, %qr, %ckv, %kr {softmax_scale = -0.125 : f32} : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @output_dim(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'output' dim 3 (latent_dim) to be 32 to match 'q_latent' dim 3 (latent_dim), got 8}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x8xf16>
  return
}

// -----

func.func @output_dtype(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'output' element type to match 'q_latent' ('f16'), got 'f32'}}
  %o = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf32>
  return
}

// -----

func.func @lse_layout(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'lse' dim 1 (num_heads) to be 16 to match 'q_latent' dim 2 (num_heads), got 4}}
  %o, %lse = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>, tensor<2x4x16xf32>
  return
}

// -----

func.func @lse_dtype(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'lse' element type to be 'f32', got 'f16'}}
  %o, %lse = ejk.mla %ql, %qr, %ckv, %kr : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>, tensor<2x16x4xf16>
  return
}

// -----

func.func @config_name(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: block_k, num_splits, block_h, head_lanes}}
  %o = ejk.mla %ql, %qr, %ckv, %kr {config = #ejk.config<block_q = 2>} : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}

// -----

func.func @qk_nope_head_dim(%ql: tensor<2x4x16x32xf16>, %qr: tensor<2x4x16x8xf16>, %ckv: tensor<2x64x32xf16>, %kr: tensor<2x64x8xf16>) {
  // expected-error @+1 {{expects 'qk_nope_head_dim' to be at least 1, got 0}}
  %o = ejk.mla %ql, %qr, %ckv, %kr {qk_nope_head_dim = 0} : tensor<2x4x16x32xf16>, tensor<2x4x16x8xf16>, tensor<2x64x32xf16>, tensor<2x64x8xf16> -> tensor<2x4x16x32xf16>
  return
}
