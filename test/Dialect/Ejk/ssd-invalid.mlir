// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @x_rank(%x: tensor<2x16x32xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'x' to have rank 4 [batch, seq, num_heads, head_dim], got rank 3}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x32xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @dynamic(%x: tensor<2x16x?x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'x' to have a static shape, got 'tensor<2x16x?x8xf32>'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x?x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @x_dtype(%x: tensor<2x16x4x8xf64>, %dt: tensor<2x16x4xf64>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf64>, %C: tensor<2x16x2x16xf64>) {
  // expected-error @+1 {{expects 'x' element type to be f32, f16 or bf16, got 'f64'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf64>, tensor<2x16x4xf64>, tensor<4xf32>, tensor<2x16x2x16xf64>, tensor<2x16x2x16xf64> -> tensor<2x16x4x8xf64>
  return
}

// -----

func.func @dt_rank(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4x1xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'dt' to have rank 3 [batch, seq, num_heads], got rank 4}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4x1xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @dt_dtype(%x: tensor<2x16x4x8xf16>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf16>, %C: tensor<2x16x2x16xf16>) {
  // expected-error @+1 {{expects 'dt' element type to match 'x' ('f16'), got 'f32'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf16>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf16>, tensor<2x16x2x16xf16> -> tensor<2x16x4x8xf16>
  return
}

// -----

func.func @dt_heads(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x2xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'dt' dim 2 (num_heads) to be 4 to match 'x' dim 2 (num_heads), got 2}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x2xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @A_rank(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4x16xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'A' to have rank 1 [num_heads], got rank 2}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4x16xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @A_dtype(%x: tensor<2x16x4x8xbf16>, %dt: tensor<2x16x4xbf16>, %A: tensor<4xbf16>, %B: tensor<2x16x2x16xbf16>, %C: tensor<2x16x2x16xbf16>) {
  // expected-error @+1 {{expects 'A' element type to be 'f32', got 'bf16'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xbf16>, tensor<2x16x4xbf16>, tensor<4xbf16>, tensor<2x16x2x16xbf16>, tensor<2x16x2x16xbf16> -> tensor<2x16x4x8xbf16>
  return
}

// -----

func.func @A_heads(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<2xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'A' dim 0 (num_heads) to be 4 to match 'x' dim 2 (num_heads), got 2}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<2xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @B_seq(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x32x2x16xf32>, %C: tensor<2x32x2x16xf32>) {
  // expected-error @+1 {{expects 'B' dim 1 (seq) to be 16 to match 'x' dim 1 (seq), got 32}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x32x2x16xf32>, tensor<2x32x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @B_dtype(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xbf16>, %C: tensor<2x16x2x16xbf16>) {
  // expected-error @+1 {{expects 'B' element type to match 'x' ('f32'), got 'bf16'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xbf16>, tensor<2x16x2x16xbf16> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @groups(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x3x16xf32>, %C: tensor<2x16x3x16xf32>) {
  // expected-error @+1 {{expects 'B' dim 2 (groups) to divide 'x' dim 2 (num_heads), got 3 and 4}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x3x16xf32>, tensor<2x16x3x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @C_dtype(%x: tensor<2x16x4x8xbf16>, %dt: tensor<2x16x4xbf16>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xbf16>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'C' element type to match 'B' ('bf16'), got 'f32'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xbf16>, tensor<2x16x4xbf16>, tensor<4xf32>, tensor<2x16x2x16xbf16>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xbf16>
  return
}

// -----

func.func @C_d_state(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x8xf32>) {
  // expected-error @+1 {{expects 'C' dim 3 (d_state) to be 16 to match 'B' dim 3 (d_state), got 8}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x8xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @D_dtype(%x: tensor<2x16x4x8xf16>, %dt: tensor<2x16x4xf16>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf16>, %C: tensor<2x16x2x16xf16>, %D: tensor<4xf16>) {
  // expected-error @+1 {{expects 'D' element type to be 'f32', got 'f16'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<4xf16>) : tensor<2x16x4x8xf16>, tensor<2x16x4xf16>, tensor<4xf32>, tensor<2x16x2x16xf16>, tensor<2x16x2x16xf16> -> tensor<2x16x4x8xf16>
  return
}

// -----

func.func @D_heads(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>, %D: tensor<8xf32>) {
  // expected-error @+1 {{expects 'D' dim 0 (num_heads) to be 4 to match 'x' dim 2 (num_heads), got 8}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<8xf32>) : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @z_dtype(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>, %z: tensor<2x16x4x8xf16>) {
  // expected-error @+1 {{expects 'z' element type to match 'x' ('f32'), got 'f16'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C z(%z : tensor<2x16x4x8xf16>) : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @z_head_dim(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>, %z: tensor<2x16x4x16xf32>) {
  // expected-error @+1 {{expects 'z' dim 3 (head_dim) to be 8 to match 'x' dim 3 (head_dim), got 16}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C z(%z : tensor<2x16x4x16xf32>) : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @dt_bias_dtype(%x: tensor<2x16x4x8xbf16>, %dt: tensor<2x16x4xbf16>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xbf16>, %C: tensor<2x16x2x16xbf16>, %bias: tensor<4xbf16>) {
  // expected-error @+1 {{expects 'dt_bias' element type to be 'f32', got 'bf16'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C dt_bias(%bias : tensor<4xbf16>) : tensor<2x16x4x8xbf16>, tensor<2x16x4xbf16>, tensor<4xf32>, tensor<2x16x2x16xbf16>, tensor<2x16x2x16xbf16> -> tensor<2x16x4x8xbf16>
  return
}

// -----

func.func @dt_bias_heads(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>, %bias: tensor<1xf32>) {
  // expected-error @+1 {{expects 'dt_bias' dim 0 (num_heads) to be 4 to match 'x' dim 2 (num_heads), got 1}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C dt_bias(%bias : tensor<1xf32>) : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @initial_state_rank(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>, %s0: tensor<2x4x8xf32>) {
  // expected-error @+1 {{expects 'initial_state' to have rank 4 [batch, num_heads, head_dim, d_state], got rank 3}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C initial_state(%s0 : tensor<2x4x8xf32>) : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @initial_state_dtype(%x: tensor<2x16x4x8xf16>, %dt: tensor<2x16x4xf16>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf16>, %C: tensor<2x16x2x16xf16>, %s0: tensor<2x4x8x16xf16>) {
  // expected-error @+1 {{expects 'initial_state' element type to be 'f32', got 'f16'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C initial_state(%s0 : tensor<2x4x8x16xf16>) : tensor<2x16x4x8xf16>, tensor<2x16x4xf16>, tensor<4xf32>, tensor<2x16x2x16xf16>, tensor<2x16x2x16xf16> -> tensor<2x16x4x8xf16>
  return
}

// -----

func.func @initial_state_head_dim(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>, %s0: tensor<2x4x16x16xf32>) {
  // expected-error @+1 {{expects 'initial_state' dim 2 (head_dim) to be 8 to match 'x' dim 3 (head_dim), got 16}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C initial_state(%s0 : tensor<2x4x16x16xf32>) : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @initial_state_d_state(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>, %s0: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{expects 'initial_state' dim 3 (d_state) to be 16 to match 'B' dim 3 (d_state), got 8}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C initial_state(%s0 : tensor<2x4x8x8xf32>) : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @chunk_size_zero(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'chunk_size' to be at least 1, got 0}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C {chunk_size = 0 : i64} : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @chunk_size_negative(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'chunk_size' to be at least 1, got -64}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C {chunk_size = -64 : i64} : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @y_dtype(%x: tensor<2x16x4x8xf16>, %dt: tensor<2x16x4xf16>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf16>, %C: tensor<2x16x2x16xf16>) {
  // expected-error @+1 {{expects 'y' element type to match 'x' ('f16'), got 'f32'}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf16>, tensor<2x16x4xf16>, tensor<4xf32>, tensor<2x16x2x16xf16>, tensor<2x16x2x16xf16> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @y_heads(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'y' dim 2 (num_heads) to be 4 to match 'x' dim 2 (num_heads), got 2}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x2x8xf32>
  return
}

// -----

func.func @final_state_dtype(%x: tensor<2x16x4x8xbf16>, %dt: tensor<2x16x4xbf16>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xbf16>, %C: tensor<2x16x2x16xbf16>) {
  // expected-error @+1 {{expects 'final_state' element type to be 'f32', got 'bf16'}}
  %r0, %r1 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xbf16>, tensor<2x16x4xbf16>, tensor<4xf32>, tensor<2x16x2x16xbf16>, tensor<2x16x2x16xbf16> -> tensor<2x16x4x8xbf16>, tensor<2x4x8x16xbf16>
  return
}

// -----

func.func @final_state_d_state(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{expects 'final_state' dim 3 (d_state) to be 16 to match 'B' dim 3 (d_state), got 4}}
  %r0, %r1 = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>, tensor<2x4x8x4xf32>
  return
}

// -----

func.func @config_name(%x: tensor<2x16x4x8xf32>, %dt: tensor<2x16x4xf32>, %A: tensor<4xf32>, %B: tensor<2x16x2x16xf32>, %C: tensor<2x16x2x16xf32>) {
  // expected-error @+1 {{does not accept config entry 'block_d', expected one of: chunk_size, block_p, block_n}}
  %r0 = ejk.ssd %x, %dt, %A, %B, %C {config = #ejk.config<block_d = 64>} : tensor<2x16x4x8xf32>, tensor<2x16x4xf32>, tensor<4xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32> -> tensor<2x16x4x8xf32>
  return
}

// -----

func.func @zero_state(%x: tensor<1x8x2x16xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x0xf32>) {
  // expected-error @+1 {{expects 'B' dim 3 (d_state) to be at least 1 (a scan needs a state), got 0}}
  %y = ejk.ssd %x, %dt, %A, %B, %B : tensor<1x8x2x16xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x0xf32>, tensor<1x8x1x0xf32> -> tensor<1x8x2x16xf32>
  return
}

// -----

func.func @no_steps_from_a_state(%x: tensor<1x0x2x16xf32>, %dt: tensor<1x0x2xf32>, %A: tensor<2xf32>, %B: tensor<1x0x1x8xf32>, %s: tensor<1x2x16x8xf32>) {
  // expected-error @+1 {{expects 'x' dim 1 (seq) to be at least 1 (a scan of no steps over an 'initial_state' would only copy it), got 0}}
  %y = ejk.ssd %x, %dt, %A, %B, %B initial_state(%s : tensor<1x2x16x8xf32>) : tensor<1x0x2x16xf32>, tensor<1x0x2xf32>, tensor<2xf32>, tensor<1x0x1x8xf32>, tensor<1x0x1x8xf32> -> tensor<1x0x2x16xf32>
  return
}
