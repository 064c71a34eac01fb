// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @u_rank(%u: tensor<2x16x8x1xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{expects 'u' to have rank 3 [batch, seq, channels], got rank 4}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8x1xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @dynamic(%u: tensor<?x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{expects 'u' to have a static shape, got 'tensor<?x16x8xf32>'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<?x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @u_dtype(%u: tensor<2x16x8xi8>, %delta: tensor<2x16x8xi8>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xi8>, %C: tensor<2x16x2x4xi8>) {
  // expected-error @+1 {{expects 'u' element type to be f32, f16 or bf16, got 'i8'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xi8>, tensor<2x16x8xi8>, tensor<8x4xf32>, tensor<2x16x2x4xi8>, tensor<2x16x2x4xi8> -> tensor<2x16x8xi8>
  return
}

// -----

func.func @delta_dtype(%u: tensor<2x16x8xbf16>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xbf16>, %C: tensor<2x16x2x4xbf16>) {
  // expected-error @+1 {{expects 'delta' element type to match 'u' ('bf16'), got 'f32'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xbf16>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xbf16>, tensor<2x16x2x4xbf16> -> tensor<2x16x8xbf16>
  return
}

// -----

func.func @delta_seq(%u: tensor<2x16x8xf32>, %delta: tensor<2x15x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{expects 'delta' dim 1 (seq) to be 16 to match 'u' dim 1 (seq), got 15}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x15x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @A_rank(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{expects 'A' to have rank 2 [channels, d_state], got rank 1}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @A_dtype(%u: tensor<2x16x8xf16>, %delta: tensor<2x16x8xf16>, %A: tensor<8x4xf16>, %B: tensor<2x16x2x4xf16>, %C: tensor<2x16x2x4xf16>) {
  // expected-error @+1 {{expects 'A' element type to be 'f32', got 'f16'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf16>, tensor<2x16x8xf16>, tensor<8x4xf16>, tensor<2x16x2x4xf16>, tensor<2x16x2x4xf16> -> tensor<2x16x8xf16>
  return
}

// -----

func.func @A_channels(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<4x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{expects 'A' dim 0 (channels) to be 8 to match 'u' dim 2 (channels), got 4}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<4x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @B_rank(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x4xf32>, %C: tensor<2x16x4xf32>) {
  // expected-error @+1 {{expects 'B' to have rank 4 [batch, seq, groups, d_state], got rank 3}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x4xf32>, tensor<2x16x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @B_dtype(%u: tensor<2x16x8xbf16>, %delta: tensor<2x16x8xbf16>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{expects 'B' element type to match 'u' ('bf16'), got 'f32'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xbf16>, tensor<2x16x8xbf16>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xbf16>
  return
}

// -----

func.func @B_batch(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<1x16x2x4xf32>, %C: tensor<1x16x2x4xf32>) {
  // expected-error @+1 {{expects 'B' dim 0 (batch) to be 2 to match 'u' dim 0 (batch), got 1}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<1x16x2x4xf32>, tensor<1x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @groups(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x3x4xf32>, %C: tensor<2x16x3x4xf32>) {
  // expected-error @+1 {{expects 'B' dim 2 (groups) to divide 'u' dim 2 (channels), got 3 and 8}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x3x4xf32>, tensor<2x16x3x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @C_dtype(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf16>) {
  // expected-error @+1 {{expects 'C' element type to match 'B' ('f32'), got 'f16'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf16> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @C_groups(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x1x4xf32>) {
  // expected-error @+1 {{expects 'C' dim 2 (groups) to be 2 to match 'B' dim 2 (groups), got 1}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x1x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @B_d_state(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x8xf32>, %C: tensor<2x16x2x8xf32>) {
  // expected-error @+1 {{expects 'B' dim 3 (d_state) to be 4 to match 'A' dim 1 (d_state), got 8}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x8xf32>, tensor<2x16x2x8xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @D_dtype(%u: tensor<2x16x8xf16>, %delta: tensor<2x16x8xf16>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf16>, %C: tensor<2x16x2x4xf16>, %D: tensor<8xf16>) {
  // expected-error @+1 {{expects 'D' element type to be 'f32', got 'f16'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<8xf16>) : tensor<2x16x8xf16>, tensor<2x16x8xf16>, tensor<8x4xf32>, tensor<2x16x2x4xf16>, tensor<2x16x2x4xf16> -> tensor<2x16x8xf16>
  return
}

// -----

func.func @D_channels(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>, %D: tensor<4xf32>) {
  // expected-error @+1 {{expects 'D' dim 0 (channels) to be 8 to match 'u' dim 2 (channels), got 4}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<4xf32>) : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @z_dtype(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>, %z: tensor<2x16x8xbf16>) {
  // expected-error @+1 {{expects 'z' element type to match 'u' ('f32'), got 'bf16'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C z(%z : tensor<2x16x8xbf16>) : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @z_channels(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>, %z: tensor<2x16x16xf32>) {
  // expected-error @+1 {{expects 'z' dim 2 (channels) to be 8 to match 'u' dim 2 (channels), got 16}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C z(%z : tensor<2x16x16xf32>) : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @delta_bias_rank(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>, %bias: tensor<1x8xf32>) {
  // expected-error @+1 {{expects 'delta_bias' to have rank 1 [channels], got rank 2}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C delta_bias(%bias : tensor<1x8xf32>) : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @delta_bias_channels(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>, %bias: tensor<1xf32>) {
  // expected-error @+1 {{expects 'delta_bias' dim 0 (channels) to be 8 to match 'u' dim 2 (channels), got 1}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C delta_bias(%bias : tensor<1xf32>) : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @initial_state_rank(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>, %h0: tensor<2x8x4x1xf32>) {
  // expected-error @+1 {{expects 'initial_state' to have rank 3 [batch, channels, d_state], got rank 4}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C initial_state(%h0 : tensor<2x8x4x1xf32>) : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @initial_state_dtype(%u: tensor<2x16x8xbf16>, %delta: tensor<2x16x8xbf16>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xbf16>, %C: tensor<2x16x2x4xbf16>, %h0: tensor<2x8x4xbf16>) {
  // expected-error @+1 {{expects 'initial_state' element type to be 'f32', got 'bf16'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C initial_state(%h0 : tensor<2x8x4xbf16>) : tensor<2x16x8xbf16>, tensor<2x16x8xbf16>, tensor<8x4xf32>, tensor<2x16x2x4xbf16>, tensor<2x16x2x4xbf16> -> tensor<2x16x8xbf16>
  return
}

// -----

func.func @initial_state_d_state(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>, %h0: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects 'initial_state' dim 2 (d_state) to be 4 to match 'A' dim 1 (d_state), got 8}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C initial_state(%h0 : tensor<2x8x8xf32>) : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @y_dtype(%u: tensor<2x16x8xbf16>, %delta: tensor<2x16x8xbf16>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xbf16>, %C: tensor<2x16x2x4xbf16>) {
  // expected-error @+1 {{expects 'y' element type to match 'u' ('bf16'), got 'f32'}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xbf16>, tensor<2x16x8xbf16>, tensor<8x4xf32>, tensor<2x16x2x4xbf16>, tensor<2x16x2x4xbf16> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @y_channels(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{expects 'y' dim 2 (channels) to be 8 to match 'u' dim 2 (channels), got 4}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x4xf32>
  return
}

// -----

func.func @final_state_batch(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{expects 'final_state' dim 0 (batch) to be 2 to match 'u' dim 0 (batch), got 1}}
  %r0, %r1 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>, tensor<1x8x4xf32>
  return
}

// -----

func.func @final_state_dtype(%u: tensor<2x16x8xf16>, %delta: tensor<2x16x8xf16>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf16>, %C: tensor<2x16x2x4xf16>) {
  // expected-error @+1 {{expects 'final_state' element type to be 'f32', got 'f16'}}
  %r0, %r1 = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xf16>, tensor<2x16x8xf16>, tensor<8x4xf32>, tensor<2x16x2x4xf16>, tensor<2x16x2x4xf16> -> tensor<2x16x8xf16>, tensor<2x8x4xf16>
  return
}

// -----

func.func @config_name(%u: tensor<2x16x8xf32>, %delta: tensor<2x16x8xf32>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xf32>, %C: tensor<2x16x2x4xf32>) {
  // expected-error @+1 {{does not accept config entry 'chunk_size', expected one of: block_d, chunk_l}}
  %r0 = ejk.selective_scan %u, %delta, %A, %B, %C {config = #ejk.config<block_d = 64, chunk_size = 16>} : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x2x4xf32>, tensor<2x16x2x4xf32> -> tensor<2x16x8xf32>
  return
}

// -----

func.func @zero_state(%u: tensor<1x8x32xf32>, %A: tensor<32x0xf32>, %B: tensor<1x8x1x0xf32>) {
  // expected-error @+1 {{expects 'A' dim 1 (d_state) to be at least 1 (a scan needs a state), got 0}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x0xf32>, tensor<1x8x1x0xf32>, tensor<1x8x1x0xf32> -> tensor<1x8x32xf32>
  return
}

// -----

func.func @no_steps_from_a_state(%u: tensor<1x0x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x0x1x16xf32>, %h: tensor<1x32x16xf32>) {
  // expected-error @+1 {{expects 'u' dim 1 (seq) to be at least 1 (a scan of no steps over an 'initial_state' would only copy it), got 0}}
  %y = ejk.selective_scan %u, %u, %A, %B, %B initial_state(%h : tensor<1x32x16xf32>) : tensor<1x0x32xf32>, tensor<1x0x32xf32>, tensor<32x16xf32>, tensor<1x0x1x16xf32>, tensor<1x0x1x16xf32> -> tensor<1x0x32xf32>
  return
}

// -----

func.func @misspelled_option(%u: tensor<1x8x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x8x1x16xf32>) {
  // expected-error @+1 {{'ejk.selective_scan' op has no attribute 'dt_softplus'; it takes: }}
  %y = ejk.selective_scan %u, %u, %A, %B, %B {dt_softplus} : tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<32x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x32xf32>
  return
}
