// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<1x1024x8x128xf16>, %[[K:.*]]: tensor<1x1024x8x128xf16>, %[[V:.*]]: tensor<1x1024x8x128xf16>, %[[SL:.*]]: tensor<8xf32>)
// CHECK: %[[O:.*]] = ejk.lightning_attention %[[Q]], %[[K]], %[[V]], %[[SL]] : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<8xf32> -> tensor<1x1024x8x128xf16>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<1x1024x8x128xf16>, %k: tensor<1x1024x8x128xf16>, %v: tensor<1x1024x8x128xf16>, %slopes: tensor<8xf32>) -> tensor<1x1024x8x128xf16> {
  %o = ejk.lightning_attention %q, %k, %v, %slopes : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<8xf32> -> tensor<1x1024x8x128xf16>
  return %o : tensor<1x1024x8x128xf16>
}

// -----

// Every option, both results, head_dim_v != head_dim_k.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[S0:[^:]*]]: tensor<2x4x64x32xf32>
// CHECK: %[[O:.*]], %[[S:.*]] = ejk.lightning_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} initial_state(%[[S0]] : tensor<2x4x64x32xf32>)
// CHECK-SAME: config = #ejk.config<block_v = 32, chunk_size = 256>
// CHECK-SAME: scale = 5.000000e-01 : f32
// CHECK-SAME: : tensor<2x77x4x64xbf16>, tensor<2x77x4x64xbf16>, tensor<2x77x4x32xbf16>, tensor<4xf32> -> tensor<2x77x4x32xbf16>, tensor<2x4x64x32xf32>
// CHECK: return %[[O]], %[[S]]
func.func @all_options(%q: tensor<2x77x4x64xbf16>, %k: tensor<2x77x4x64xbf16>, %v: tensor<2x77x4x32xbf16>,
                       %slopes: tensor<4xf32>, %s0: tensor<2x4x64x32xf32>) -> (tensor<2x77x4x32xbf16>, tensor<2x4x64x32xf32>) {
  %o, %s = ejk.lightning_attention %q, %k, %v, %slopes initial_state(%s0 : tensor<2x4x64x32xf32>)
      {scale = 0.5 : f32, config = #ejk.config<chunk_size = 256, block_v = 32>}
      : tensor<2x77x4x64xbf16>, tensor<2x77x4x64xbf16>, tensor<2x77x4x32xbf16>, tensor<4xf32>
      -> tensor<2x77x4x32xbf16>, tensor<2x4x64x32xf32>
  return %o, %s : tensor<2x77x4x32xbf16>, tensor<2x4x64x32xf32>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.lightning_attention {{.*}} : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>, tensor<8xf32> -> tensor<1x1024x8x128xf16>
func.func @doc_example(%q: tensor<1x1024x8x128xf16>, %k: tensor<1x1024x8x128xf16>, %v: tensor<1x1024x8x128xf16>,
                       %slopes: tensor<8xf32>) -> tensor<1x1024x8x128xf16> {
    %o = ejk.lightning_attention %q, %k, %v, %slopes
        : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>,
          tensor<1x1024x8x128xf16>, tensor<8xf32>
        -> tensor<1x1024x8x128xf16>
  return %o : tensor<1x1024x8x128xf16>
}
