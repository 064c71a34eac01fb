// RUN: ejk-opt %s | ejk-opt | FileCheck %s

// CHECK-LABEL: func.func @selected_by_compression
// CHECK: ejk.native_sparse_attention %{{.*}}, %{{.*}}, %{{.*}} g_cmp(%{{.*}} : tensor<1x128x8xbf16>) g_slc(%{{.*}} : tensor<1x128x8xbf16>) {block_counts = 4 : i64, block_size = 32 : i64}
func.func @selected_by_compression(%q: tensor<1x128x8x64xbf16>, %k: tensor<1x128x2x64xbf16>, %v: tensor<1x128x2x64xbf16>, %gc: tensor<1x128x8xbf16>, %gs: tensor<1x128x8xbf16>) -> tensor<1x128x8x64xbf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x128x8xbf16>) g_slc(%gs : tensor<1x128x8xbf16>) {block_size = 32 : i64, block_counts = 4 : i64}
      : tensor<1x128x8x64xbf16>, tensor<1x128x2x64xbf16>, tensor<1x128x2x64xbf16> -> tensor<1x128x8x64xbf16>
  return %o : tensor<1x128x8x64xbf16>
}

// CHECK-LABEL: func.func @given_indices_with_window
// CHECK: ejk.native_sparse_attention %{{.*}}, %{{.*}}, %{{.*}} g_swa(%{{.*}} : tensor<2x100x4xf32>) block_indices(%{{.*}} : tensor<2x2x4x3xi32>) {block_size = 32 : i64, softmax_scale = 1.250000e-01 : f32, window_size = 16 : i64}
func.func @given_indices_with_window(%q: tensor<2x100x4x32xf32>, %k: tensor<2x100x2x32xf32>, %v: tensor<2x100x2x32xf32>, %gw: tensor<2x100x4xf32>, %bi: tensor<2x2x4x3xi32>) -> tensor<2x100x4x32xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_swa(%gw : tensor<2x100x4xf32>) block_indices(%bi : tensor<2x2x4x3xi32>) {block_size = 32 : i64, window_size = 16 : i64, softmax_scale = 0.125 : f32}
      : tensor<2x100x4x32xf32>, tensor<2x100x2x32xf32>, tensor<2x100x2x32xf32> -> tensor<2x100x4x32xf32>
  return %o : tensor<2x100x4x32xf32>
}
