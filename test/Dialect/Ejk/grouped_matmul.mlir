// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[LHS:.*]]: tensor<100x64xf32>, %[[RHS:.*]]: tensor<4x64x32xf32>, %[[SIZES:.*]]: tensor<4xi32>)
// CHECK: %[[OUT:.*]] = ejk.grouped_matmul %[[LHS]], %[[RHS]], %[[SIZES]] : tensor<100x64xf32>, tensor<4x64x32xf32>, tensor<4xi32> -> tensor<100x32xf32>
// CHECK: return %[[OUT]]
func.func @plain(%lhs: tensor<100x64xf32>, %rhs: tensor<4x64x32xf32>, %sizes: tensor<4xi32>) -> tensor<100x32xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<100x64xf32>, tensor<4x64x32xf32>, tensor<4xi32> -> tensor<100x32xf32>
  return %out : tensor<100x32xf32>
}

// -----

// rhs stored [num_groups, n, k], with a config.
// CHECK-LABEL: func.func @transposed
// CHECK: ejk.grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} {config = #ejk.config<block_k = 64, block_m = 128, block_n = 128>, transpose_rhs} : tensor<4096x1024xbf16>, tensor<8x2816x1024xbf16>, tensor<8xi32> -> tensor<4096x2816xbf16>
func.func @transposed(%lhs: tensor<4096x1024xbf16>, %rhs: tensor<8x2816x1024xbf16>, %sizes: tensor<8xi32>) -> tensor<4096x2816xbf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs, config = #ejk.config<block_m = 128, block_n = 128, block_k = 64>}
      : tensor<4096x1024xbf16>, tensor<8x2816x1024xbf16>, tensor<8xi32> -> tensor<4096x2816xbf16>
  return %out : tensor<4096x2816xbf16>
}

// -----

// A single group (a plain matmul), f16.
// CHECK-LABEL: func.func @one_group
// CHECK: ejk.grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x8xf16>, tensor<1x8x24xf16>, tensor<1xi32> -> tensor<16x24xf16>
func.func @one_group(%lhs: tensor<16x8xf16>, %rhs: tensor<1x8x24xf16>, %sizes: tensor<1xi32>) -> tensor<16x24xf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<16x8xf16>, tensor<1x8x24xf16>, tensor<1xi32> -> tensor<16x24xf16>
  return %out : tensor<16x24xf16>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} {transpose_rhs} : tensor<4096x1024xbf16>, tensor<8x2816x1024xbf16>, tensor<8xi32> -> tensor<4096x2816xbf16>
func.func @doc_example(%lhs: tensor<4096x1024xbf16>, %rhs: tensor<8x2816x1024xbf16>, %sizes: tensor<8xi32>) -> tensor<4096x2816xbf16> {
    %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs}
        : tensor<4096x1024xbf16>, tensor<8x2816x1024xbf16>, tensor<8xi32>
        -> tensor<4096x2816xbf16>
  return %out : tensor<4096x2816xbf16>
}

// -----

// Expert parallelism (this shard holds groups 2..4 of 8) accumulating into
// an f32 result of bf16 inputs.
// CHECK-LABEL: func.func @offset_accumulate
// CHECK: ejk.grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} group_offset(%{{.*}} : tensor<1xi32>) existing_out(%{{.*}} : tensor<100x32xf32>) : tensor<100x64xbf16>, tensor<3x64x32xbf16>, tensor<8xi32> -> tensor<100x32xf32>
func.func @offset_accumulate(%lhs: tensor<100x64xbf16>, %rhs: tensor<3x64x32xbf16>, %sizes: tensor<8xi32>, %off: tensor<1xi32>, %acc: tensor<100x32xf32>) -> tensor<100x32xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%off : tensor<1xi32>) existing_out(%acc : tensor<100x32xf32>)
      : tensor<100x64xbf16>, tensor<3x64x32xbf16>, tensor<8xi32> -> tensor<100x32xf32>
  return %out : tensor<100x32xf32>
}

// -----

// The weight gradient: per group, lhs^T x rhs.
// CHECK-LABEL: func.func @transposed_grouped
// CHECK: ejk.transposed_grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} : tensor<4096x1024xbf16>, tensor<4096x512xbf16>, tensor<16xi32> -> tensor<16x1024x512xf32>
func.func @transposed_grouped(%x: tensor<4096x1024xbf16>, %dout: tensor<4096x512xbf16>, %sizes: tensor<16xi32>) -> tensor<16x1024x512xf32> {
  %d_rhs = ejk.transposed_grouped_matmul %x, %dout, %sizes
      : tensor<4096x1024xbf16>, tensor<4096x512xbf16>, tensor<16xi32>
      -> tensor<16x1024x512xf32>
  return %d_rhs : tensor<16x1024x512xf32>
}

// -----

// CHECK-LABEL: func.func @transposed_offset
// CHECK: ejk.transposed_grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} group_offset(%{{.*}} : tensor<1xi32>) existing_out(%{{.*}} : tensor<2x8x4xf32>) {config = #ejk.config<block_k = 8, block_m = 16, block_n = 4>}
func.func @transposed_offset(%x: tensor<40x8xf32>, %dout: tensor<40x4xf32>, %sizes: tensor<6xi32>, %off: tensor<1xi32>, %acc: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %d_rhs = ejk.transposed_grouped_matmul %x, %dout, %sizes group_offset(%off : tensor<1xi32>) existing_out(%acc : tensor<2x8x4xf32>) {config = #ejk.config<block_m = 16, block_n = 4, block_k = 8>}
      : tensor<40x8xf32>, tensor<40x4xf32>, tensor<6xi32> -> tensor<2x8x4xf32>
  return %d_rhs : tensor<2x8x4xf32>
}

// -----

// int8 weights with per-channel scales, every optional operand.
// CHECK-LABEL: func.func @int8_weights
// CHECK: ejk.grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} group_offset(%{{.*}} : tensor<1xi32>) existing_out(%{{.*}} : tensor<100x48xf32>) rhs_scales(%[[S:.*]] : tensor<2x48xf32>) {transpose_rhs} : tensor<100x64xbf16>, tensor<2x48x64xi8>, tensor<4xi32> -> tensor<100x48xf32>
func.func @int8_weights(%lhs: tensor<100x64xbf16>, %rhs: tensor<2x48x64xi8>, %sizes: tensor<4xi32>, %offset: tensor<1xi32>, %acc: tensor<100x48xf32>, %scales: tensor<2x48xf32>) -> tensor<100x48xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%offset : tensor<1xi32>) existing_out(%acc : tensor<100x48xf32>) rhs_scales(%scales : tensor<2x48xf32>) {transpose_rhs}
      : tensor<100x64xbf16>, tensor<2x48x64xi8>, tensor<4xi32> -> tensor<100x48xf32>
  return %out : tensor<100x48xf32>
}
