// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @queries_rank(%q: tensor<1x64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'queries' to have rank 3 [num_tokens, num_heads, head_dim], got rank 4}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<1x64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @dynamic(%q: tensor<64x8x64xbf16>, %kp: tensor<?x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'key_pages' to have a static shape, got 'tensor<?x16x4x64xbf16>'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<?x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @queries_dtype(%q: tensor<64x8x64xi32>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'queries' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xi32>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xi32>
  return
}

// -----

func.func @value_pages_rank(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<512x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'value_pages' to have rank 4 [num_pages, page_size, num_kv_heads, head_dim], got rank 3}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<512x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @key_pages_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xi16>, %vp: tensor<32x16x4x64xi16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'key_pages' element type to be f32, f16, bf16 or i8, got 'i16'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xi16>, tensor<32x16x4x64xi16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @value_pages_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'value_pages' element type to match 'key_pages' ('bf16'), got 'f16'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @value_pages_num_pages(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<16x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'value_pages' dim 0 (num_pages) to be 32 to match 'key_pages' dim 0 (num_pages), got 16}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<16x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @head_dim(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x32xbf16>, %vp: tensor<32x16x4x32xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'key_pages' dim 3 (head_dim) to be 64 to match 'queries' dim 2 (head_dim), got 32}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x32xbf16>, tensor<32x16x4x32xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @gqa(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x16x64xbf16>, %vp: tensor<32x16x16x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'key_pages' dim 2 (num_kv_heads) to divide 'queries' dim 1 (num_heads), got 16 and 8}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x16x64xbf16>, tensor<32x16x16x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @kv_lens_rank(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4x1xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'kv_lens' to have rank 1 [num_seqs], got rank 2}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4x1xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @kv_lens_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi64>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'kv_lens' element type to be 'i32', got 'i64'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi64>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @page_indices_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xindex>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'page_indices' element type to be 'i32', got 'index'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xindex>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @page_indices_seqs(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<5x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'page_indices' dim 0 (num_seqs) to be 4 to match 'kv_lens' dim 0 (num_seqs), got 5}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<5x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @cu_q_lens_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi64>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'cu_q_lens' element type to be 'i32', got 'i64'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi64>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @cu_q_lens_len(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<4xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'cu_q_lens' dim 0 (num_seqs + 1) to be 5 (1 + 'kv_lens' dim 0 (num_seqs)), got 4}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<4xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @num_seqs_rank(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<i32>) {
  // expected-error @+1 {{expects 'num_seqs' to have rank 1 [count], got rank 0}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<i32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @num_seqs_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi64>) {
  // expected-error @+1 {{expects 'num_seqs' element type to be 'i32', got 'i64'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi64> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @num_seqs_len(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<4xi32>) {
  // expected-error @+1 {{expects 'num_seqs' dim 0 (count) to be 1 (a single count), got 4}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<4xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @scale(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'softmax_scale' to be positive and finite, got -2}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n {softmax_scale = -2.0 : f32} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @soft_cap(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'logits_soft_cap' to be positive and finite, got 0}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n {logits_soft_cap = 0.0 : f32} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @sliding_window(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'sliding_window' to be at least 1, got 0}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n {sliding_window = 0 : i64} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @output_tokens(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'output' dim 0 (num_tokens) to be 64 to match 'queries' dim 0 (num_tokens), got 4}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<4x8x64xbf16>
  return
}

// -----

func.func @output_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'output' element type to match 'queries' ('bf16'), got 'f32'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xf32>
  return
}

// -----

func.func @config_name(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{does not accept config entry 'num_splits', expected one of: block_q, block_k, num_subgroups}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n {config = #ejk.config<num_splits = 4>} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @kv_layout(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'kv_layout' to be "head_major" or "token_major", got "bshd"}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n {kv_layout = "bshd"} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @head_major_heads(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'key_pages' dim 1 (num_kv_heads) to divide 'queries' dim 1 (num_heads), got 16 and 8}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n {kv_layout = "head_major"} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @new_keys_rank(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<64x4x64x1xbf16>, %v: tensor<64x4x64xbf16>) {
  // expected-error @+1 {{expects 'new_keys' to have rank 3 [num_tokens, num_kv_heads, head_dim], got rank 4}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<64x4x64x1xbf16>, tensor<64x4x64xbf16>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>
  return
}

// -----

func.func @new_keys_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<64x4x64xi8>, %v: tensor<64x4x64xi8>) {
  // expected-error @+1 {{expects 'new_keys' element type to be f32, f16 or bf16, got 'i8'}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<64x4x64xi8>, tensor<64x4x64xi8>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>
  return
}

// -----

func.func @new_keys_tokens(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<32x4x64xbf16>, %v: tensor<32x4x64xbf16>) {
  // expected-error @+1 {{expects 'new_keys' dim 0 (num_tokens) to be 64 to match 'queries' dim 0 (num_tokens), got 32}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<32x4x64xbf16>, tensor<32x4x64xbf16>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>
  return
}

// -----

func.func @new_keys_heads(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<64x2x64xbf16>, %v: tensor<64x2x64xbf16>) {
  // expected-error @+1 {{expects 'new_keys' dim 1 (num_kv_heads) to be 4 to match 'key_pages' dim 2 (num_kv_heads), got 2}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<64x2x64xbf16>, tensor<64x2x64xbf16>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>
  return
}

// -----

func.func @new_keys_dim(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<64x4x32xbf16>, %v: tensor<64x4x32xbf16>) {
  // expected-error @+1 {{expects 'new_keys' dim 2 (head_dim) to be 64 to match 'queries' dim 2 (head_dim), got 32}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<64x4x32xbf16>, tensor<64x4x32xbf16>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>
  return
}

// -----

func.func @new_values_shape(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<64x4x64xbf16>, %v: tensor<64x4x32xbf16>) {
  // expected-error @+1 {{expects 'new_values' dim 2 (head_dim) to be 64 to match 'new_keys' dim 2 (head_dim), got 32}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<64x4x64xbf16>, tensor<64x4x32xbf16>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>
  return
}

// -----

func.func @new_kv_no_results(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<64x4x64xbf16>, %v: tensor<64x4x64xbf16>) {
  // expected-error @+1 {{expects the results 'updated_key_pages' and 'updated_value_pages' with 'new_kv'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<64x4x64xbf16>, tensor<64x4x64xbf16>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @updated_shape(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<64x4x64xbf16>, %v: tensor<64x4x64xbf16>) {
  // expected-error @+1 {{expects 'updated_value_pages' dim 0 (num_pages) to be 32 to match 'value_pages' dim 0 (num_pages), got 16}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<64x4x64xbf16>, tensor<64x4x64xbf16>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<16x16x4x64xbf16>
  return
}

// -----

func.func @updated_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %k: tensor<64x4x64xbf16>, %v: tensor<64x4x64xbf16>) {
  // expected-error @+1 {{expects 'updated_key_pages' element type to match 'key_pages' ('bf16'), got 'f16'}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n new_kv(%k, %v : tensor<64x4x64xbf16>, tensor<64x4x64xbf16>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xf16>, tensor<32x16x4x64xbf16>
  return
}

// -----

func.func @results_without_new_kv(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'new_kv' operands for the results 'updated_key_pages' and 'updated_value_pages'}}
  %o:3 = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>
  return
}

// -----

func.func @sinks_shape(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{expects 'softmax_aux' dim 0 (num_heads) to be 8 to match 'queries' dim 1 (num_heads), got 4}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n sinks(%s : tensor<4xf32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @sinks_dtype(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>, %s: tensor<8xi32>) {
  // expected-error @+1 {{expects 'softmax_aux' element type to be f32, f16 or bf16, got 'i32'}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n sinks(%s : tensor<8xi32>) : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @k_scale(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'k_scale' to be positive and finite, got -1}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n {k_scale = -1.0 : f32} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}

// -----

func.func @v_scale(%q: tensor<64x8x64xbf16>, %kp: tensor<32x16x4x64xbf16>, %vp: tensor<32x16x4x64xbf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu: tensor<5xi32>, %n: tensor<1xi32>) {
  // expected-error @+1 {{expects 'v_scale' to be positive and finite, got 0}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu, %n {v_scale = 0.0 : f32} : tensor<64x8x64xbf16>, tensor<32x16x4x64xbf16>, tensor<32x16x4x64xbf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x8x64xbf16>
  return
}
