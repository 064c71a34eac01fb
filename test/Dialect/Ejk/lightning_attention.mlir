// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// ejKernel's layer form: the slopes come from layer_idx / num_layers.
// CHECK-LABEL: func.func @layer_form
// CHECK-SAME: (%[[Q:.*]]: tensor<1x1024x8x128xf16>, %[[K:.*]]: tensor<1x1024x8x128xf16>, %[[V:.*]]: tensor<1x1024x8x128xf16>)
// CHECK: %[[O:.*]] = ejk.lightning_attention %[[Q]], %[[K]], %[[V]] {layer_idx = 3 : i64, num_layers = 24 : i64} : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16> -> tensor<1x1024x8x128xf16>
// CHECK: return %[[O]]
func.func @layer_form(%q: tensor<1x1024x8x128xf16>, %k: tensor<1x1024x8x128xf16>, %v: tensor<1x1024x8x128xf16>) -> tensor<1x1024x8x128xf16> {
  %o = ejk.lightning_attention %q, %k, %v {layer_idx = 3 : i64, num_layers = 24 : i64} : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16> -> tensor<1x1024x8x128xf16>
  return %o : tensor<1x1024x8x128xf16>
}

// -----

// The explicit slopes, every option, both results, GQA, head_dim_v != head_dim_k.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[SL:[^:]*]]: tensor<4xf32>, %[[S0:[^:]*]]: tensor<2x4x64x32xf32>
// CHECK: %[[O:.*]], %[[S:.*]] = ejk.lightning_attention %{{.*}}, %{{.*}}, %{{.*}} slopes(%[[SL]] : tensor<4xf32>) initial_state(%[[S0]] : tensor<2x4x64x32xf32>)
// CHECK-SAME: config = #ejk.config<block_v = 32, chunk_size = 256>
// CHECK-SAME: reverse
// CHECK-SAME: scale = 5.000000e-01 : f32
// CHECK-SAME: : tensor<2x77x4x64xbf16>, tensor<2x77x2x64xbf16>, tensor<2x77x2x32xbf16> -> tensor<2x77x4x32xbf16>, tensor<2x4x64x32xf32>
// CHECK: return %[[O]], %[[S]]
func.func @all_options(%q: tensor<2x77x4x64xbf16>, %k: tensor<2x77x2x64xbf16>, %v: tensor<2x77x2x32xbf16>,
                       %slopes: tensor<4xf32>, %s0: tensor<2x4x64x32xf32>) -> (tensor<2x77x4x32xbf16>, tensor<2x4x64x32xf32>) {
  %o, %s = ejk.lightning_attention %q, %k, %v slopes(%slopes : tensor<4xf32>) initial_state(%s0 : tensor<2x4x64x32xf32>)
      {scale = 0.5 : f32, reverse, config = #ejk.config<chunk_size = 256, block_v = 32>}
      : tensor<2x77x4x64xbf16>, tensor<2x77x2x64xbf16>, tensor<2x77x2x32xbf16>
      -> tensor<2x77x4x32xbf16>, tensor<2x4x64x32xf32>
  return %o, %s : tensor<2x77x4x32xbf16>, tensor<2x4x64x32xf32>
}

// -----

// Packed sequences: one state per sequence.
// CHECK-LABEL: func.func @packed
// CHECK: ejk.lightning_attention %{{.*}}, %{{.*}}, %{{.*}} cu_seqlens(%{{.*}} : tensor<4xi32>) {layer_idx = 0 : i64, num_layers = 1 : i64} : tensor<1x100x2x16xf32>, tensor<1x100x2x16xf32>, tensor<1x100x2x16xf32> -> tensor<1x100x2x16xf32>, tensor<3x2x16x16xf32>
func.func @packed(%q: tensor<1x100x2x16xf32>, %k: tensor<1x100x2x16xf32>, %v: tensor<1x100x2x16xf32>, %cu: tensor<4xi32>) -> tensor<3x2x16x16xf32> {
  %o, %s = ejk.lightning_attention %q, %k, %v cu_seqlens(%cu : tensor<4xi32>) {layer_idx = 0 : i64, num_layers = 1 : i64}
      : tensor<1x100x2x16xf32>, tensor<1x100x2x16xf32>, tensor<1x100x2x16xf32> -> tensor<1x100x2x16xf32>, tensor<3x2x16x16xf32>
  return %s : tensor<3x2x16x16xf32>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.lightning_attention {{.*}} {layer_idx = 3 : i64, num_layers = 24 : i64} : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16> -> tensor<1x1024x8x128xf16>
func.func @doc_example(%q: tensor<1x1024x8x128xf16>, %k: tensor<1x1024x8x128xf16>, %v: tensor<1x1024x8x128xf16>) -> tensor<1x1024x8x128xf16> {
    %o = ejk.lightning_attention %q, %k, %v
        {layer_idx = 3 : i64, num_layers = 24 : i64}
        : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>,
          tensor<1x1024x8x128xf16> -> tensor<1x1024x8x128xf16>
  return %o : tensor<1x1024x8x128xf16>
}
