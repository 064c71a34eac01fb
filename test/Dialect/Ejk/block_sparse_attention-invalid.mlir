// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<2x10x8x64x1xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'query' to have rank 4 [batch, seq_q, num_heads, head_dim], got rank 5}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64x1xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @dynamic(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x?x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'value' to have a static shape, got 'tensor<2x20x?x64xf32>'}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x?x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @query_dtype(%q: tensor<2x10x8x64xf64>, %k: tensor<2x20x2x64xf64>, %v: tensor<2x20x2x64xf64>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'query' element type to be f32, f16 or bf16, got 'f64'}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf64>, tensor<2x20x2x64xf64>, tensor<2x20x2x64xf64>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf64>
  return
}

// -----

func.func @key_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xbf16>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'key' element type to match 'query' ('f32'), got 'bf16'}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xbf16>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @value_seq(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x16x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'value' dim 1 (seq_k) to be 20 to match 'key' dim 1 (seq_k), got 16}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x16x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @gqa(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x3x64xf32>, %v: tensor<2x20x3x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'key' dim 2 (num_kv_heads) to divide 'query' dim 2 (num_heads), got 3 and 8}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x3x64xf32>, tensor<2x20x3x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @no_q_block_size(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{requires attribute 'q_block_size'}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @q_block_size(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'q_block_size' to be at least 1, got 0}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 0 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @kv_block_size(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'kv_block_size' to be at least 1, got -8}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = -8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @block_mask_rank(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<3x3xi1>) {
  // expected-error @+1 {{expects 'block_mask' to have rank 4 [batch, num_heads, num_q_blocks, num_kv_blocks], got rank 2}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @block_mask_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi32>) {
  // expected-error @+1 {{expects 'block_mask' element type to be 'i1', got 'i32'}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @block_mask_heads(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x2x3x3xi1>) {
  // expected-error @+1 {{expects 'block_mask' dim 1 (num_heads) to be 1 or 8 to match 'query' dim 2 (num_heads), got 2}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x2x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @block_mask_q_blocks(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<1x1x2x3xi1>) {
  // expected-error @+1 {{expects 'block_mask' dim 2 (num_q_blocks) to be 3 (ceil(seq_q / q_block_size)), got 2}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<1x1x2x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @block_mask_kv_blocks(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<1x1x3x5xi1>) {
  // expected-error @+1 {{expects 'block_mask' dim 3 (num_kv_blocks) to be 3 (ceil(seq_k / kv_block_size)), got 5}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<1x1x3x5xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @one_segment(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>, %qs: tensor<2x10xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' and 'kv_segment_ids' to be given together}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm q_segment_ids(%qs : tensor<2x10xi32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @segment_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>, %qs: tensor<2x10xi1>, %ks: tensor<2x20xi32>) {
  // expected-error @+1 {{expects 'q_segment_ids' element type to be 'i32', got 'i1'}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm q_segment_ids(%qs : tensor<2x10xi1>) kv_segment_ids(%ks : tensor<2x20xi32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @segment_batch(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>, %qs: tensor<2x10xi32>, %ks: tensor<1x20xi32>) {
  // expected-error @+1 {{expects 'kv_segment_ids' dim 0 (batch) to be 2 to match 'key' dim 0 (batch), got 1}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm q_segment_ids(%qs : tensor<2x10xi32>) kv_segment_ids(%ks : tensor<1x20xi32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @scale(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got inf}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, softmax_scale = 0x7F800000 : f32} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @soft_cap(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got 0}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, logits_soft_cap = 0.0 : f32} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @output_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'output' element type to match 'query' ('f32'), got 'f16'}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf16>
  return
}

// -----

func.func @output_heads(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'output' dim 2 (num_heads) to be 8 to match 'query' dim 2 (num_heads), got 2}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x2x64xf32>
  return
}

// -----

func.func @lse_layout(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'lse' dim 1 (num_heads) to be 8 to match 'query' dim 2 (num_heads), got 10}}
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>, tensor<2x10x8xf32>
  return
}

// -----

func.func @lse_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{expects 'lse' element type to be 'f32', got 'bf16'}}
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>, tensor<2x8x10xbf16>
  return
}

// -----

func.func @config_name(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %bm: tensor<2x8x3x3xi1>) {
  // expected-error @+1 {{does not accept config entry 'block_d', expected one of: block_q, block_k, num_subgroups}}
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 4 : i64, kv_block_size = 8 : i64, config = #ejk.config<block_d = 64>} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32>, tensor<2x8x3x3xi1> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @causal_unit(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>) {
  // expected-error @+1 {{attribute 'causal' failed to satisfy constraint: bool attribute}}
  %o = ejk.block_sparse_attention %q, %k, %v {q_block_size = 4 : i64, kv_block_size = 8 : i64, causal} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @chunk_size(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>) {
  // expected-error @+1 {{expects 'chunk_size' to be at least 1, got 0}}
  %o = ejk.block_sparse_attention %q, %k, %v {q_block_size = 4 : i64, kv_block_size = 8 : i64, chunk_size = 0 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @window_size(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>) {
  // expected-error @+1 {{expects 'sliding_window' to have 2 elements [left, right] or 1 [size], got 3}}
  %o = ejk.block_sparse_attention %q, %k, %v {q_block_size = 4 : i64, kv_block_size = 8 : i64, sliding_window = array<i64: 1, 2, 3>} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @window_negative(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>) {
  // expected-error @+1 {{expects 'sliding_window' sizes to be non-negative, got [-1, 2]}}
  %o = ejk.block_sparse_attention %q, %k, %v {q_block_size = 4 : i64, kv_block_size = 8 : i64, sliding_window = array<i64: -1, 2>} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @alignment(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>) {
  // expected-error @+1 {{expects 'mask_alignment' to be "top_left" or "bottom_right", got "centre"}}
  %o = ejk.block_sparse_attention %q, %k, %v {q_block_size = 4 : i64, kv_block_size = 8 : i64, mask_alignment = "centre"} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @bias_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %b: tensor<2x8x10x20xi32>) {
  // expected-error @+1 {{expects 'bias' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.block_sparse_attention %q, %k, %v bias(%b : tensor<2x8x10x20xi32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @bias_keys(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %b: tensor<1x1x10x16xf32>) {
  // expected-error @+1 {{expects 'bias' dim 3 (seq_k) to be 20 to match 'key' dim 1 (seq_k), got 16}}
  %o = ejk.block_sparse_attention %q, %k, %v bias(%b : tensor<1x1x10x16xf32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @mask_dtype(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %m: tensor<2x8x10x20xf32>) {
  // expected-error @+1 {{expects 'mask' element type to be 'i1', got 'f32'}}
  %o = ejk.block_sparse_attention %q, %k, %v mask(%m : tensor<2x8x10x20xf32>) {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}

// -----

func.func @mask_heads(%q: tensor<2x10x8x64xf32>, %k: tensor<2x20x2x64xf32>, %v: tensor<2x20x2x64xf32>, %m: tensor<2x2x10x20xi1>) {
  // expected-error @+1 {{expects 'mask' dim 1 (num_heads) to be 1 or 8 to match 'query' dim 2 (num_heads), got 2}}
  %o = ejk.block_sparse_attention %q, %k, %v mask(%m : tensor<2x2x10x20xi1>) {q_block_size = 4 : i64, kv_block_size = 8 : i64} : tensor<2x10x8x64xf32>, tensor<2x20x2x64xf32>, tensor<2x20x2x64xf32> -> tensor<2x10x8x64xf32>
  return
}
