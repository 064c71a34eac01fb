// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// The plain delta rule (DeltaNet): no decay, l2 norm by default (not
// printed).
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x256x4x64xf32>, %[[K:.*]]: tensor<2x256x4x64xf32>, %[[V:.*]]: tensor<2x256x4x64xf32>, %[[BETA:.*]]: tensor<2x256x4xf32>)
// CHECK: %[[O:.*]] = ejk.delta_attention %[[Q]], %[[K]], %[[V]], %[[BETA]] : tensor<2x256x4x64xf32>, tensor<2x256x4x64xf32>, tensor<2x256x4x64xf32>, tensor<2x256x4xf32> -> tensor<2x256x4x64xf32>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<2x256x4x64xf32>, %k: tensor<2x256x4x64xf32>, %v: tensor<2x256x4x64xf32>, %beta: tensor<2x256x4xf32>) -> tensor<2x256x4x64xf32> {
  %o = ejk.delta_attention %q, %k, %v, %beta : tensor<2x256x4x64xf32>, tensor<2x256x4x64xf32>, tensor<2x256x4x64xf32>, tensor<2x256x4xf32> -> tensor<2x256x4x64xf32>
  return %o : tensor<2x256x4x64xf32>
}

// -----

// Every option: a per-head decay (Gated DeltaNet), GQA, a state in and
// out, no l2 norm, reverse, scale and a config; f16 activations with an f32
// state.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[G:[^:]*]]: tensor<1x300x8xf16>, %[[S0:[^:]*]]: tensor<1x8x128x64xf32>
// CHECK: %[[O:.*]], %[[S:.*]] = ejk.delta_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} decay(%[[G]] : tensor<1x300x8xf16>) initial_state(%[[S0]] : tensor<1x8x128x64xf32>)
// CHECK-SAME: config = #ejk.config<block_v = 64, chunk_size = 64>
// CHECK-SAME: reverse
// CHECK-SAME: scale = 0.0883883461 : f32
// CHECK-SAME: use_qk_l2norm = false
// CHECK-SAME: : tensor<1x300x8x128xf16>, tensor<1x300x2x128xf16>, tensor<1x300x2x64xf16>, tensor<1x300x8xf16> -> tensor<1x300x8x64xf16>, tensor<1x8x128x64xf32>
// CHECK: return %[[O]], %[[S]]
func.func @all_options(%q: tensor<1x300x8x128xf16>, %k: tensor<1x300x2x128xf16>, %v: tensor<1x300x2x64xf16>,
                       %beta: tensor<1x300x8xf16>, %g: tensor<1x300x8xf16>, %s0: tensor<1x8x128x64xf32>) -> (tensor<1x300x8x64xf16>, tensor<1x8x128x64xf32>) {
  %o, %s = ejk.delta_attention %q, %k, %v, %beta decay(%g : tensor<1x300x8xf16>) initial_state(%s0 : tensor<1x8x128x64xf32>)
      {use_qk_l2norm = false, reverse, scale = 0.0883883461 : f32, config = #ejk.config<chunk_size = 64, block_v = 64>}
      : tensor<1x300x8x128xf16>, tensor<1x300x2x128xf16>, tensor<1x300x2x64xf16>, tensor<1x300x8xf16>
      -> tensor<1x300x8x64xf16>, tensor<1x8x128x64xf32>
  return %o, %s : tensor<1x300x8x64xf16>, tensor<1x8x128x64xf32>
}

// -----

// A per-key-dim decay (Kimi's KDA) over packed sequences, a state per
// sequence.
// CHECK-LABEL: func.func @kda_varlen
// CHECK: ejk.delta_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} decay(%{{.*}} : tensor<1x100x4x32xbf16>) initial_state(%{{.*}} : tensor<3x4x32x16xf32>) cu_seqlens(%{{.*}} : tensor<4xi32>) : {{.*}} -> tensor<1x100x4x16xbf16>, tensor<3x4x32x16xf32>
func.func @kda_varlen(%q: tensor<1x100x4x32xbf16>, %v: tensor<1x100x4x16xbf16>, %beta: tensor<1x100x4xbf16>,
                      %g: tensor<1x100x4x32xbf16>, %s0: tensor<3x4x32x16xf32>, %cu: tensor<4xi32>) -> (tensor<1x100x4x16xbf16>, tensor<3x4x32x16xf32>) {
  %o, %s = ejk.delta_attention %q, %q, %v, %beta decay(%g : tensor<1x100x4x32xbf16>) initial_state(%s0 : tensor<3x4x32x16xf32>) cu_seqlens(%cu : tensor<4xi32>)
      : tensor<1x100x4x32xbf16>, tensor<1x100x4x32xbf16>, tensor<1x100x4x16xbf16>, tensor<1x100x4xbf16>
      -> tensor<1x100x4x16xbf16>, tensor<3x4x32x16xf32>
  return %o, %s : tensor<1x100x4x16xbf16>, tensor<3x4x32x16xf32>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.delta_attention {{.*}} decay({{.*}} : tensor<2x256x4xf32>) : {{.*}} -> tensor<2x256x4x64xf32>, tensor<2x4x64x64xf32>
func.func @doc_example(%q: tensor<2x256x4x64xf32>, %k: tensor<2x256x4x64xf32>, %v: tensor<2x256x4x64xf32>,
                       %beta: tensor<2x256x4xf32>, %g: tensor<2x256x4xf32>) -> (tensor<2x256x4x64xf32>, tensor<2x4x64x64xf32>) {
    %o, %s = ejk.delta_attention %q, %k, %v, %beta
        decay(%g : tensor<2x256x4xf32>)
        : tensor<2x256x4x64xf32>, tensor<2x256x4x64xf32>,
          tensor<2x256x4x64xf32>, tensor<2x256x4xf32>
        -> tensor<2x256x4x64xf32>, tensor<2x4x64x64xf32>
  return %o, %s : tensor<2x256x4x64xf32>, tensor<2x4x64x64xf32>
}
