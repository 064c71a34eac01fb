// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @lhs_rank(%lhs: tensor<2x64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'lhs' to have rank 2 [rows, k], got rank 3}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<2x64x32xf32>, tensor<4x32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @dynamic(%lhs: tensor<?x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'lhs' to have a static shape, got 'tensor<?x32xf32>'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<?x32xf32>, tensor<4x32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @lhs_dtype(%lhs: tensor<64x32xi32>, %rhs: tensor<4x32x16xi32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'lhs' element type to be f32, f16 or bf16, got 'i32'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xi32>, tensor<4x32x16xi32>, tensor<4xi32> -> tensor<64x16xi32>
  return
}

// -----

func.func @rhs_rank(%lhs: tensor<64x32xf32>, %rhs: tensor<32x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs' to have rank 3 [local_groups, k, n], got rank 2}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @rhs_rank_transposed(%lhs: tensor<64x32xf32>, %rhs: tensor<16x32xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs' to have rank 3 [local_groups, n, k], got rank 2}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @rhs_dtype(%lhs: tensor<64x32xbf16>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs' element type to match 'lhs' ('bf16') or to be i8, got 'f32'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xbf16>, tensor<4x32x16xf32>, tensor<4xi32> -> tensor<64x16xbf16>
  return
}

// -----

func.func @rhs_int4(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xi4>, %sizes: tensor<4xi32>, %scales: tensor<4x16xf32>) {
  // expected-error @+1 {{expects 'rhs' element type to match 'lhs' ('f32') or to be i8, got 'i4'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x16xf32>) : tensor<64x32xf32>, tensor<4x32x16xi4>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @int8_without_scales(%lhs: tensor<64x32xbf16>, %rhs: tensor<4x32x16xi8>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs_scales' [local_groups, n] with an i8 'rhs' (the per-channel dequantization scales)}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xbf16>, tensor<4x32x16xi8>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @scales_with_float_rhs(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi32>, %scales: tensor<4x16xf32>) {
  // expected-error @+1 {{expects no 'rhs_scales' with a float 'rhs' ('f32'): scales dequantize i8 weights only}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x16xf32>) : tensor<64x32xf32>, tensor<4x32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

// A per-group scalar scale is not a form of its own: broadcast it to [G, n].
func.func @scales_rank(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xi8>, %sizes: tensor<4xi32>, %scales: tensor<4xf32>) {
  // expected-error @+1 {{expects 'rhs_scales' to have rank 2 [local_groups, n], got rank 1}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4xf32>) : tensor<64x32xf32>, tensor<4x32x16xi8>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @scales_dtype(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x16xi8>, %sizes: tensor<4xi32>, %scales: tensor<4x16xf16>) {
  // expected-error @+1 {{expects 'rhs_scales' element type to be 'f32', got 'f16'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x16xf16>) : tensor<64x32xf16>, tensor<4x32x16xi8>, tensor<4xi32> -> tensor<64x16xf16>
  return
}

// -----

func.func @scales_groups(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xi8>, %sizes: tensor<4xi32>, %scales: tensor<2x16xf32>) {
  // expected-error @+1 {{expects 'rhs_scales' dim 0 (local_groups) to be 4 to match 'rhs' dim 0 (local_groups), got 2}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<2x16xf32>) : tensor<64x32xf32>, tensor<4x32x16xi8>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @scales_n(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xi8>, %sizes: tensor<4xi32>, %scales: tensor<4x32xf32>) {
  // expected-error @+1 {{expects 'rhs_scales' dim 1 (n) to be 16 to match 'rhs' dim 2 (n), got 32}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x32xf32>) : tensor<64x32xf32>, tensor<4x32x16xi8>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

// With transpose_rhs the scales are still per n, rhs dim 1.
func.func @scales_n_transposed(%lhs: tensor<64x32xf32>, %rhs: tensor<4x16x32xi8>, %sizes: tensor<4xi32>, %scales: tensor<4x32xf32>) {
  // expected-error @+1 {{expects 'rhs_scales' dim 1 (n) to be 16 to match 'rhs' dim 1 (n), got 32}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x32xf32>) {transpose_rhs} : tensor<64x32xf32>, tensor<4x16x32xi8>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

// int8 lhs is not a quantized form: only the weights may be i8.
func.func @lhs_int8(%lhs: tensor<64x32xi8>, %rhs: tensor<4x32x16xi8>, %sizes: tensor<4xi32>, %scales: tensor<4x16xf32>) {
  // expected-error @+1 {{expects 'lhs' element type to be f32, f16 or bf16, got 'i8'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<4x16xf32>) : tensor<64x32xi8>, tensor<4x32x16xi8>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @rhs_k(%lhs: tensor<64x32xf32>, %rhs: tensor<4x16x32xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs' dim 1 (k) to be 32 to match 'lhs' dim 1 (k), got 16}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<4x16x32xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @rhs_k_transposed(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs' dim 2 (k) to be 32 to match 'lhs' dim 1 (k), got 16}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs} : tensor<64x32xf32>, tensor<4x32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @group_sizes_rank(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4x1xi32>) {
  // expected-error @+1 {{expects 'group_sizes' to have rank 1 [num_groups], got rank 2}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<4x32x16xf32>, tensor<4x1xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @group_sizes_dtype(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi64>) {
  // expected-error @+1 {{expects 'group_sizes' element type to be 'i32', got 'i64'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<4x32x16xf32>, tensor<4xi64> -> tensor<64x16xf32>
  return
}

// -----

func.func @group_sizes_count(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<8xi32>) {
  // expected-error @+1 {{expects 'rhs' dim 0 (local_groups) to be 8 to match 'group_sizes' dim 0 (num_groups), got 4}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<4x32x16xf32>, tensor<8xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @out_dtype(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x16xf16>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' element type to be f32 or to match 'lhs' ('f16'), got 'bf16'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf16>, tensor<4x32x16xf16>, tensor<4xi32> -> tensor<64x16xbf16>
  return
}

// -----

func.func @out_rows(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' dim 0 (rows) to be 64 to match 'lhs' dim 0 (rows), got 32}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<4x32x16xf32>, tensor<4xi32> -> tensor<32x16xf32>
  return
}

// -----

func.func @out_n(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' dim 1 (n) to be 16 to match 'rhs' dim 2 (n), got 32}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<4x32x16xf32>, tensor<4xi32> -> tensor<64x32xf32>
  return
}

// -----

func.func @out_n_transposed(%lhs: tensor<64x32xf32>, %rhs: tensor<4x48x32xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' dim 1 (n) to be 48 to match 'rhs' dim 1 (n), got 32}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs} : tensor<64x32xf32>, tensor<4x48x32xf32>, tensor<4xi32> -> tensor<64x32xf32>
  return
}

// -----

func.func @config_name(%lhs: tensor<64x32xf32>, %rhs: tensor<4x32x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{does not accept config entry 'block_q', expected one of: block_m, block_n, block_k, num_subgroups}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 64, block_q = 64>} : tensor<64x32xf32>, tensor<4x32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @offset_type(%lhs: tensor<64x32xf32>, %rhs: tensor<2x32x16xf32>, %sizes: tensor<4xi32>, %off: tensor<1xi64>) {
  // expected-error @+1 {{expects 'group_offset' element type to be 'i32', got 'i64'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%off : tensor<1xi64>) : tensor<64x32xf32>, tensor<2x32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @offset_shape(%lhs: tensor<64x32xf32>, %rhs: tensor<2x32x16xf32>, %sizes: tensor<4xi32>, %off: tensor<2xi32>) {
  // expected-error @+1 {{expects 'group_offset' dim 0 (one) to be 1 (a single group index), got 2}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%off : tensor<2xi32>) : tensor<64x32xf32>, tensor<2x32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @too_many_local_groups(%lhs: tensor<64x32xf32>, %rhs: tensor<5x32x16xf32>, %sizes: tensor<4xi32>, %off: tensor<1xi32>) {
  // expected-error @+1 {{expects 'rhs' dim 0 (local_groups) to be at most 'group_sizes' dim 0 (num_groups, 4), got 5}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%off : tensor<1xi32>) : tensor<64x32xf32>, tensor<5x32x16xf32>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @existing_out_type(%lhs: tensor<64x32xf16>, %rhs: tensor<4x32x16xf16>, %sizes: tensor<4xi32>, %acc: tensor<64x16xf16>) {
  // expected-error @+1 {{expects 'existing_out' to have the result's type 'tensor<64x16xf32>', got 'tensor<64x16xf16>'}}
  %r0 = ejk.grouped_matmul %lhs, %rhs, %sizes existing_out(%acc : tensor<64x16xf16>) : tensor<64x32xf16>, tensor<4x32x16xf16>, tensor<4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @tgmm_rhs_rows(%lhs: tensor<64x32xf32>, %rhs: tensor<60x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs' dim 0 (rows) to be 64 to match 'lhs' dim 0 (rows), got 60}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<60x16xf32>, tensor<4xi32> -> tensor<4x32x16xf32>
  return
}

// -----

func.func @tgmm_rhs_dtype(%lhs: tensor<64x32xf16>, %rhs: tensor<64x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs' element type to match 'lhs' ('f16'), got 'f32'}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf16>, tensor<64x16xf32>, tensor<4xi32> -> tensor<4x32x16xf32>
  return
}

// -----

func.func @tgmm_out_rank(%lhs: tensor<64x32xf32>, %rhs: tensor<64x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' to have rank 3 [local_groups, k, n], got rank 2}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<64x16xf32>, tensor<4xi32> -> tensor<32x16xf32>
  return
}

// -----

func.func @tgmm_out_k(%lhs: tensor<64x32xf32>, %rhs: tensor<64x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' dim 1 (k) to be 32 to match 'lhs' dim 1 (k), got 16}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<64x16xf32>, tensor<4xi32> -> tensor<4x16x16xf32>
  return
}

// -----

func.func @tgmm_out_n(%lhs: tensor<64x32xf32>, %rhs: tensor<64x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' dim 2 (n) to be 16 to match 'rhs' dim 1 (n), got 8}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<64x16xf32>, tensor<4xi32> -> tensor<4x32x8xf32>
  return
}

// -----

func.func @tgmm_out_dtype(%lhs: tensor<64x32xbf16>, %rhs: tensor<64x16xbf16>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' element type to be f32 or to match 'lhs' ('bf16'), got 'f16'}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xbf16>, tensor<64x16xbf16>, tensor<4xi32> -> tensor<4x32x16xf16>
  return
}

// -----

func.func @tgmm_groups(%lhs: tensor<64x32xf32>, %rhs: tensor<64x16xf32>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'out' dim 0 (local_groups) to be 4 to match 'group_sizes' dim 0 (num_groups), got 3}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<64x16xf32>, tensor<4xi32> -> tensor<3x32x16xf32>
  return
}

// -----

func.func @tgmm_lhs_dtype(%lhs: tensor<64x32xi8>, %rhs: tensor<64x16xi8>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'lhs' element type to be f32, f16 or bf16, got 'i8'}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xi8>, tensor<64x16xi8>, tensor<4xi32> -> tensor<4x32x16xf32>
  return
}

// -----

func.func @tgmm_existing_out(%lhs: tensor<64x32xf32>, %rhs: tensor<64x16xf32>, %sizes: tensor<4xi32>, %acc: tensor<4x16x32xf32>) {
  // expected-error @+1 {{expects 'existing_out' to have the result's type 'tensor<4x32x16xf32>', got 'tensor<4x16x32xf32>'}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes existing_out(%acc : tensor<4x16x32xf32>) : tensor<64x32xf32>, tensor<64x16xf32>, tensor<4xi32> -> tensor<4x32x16xf32>
  return
}

// -----

// The weight gradient has no quantized form: its rhs is d_out.
func.func @transposed_int8(%lhs: tensor<64x32xf32>, %rhs: tensor<64x16xi8>, %sizes: tensor<4xi32>) {
  // expected-error @+1 {{expects 'rhs' element type to match 'lhs' ('f32'), got 'i8'}}
  %r0 = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : tensor<64x32xf32>, tensor<64x16xi8>, tensor<4xi32> -> tensor<4x32x16xf32>
  return
}
