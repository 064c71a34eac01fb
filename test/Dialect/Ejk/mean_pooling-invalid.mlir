// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @dense_rank(%x: tensor<40x32xf32>) {
  // expected-error @+1 {{expects 'input' to have rank 3 [batch, seq, hidden] without 'cu_seqlens', got rank 2}}
  %r0 = ejk.mean_pooling %x : tensor<40x32xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @packed_rank(%x: tensor<4x10x32xf32>, %cu: tensor<5xi32>) {
  // expected-error @+1 {{expects 'input' to have rank 2 [total_tokens, hidden] with 'cu_seqlens', got rank 3}}
  %r0 = ejk.mean_pooling %x cu_seqlens(%cu : tensor<5xi32>) : tensor<4x10x32xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @dynamic(%x: tensor<?x32xf32>, %cu: tensor<5xi32>) {
  // expected-error @+1 {{expects 'input' to have a static shape, got 'tensor<?x32xf32>'}}
  %r0 = ejk.mean_pooling %x cu_seqlens(%cu : tensor<5xi32>) : tensor<?x32xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @input_dtype(%x: tensor<4x10x32xi32>) {
  // expected-error @+1 {{expects 'input' element type to be f32, f16 or bf16, got 'i32'}}
  %r0 = ejk.mean_pooling %x : tensor<4x10x32xi32> -> tensor<4x32xi32>
  return
}

// -----

func.func @cu_seqlens_rank(%x: tensor<40x32xf32>, %cu: tensor<5x1xi32>) {
  // expected-error @+1 {{expects 'cu_seqlens' to have rank 1 [batch_plus_one], got rank 2}}
  %r0 = ejk.mean_pooling %x cu_seqlens(%cu : tensor<5x1xi32>) : tensor<40x32xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @cu_seqlens_dtype(%x: tensor<40x32xf32>, %cu: tensor<5xi64>) {
  // expected-error @+1 {{expects 'cu_seqlens' element type to be 'i32', got 'i64'}}
  %r0 = ejk.mean_pooling %x cu_seqlens(%cu : tensor<5xi64>) : tensor<40x32xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @cu_seqlens_empty(%x: tensor<40x32xf32>, %cu: tensor<0xi32>) {
  // expected-error @+1 {{expects 'cu_seqlens' dim 0 (batch_plus_one) to be at least 1, got 0}}
  %r0 = ejk.mean_pooling %x cu_seqlens(%cu : tensor<0xi32>) : tensor<40x32xf32> -> tensor<0x32xf32>
  return
}

// -----

func.func @output_rank(%x: tensor<4x10x32xf32>) {
  // expected-error @+1 {{expects 'output' to have rank 2 [batch, hidden], got rank 3}}
  %r0 = ejk.mean_pooling %x : tensor<4x10x32xf32> -> tensor<4x1x32xf32>
  return
}

// -----

func.func @output_dtype(%x: tensor<4x10x32xbf16>) {
  // expected-error @+1 {{expects 'output' element type to match 'input' ('bf16'), got 'f32'}}
  %r0 = ejk.mean_pooling %x : tensor<4x10x32xbf16> -> tensor<4x32xf32>
  return
}

// -----

func.func @output_hidden(%x: tensor<4x10x32xf32>) {
  // expected-error @+1 {{expects 'output' dim 1 (hidden) to be 32 to match 'input' dim 2 (hidden), got 16}}
  %r0 = ejk.mean_pooling %x : tensor<4x10x32xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @output_hidden_packed(%x: tensor<40x32xf32>, %cu: tensor<5xi32>) {
  // expected-error @+1 {{expects 'output' dim 1 (hidden) to be 32 to match 'input' dim 1 (hidden), got 64}}
  %r0 = ejk.mean_pooling %x cu_seqlens(%cu : tensor<5xi32>) : tensor<40x32xf32> -> tensor<4x64xf32>
  return
}

// -----

func.func @output_batch(%x: tensor<4x10x32xf32>) {
  // expected-error @+1 {{expects 'output' dim 0 (batch) to be 4 to match 'input' dim 0 (batch), got 2}}
  %r0 = ejk.mean_pooling %x : tensor<4x10x32xf32> -> tensor<2x32xf32>
  return
}

// -----

func.func @output_batch_packed(%x: tensor<40x32xf32>, %cu: tensor<5xi32>) {
  // expected-error @+1 {{expects 'output' dim 0 (batch) to be 4 (one row per sequence: 'cu_seqlens' dim 0 (batch_plus_one) minus 1), got 5}}
  %r0 = ejk.mean_pooling %x cu_seqlens(%cu : tensor<5xi32>) : tensor<40x32xf32> -> tensor<5x32xf32>
  return
}

// -----

func.func @config_name(%x: tensor<4x10x32xf32>) {
  // expected-error @+1 {{does not accept config entry 'block_m', expected one of: block_d, block_s}}
  %r0 = ejk.mean_pooling %x {config = #ejk.config<block_m = 8>} : tensor<4x10x32xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @grad_dense_rank(%dy: tensor<4x32xf32>) {
  // expected-error @+1 {{expects 'grad_input' to have rank 3 [batch, seq, hidden] without 'cu_seqlens', got rank 2}}
  %r0 = ejk.mean_pooling_grad %dy : tensor<4x32xf32> -> tensor<40x32xf32>
  return
}

// -----

func.func @grad_packed_rank(%dy: tensor<4x32xf32>, %cu: tensor<5xi32>) {
  // expected-error @+1 {{expects 'grad_input' to have rank 2 [total_tokens, hidden] with 'cu_seqlens', got rank 3}}
  %r0 = ejk.mean_pooling_grad %dy cu_seqlens(%cu : tensor<5xi32>) : tensor<4x32xf32> -> tensor<4x10x32xf32>
  return
}

// -----

func.func @grad_dtype(%dy: tensor<4x32xi32>) {
  // expected-error @+1 {{expects 'grad_output' element type to be f32, f16 or bf16, got 'i32'}}
  %r0 = ejk.mean_pooling_grad %dy : tensor<4x32xi32> -> tensor<4x10x32xi32>
  return
}

// -----

func.func @grad_input_dtype(%dy: tensor<4x32xf16>) {
  // expected-error @+1 {{expects 'grad_input' element type to match 'grad_output' ('f16'), got 'f32'}}
  %r0 = ejk.mean_pooling_grad %dy : tensor<4x32xf16> -> tensor<4x10x32xf32>
  return
}

// -----

func.func @grad_rank(%dy: tensor<4x1x32xf32>) {
  // expected-error @+1 {{expects 'grad_output' to have rank 2 [batch, hidden], got rank 3}}
  %r0 = ejk.mean_pooling_grad %dy : tensor<4x1x32xf32> -> tensor<4x10x32xf32>
  return
}

// -----

func.func @grad_hidden(%dy: tensor<4x32xf32>) {
  // expected-error @+1 {{expects 'grad_output' dim 1 (hidden) to be 16 to match 'grad_input' dim 2 (hidden), got 32}}
  %r0 = ejk.mean_pooling_grad %dy : tensor<4x32xf32> -> tensor<4x10x16xf32>
  return
}

// -----

func.func @grad_batch(%dy: tensor<4x32xf32>) {
  // expected-error @+1 {{expects 'grad_output' dim 0 (batch) to be 3 to match 'grad_input' dim 0 (batch), got 4}}
  %r0 = ejk.mean_pooling_grad %dy : tensor<4x32xf32> -> tensor<3x10x32xf32>
  return
}

// -----

func.func @grad_packed_batch(%dy: tensor<4x32xf32>, %cu: tensor<4xi32>) {
  // expected-error @+1 {{expects 'grad_output' dim 0 (batch) to be 3 (one row per sequence: 'cu_seqlens' dim 0 (batch_plus_one) minus 1), got 4}}
  %r0 = ejk.mean_pooling_grad %dy cu_seqlens(%cu : tensor<4xi32>) : tensor<4x32xf32> -> tensor<40x32xf32>
  return
}

// -----

func.func @grad_config(%dy: tensor<4x32xf32>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: block_d, block_s}}
  %r0 = ejk.mean_pooling_grad %dy {config = #ejk.config<block_q = 4>} : tensor<4x32xf32> -> tensor<4x10x32xf32>
  return
}
