// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x100x4x64xf32>, %[[K:.*]]: tensor<2x100x4x64xf32>, %[[V:.*]]: tensor<2x100x4x32xf32>, %[[G:.*]]: tensor<2x100x4x64xf32>)
// CHECK: %[[O:.*]] = ejk.gla %[[Q]], %[[K]], %[[V]] g(%[[G]] : tensor<2x100x4x64xf32>) : tensor<2x100x4x64xf32>, tensor<2x100x4x64xf32>, tensor<2x100x4x32xf32> -> tensor<2x100x4x32xf32>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<2x100x4x64xf32>, %k: tensor<2x100x4x64xf32>, %v: tensor<2x100x4x32xf32>, %g: tensor<2x100x4x64xf32>) -> tensor<2x100x4x32xf32> {
  %o = ejk.gla %q, %k, %v g(%g : tensor<2x100x4x64xf32>) : tensor<2x100x4x64xf32>, tensor<2x100x4x64xf32>, tensor<2x100x4x32xf32> -> tensor<2x100x4x32xf32>
  return %o : tensor<2x100x4x32xf32>
}

// -----

// Every option, both results; the state stays f32 under bf16 activations.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[S0:[^:]*]]: tensor<2x4x64x64xf32>
// CHECK: %[[O:.*]], %[[S:.*]] = ejk.gla %{{.*}}, %{{.*}}, %{{.*}} g(%{{.*}} : tensor<2x512x4x64xbf16>) initial_state(%[[S0]] : tensor<2x4x64x64xf32>)
// CHECK-SAME: config = #ejk.config<block_v = 64, chunk_size = 64>
// CHECK-SAME: reverse
// CHECK-SAME: scale = 1.250000e-01 : f32
// CHECK-SAME: -> tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>
// CHECK: return %[[O]], %[[S]]
func.func @all_options(%q: tensor<2x512x4x64xbf16>, %k: tensor<2x512x4x64xbf16>, %v: tensor<2x512x4x64xbf16>,
                       %g: tensor<2x512x4x64xbf16>, %s0: tensor<2x4x64x64xf32>) -> (tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>) {
  %o, %s = ejk.gla %q, %k, %v g(%g : tensor<2x512x4x64xbf16>) initial_state(%s0 : tensor<2x4x64x64xf32>)
      {reverse, scale = 0.125 : f32, config = #ejk.config<chunk_size = 64, block_v = 64>}
      : tensor<2x512x4x64xbf16>, tensor<2x512x4x64xbf16>, tensor<2x512x4x64xbf16>
      -> tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>
  return %o, %s : tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>
}

// -----

// Decode step: one token in, the final state out, no initial state (zero).
// CHECK-LABEL: func.func @decode_step
// CHECK: ejk.gla %{{.*}}, %{{.*}}, %{{.*}} g(%{{.*}} : tensor<8x1x16x128xf16>) : tensor<8x1x16x128xf16>, tensor<8x1x16x128xf16>, tensor<8x1x16x256xf16> -> tensor<8x1x16x256xf16>, tensor<8x16x128x256xf32>
func.func @decode_step(%q: tensor<8x1x16x128xf16>, %k: tensor<8x1x16x128xf16>, %v: tensor<8x1x16x256xf16>, %g: tensor<8x1x16x128xf16>) -> tensor<8x16x128x256xf32> {
  %o, %s = ejk.gla %q, %k, %v g(%g : tensor<8x1x16x128xf16>) : tensor<8x1x16x128xf16>, tensor<8x1x16x128xf16>, tensor<8x1x16x256xf16> -> tensor<8x1x16x256xf16>, tensor<8x16x128x256xf32>
  return %s : tensor<8x16x128x256xf32>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.gla {{.*}} initial_state({{.*}}) : {{.*}} -> tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>
func.func @doc_example(%q: tensor<2x512x4x64xbf16>, %k: tensor<2x512x4x64xbf16>, %v: tensor<2x512x4x64xbf16>,
                       %g: tensor<2x512x4x64xbf16>, %s0: tensor<2x4x64x64xf32>) -> (tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>) {
    %o, %s = ejk.gla %q, %k, %v g(%g : tensor<2x512x4x64xbf16>) initial_state(%s0 : tensor<2x4x64x64xf32>)
        : tensor<2x512x4x64xbf16>, tensor<2x512x4x64xbf16>,
          tensor<2x512x4x64xbf16>
        -> tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>
  return %o, %s : tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>
}

// -----

// No gate at all (plain causal linear attention) and GQA: 8 query heads
// read 2 key/value heads.
// CHECK-LABEL: func.func @ungated_gqa
// CHECK: ejk.gla %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x64x8x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x48xf32> -> tensor<1x64x8x48xf32>
func.func @ungated_gqa(%q: tensor<1x64x8x32xf32>, %k: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x48xf32>) -> tensor<1x64x8x48xf32> {
  %o = ejk.gla %q, %k, %v : tensor<1x64x8x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x48xf32> -> tensor<1x64x8x48xf32>
  return %o : tensor<1x64x8x48xf32>
}

// -----

// g_gamma alone (simple GLA / RetNet-style constant decay).
// CHECK-LABEL: func.func @g_gamma_only
// CHECK: ejk.gla %{{.*}}, %{{.*}}, %{{.*}} g_gamma(%{{.*}} : tensor<4xf32>) : tensor<2x16x4x32xf32>
func.func @g_gamma_only(%q: tensor<2x16x4x32xf32>, %k: tensor<2x16x4x32xf32>, %v: tensor<2x16x4x32xf32>, %gg: tensor<4xf32>) -> tensor<2x16x4x32xf32> {
  %o = ejk.gla %q, %k, %v g_gamma(%gg : tensor<4xf32>) : tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32>, tensor<2x16x4x32xf32> -> tensor<2x16x4x32xf32>
  return %o : tensor<2x16x4x32xf32>
}

// -----

// Packed variable-length sequences: 3 sequences in 100 steps, one state
// per sequence in and out, both gates, reversed.
// CHECK-LABEL: func.func @varlen
// CHECK: ejk.gla %{{.*}}, %{{.*}}, %{{.*}} g(%{{.*}} : tensor<1x100x4x32xf16>) g_gamma(%{{.*}} : tensor<4xf32>) initial_state(%{{.*}} : tensor<3x4x32x16xf32>) cu_seqlens(%{{.*}} : tensor<4xi32>) {reverse}
// CHECK-SAME: -> tensor<1x100x4x16xf16>, tensor<3x4x32x16xf32>
func.func @varlen(%q: tensor<1x100x4x32xf16>, %k: tensor<1x100x4x32xf16>, %v: tensor<1x100x4x16xf16>, %g: tensor<1x100x4x32xf16>,
                  %gg: tensor<4xf32>, %s0: tensor<3x4x32x16xf32>, %cu: tensor<4xi32>) -> (tensor<1x100x4x16xf16>, tensor<3x4x32x16xf32>) {
  %o, %s = ejk.gla %q, %k, %v g(%g : tensor<1x100x4x32xf16>) g_gamma(%gg : tensor<4xf32>)
      initial_state(%s0 : tensor<3x4x32x16xf32>) cu_seqlens(%cu : tensor<4xi32>) {reverse}
      : tensor<1x100x4x32xf16>, tensor<1x100x4x32xf16>, tensor<1x100x4x16xf16>
      -> tensor<1x100x4x16xf16>, tensor<3x4x32x16xf32>
  return %o, %s : tensor<1x100x4x16xf16>, tensor<3x4x32x16xf32>
}
