// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// No gate at all: plain causal linear attention.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<2x64x4x32xf32>, %[[K:.*]]: tensor<2x64x4x32xf32>, %[[V:.*]]: tensor<2x64x4x16xf32>)
// CHECK: %[[O:.*]] = ejk.recurrent %[[Q]], %[[K]], %[[V]] : tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x16xf32> -> tensor<2x64x4x16xf32>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<2x64x4x32xf32>, %k: tensor<2x64x4x32xf32>, %v: tensor<2x64x4x16xf32>) -> tensor<2x64x4x16xf32> {
  %o = ejk.recurrent %q, %k, %v : tensor<2x64x4x32xf32>, tensor<2x64x4x32xf32>, tensor<2x64x4x16xf32> -> tensor<2x64x4x16xf32>
  return %o : tensor<2x64x4x16xf32>
}

// -----

// Every gate, the state in and out, every attribute.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %[[V:[^:]*]]: {{[^,]*}}, %[[G:[^:]*]]: {{[^,]*}}, %[[GK:[^:]*]]: {{[^,]*}}, %[[GV:[^:]*]]: {{[^,]*}}, %[[S0:[^:]*]]: {{[^,]*}})
// CHECK: %[[O:.*]], %[[S:.*]] = ejk.recurrent %[[Q]], %[[K]], %[[V]] g(%[[G]] : tensor<2x64x4x32xbf16>) gk(%[[GK]] : tensor<2x64x4x32xbf16>) gv(%[[GV]] : tensor<2x64x4x16xbf16>) initial_state(%[[S0]] : tensor<2x4x32x16xf32>)
// CHECK-SAME: config = #ejk.config<block_v = 16, chunk_size = 16>
// CHECK-SAME: reverse
// CHECK-SAME: scale = 2.500000e-01 : f32
// CHECK-SAME: -> tensor<2x64x4x16xbf16>, tensor<2x4x32x16xf32>
// CHECK: return %[[O]], %[[S]]
func.func @all_options(%q: tensor<2x64x4x32xbf16>, %k: tensor<2x64x4x32xbf16>, %v: tensor<2x64x4x16xbf16>,
                       %g: tensor<2x64x4x32xbf16>, %gk: tensor<2x64x4x32xbf16>, %gv: tensor<2x64x4x16xbf16>,
                       %s0: tensor<2x4x32x16xf32>) -> (tensor<2x64x4x16xbf16>, tensor<2x4x32x16xf32>) {
  %o, %s = ejk.recurrent %q, %k, %v g(%g : tensor<2x64x4x32xbf16>) gk(%gk : tensor<2x64x4x32xbf16>)
      gv(%gv : tensor<2x64x4x16xbf16>) initial_state(%s0 : tensor<2x4x32x16xf32>)
      {reverse, scale = 0.25 : f32, config = #ejk.config<chunk_size = 16, block_v = 16>}
      : tensor<2x64x4x32xbf16>, tensor<2x64x4x32xbf16>, tensor<2x64x4x16xbf16>
      -> tensor<2x64x4x16xbf16>, tensor<2x4x32x16xf32>
  return %o, %s : tensor<2x64x4x16xbf16>, tensor<2x4x32x16xf32>
}

// -----

// Only the value gate: the operand segments keep gv apart from g and gk.
// CHECK-LABEL: func.func @value_gate_only
// CHECK-SAME: %[[GV:[^:]*]]: tensor<1x8x2x16xf16>)
// CHECK: ejk.recurrent %{{.*}}, %{{.*}}, %{{.*}} gv(%[[GV]] : tensor<1x8x2x16xf16>) : tensor<1x8x2x32xf16>, tensor<1x8x2x32xf16>, tensor<1x8x2x16xf16> -> tensor<1x8x2x16xf16>
func.func @value_gate_only(%q: tensor<1x8x2x32xf16>, %k: tensor<1x8x2x32xf16>, %v: tensor<1x8x2x16xf16>, %gv: tensor<1x8x2x16xf16>) -> tensor<1x8x2x16xf16> {
  %o = ejk.recurrent %q, %k, %v gv(%gv : tensor<1x8x2x16xf16>) : tensor<1x8x2x32xf16>, tensor<1x8x2x32xf16>, tensor<1x8x2x16xf16> -> tensor<1x8x2x16xf16>
  return %o : tensor<1x8x2x16xf16>
}

// -----

// A scalar gate per head (RetNet-style decay) with only the final state out.
// CHECK-LABEL: func.func @head_gate_final_state
// CHECK-SAME: %[[G:[^:]*]]: tensor<1x8x2x32xf32>) ->
// CHECK: %{{.*}}, %[[S:.*]] = ejk.recurrent %{{.*}}, %{{.*}}, %{{.*}} g(%[[G]] : tensor<1x8x2x32xf32>) : tensor<1x8x2x32xf32>, tensor<1x8x2x32xf32>, tensor<1x8x2x32xf32> -> tensor<1x8x2x32xf32>, tensor<1x2x32x32xf32>
// CHECK: return %[[S]]
func.func @head_gate_final_state(%q: tensor<1x8x2x32xf32>, %k: tensor<1x8x2x32xf32>, %v: tensor<1x8x2x32xf32>, %g: tensor<1x8x2x32xf32>) -> tensor<1x2x32x32xf32> {
  %o, %s = ejk.recurrent %q, %k, %v g(%g : tensor<1x8x2x32xf32>) : tensor<1x8x2x32xf32>, tensor<1x8x2x32xf32>, tensor<1x8x2x32xf32> -> tensor<1x8x2x32xf32>, tensor<1x2x32x32xf32>
  return %s : tensor<1x2x32x32xf32>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.recurrent {{.*}} gk({{.*}} : tensor<1x128x4x64xf32>) gv({{.*}} : tensor<1x128x4x32xf32>) {reverse} : tensor<1x128x4x64xf32>, tensor<1x128x4x64xf32>, tensor<1x128x4x32xf32> -> tensor<1x128x4x32xf32>
func.func @doc_example(%q: tensor<1x128x4x64xf32>, %k: tensor<1x128x4x64xf32>, %v: tensor<1x128x4x32xf32>,
                       %gk: tensor<1x128x4x64xf32>, %gv: tensor<1x128x4x32xf32>) -> tensor<1x128x4x32xf32> {
    %o = ejk.recurrent %q, %k, %v gk(%gk : tensor<1x128x4x64xf32>)
        gv(%gv : tensor<1x128x4x32xf32>) {reverse}
        : tensor<1x128x4x64xf32>, tensor<1x128x4x64xf32>,
          tensor<1x128x4x32xf32> -> tensor<1x128x4x32xf32>
  return %o : tensor<1x128x4x32xf32>
}

// -----

// GQA, a per-sequence g_gamma over packed sequences, every gate.
// CHECK-LABEL: func.func @packed_gqa
// CHECK: ejk.recurrent %{{.*}}, %{{.*}}, %{{.*}} g(%{{.*}} : tensor<1x50x4x16xf32>) gk(%{{.*}} : tensor<1x50x4x16xf32>) gv(%{{.*}} : tensor<1x50x4x8xf32>) g_gamma(%{{.*}} : tensor<3x4xf32>) cu_seqlens(%{{.*}} : tensor<4xi32>) : tensor<1x50x4x16xf32>, tensor<1x50x2x16xf32>, tensor<1x50x2x8xf32> -> tensor<1x50x4x8xf32>, tensor<3x4x16x8xf32>
func.func @packed_gqa(%q: tensor<1x50x4x16xf32>, %k: tensor<1x50x2x16xf32>, %v: tensor<1x50x2x8xf32>,
                      %g: tensor<1x50x4x16xf32>, %gk: tensor<1x50x4x16xf32>, %gv: tensor<1x50x4x8xf32>,
                      %gg: tensor<3x4xf32>, %cu: tensor<4xi32>) -> tensor<3x4x16x8xf32> {
  %o, %s = ejk.recurrent %q, %k, %v g(%g : tensor<1x50x4x16xf32>) gk(%gk : tensor<1x50x4x16xf32>)
      gv(%gv : tensor<1x50x4x8xf32>) g_gamma(%gg : tensor<3x4xf32>) cu_seqlens(%cu : tensor<4xi32>)
      : tensor<1x50x4x16xf32>, tensor<1x50x2x16xf32>, tensor<1x50x2x8xf32> -> tensor<1x50x4x8xf32>, tensor<3x4x16x8xf32>
  return %s : tensor<3x4x16x8xf32>
}
