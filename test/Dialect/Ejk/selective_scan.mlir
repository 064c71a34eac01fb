// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// One group per channel (B and C not shared).
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[U:.*]]: tensor<2x64x16xf32>, %[[DELTA:.*]]: tensor<2x64x16xf32>, %[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<2x64x16x8xf32>, %[[C:.*]]: tensor<2x64x16x8xf32>)
// CHECK: %[[Y:.*]] = ejk.selective_scan %[[U]], %[[DELTA]], %[[A]], %[[B]], %[[C]] : tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<16x8xf32>, tensor<2x64x16x8xf32>, tensor<2x64x16x8xf32> -> tensor<2x64x16xf32>
// CHECK: return %[[Y]]
func.func @plain(%u: tensor<2x64x16xf32>, %delta: tensor<2x64x16xf32>, %A: tensor<16x8xf32>, %B: tensor<2x64x16x8xf32>, %C: tensor<2x64x16x8xf32>) -> tensor<2x64x16xf32> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<16x8xf32>, tensor<2x64x16x8xf32>, tensor<2x64x16x8xf32> -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}

// -----

// Every option and both results; 4 groups shared by 16 channels each.
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[D:[^:]*]]: tensor<64xf32>, %[[Z:[^:]*]]: tensor<1x32x64xbf16>, %[[BIAS:[^:]*]]: tensor<64xf32>, %[[H0:[^:]*]]: tensor<1x64x16xf32>)
// CHECK: %[[Y:.*]], %[[H:.*]] = ejk.selective_scan %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} D(%[[D]] : tensor<64xf32>) z(%[[Z]] : tensor<1x32x64xbf16>) delta_bias(%[[BIAS]] : tensor<64xf32>) initial_state(%[[H0]] : tensor<1x64x16xf32>)
// CHECK-SAME: config = #ejk.config<block_d = 32, chunk_l = 16>
// CHECK-SAME: delta_softplus
// CHECK-SAME: : tensor<1x32x64xbf16>, tensor<1x32x64xbf16>, tensor<64x16xf32>, tensor<1x32x4x16xbf16>, tensor<1x32x4x16xbf16> -> tensor<1x32x64xbf16>, tensor<1x64x16xf32>
// CHECK: return %[[Y]], %[[H]]
func.func @all_options(%u: tensor<1x32x64xbf16>, %delta: tensor<1x32x64xbf16>, %A: tensor<64x16xf32>,
                       %B: tensor<1x32x4x16xbf16>, %C: tensor<1x32x4x16xbf16>, %D: tensor<64xf32>,
                       %z: tensor<1x32x64xbf16>, %bias: tensor<64xf32>, %h0: tensor<1x64x16xf32>)
    -> (tensor<1x32x64xbf16>, tensor<1x64x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<64xf32>) z(%z : tensor<1x32x64xbf16>)
      delta_bias(%bias : tensor<64xf32>) initial_state(%h0 : tensor<1x64x16xf32>)
      {delta_softplus, config = #ejk.config<block_d = 32, chunk_l = 16>}
      : tensor<1x32x64xbf16>, tensor<1x32x64xbf16>, tensor<64x16xf32>, tensor<1x32x4x16xbf16>, tensor<1x32x4x16xbf16>
      -> tensor<1x32x64xbf16>, tensor<1x64x16xf32>
  return %y, %h : tensor<1x32x64xbf16>, tensor<1x64x16xf32>
}

// -----

// Only the gate, one group for all channels (Mamba's usual B/C), f16.
// CHECK-LABEL: func.func @gate_only
// CHECK-SAME: %[[Z:[^:]*]]: tensor<4x10x24xf16>)
// CHECK: ejk.selective_scan %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} z(%[[Z]] : tensor<4x10x24xf16>) : tensor<4x10x24xf16>, tensor<4x10x24xf16>, tensor<24x4xf32>, tensor<4x10x1x4xf16>, tensor<4x10x1x4xf16> -> tensor<4x10x24xf16>
func.func @gate_only(%u: tensor<4x10x24xf16>, %delta: tensor<4x10x24xf16>, %A: tensor<24x4xf32>,
                     %B: tensor<4x10x1x4xf16>, %C: tensor<4x10x1x4xf16>, %z: tensor<4x10x24xf16>) -> tensor<4x10x24xf16> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C z(%z : tensor<4x10x24xf16>)
      : tensor<4x10x24xf16>, tensor<4x10x24xf16>, tensor<24x4xf32>, tensor<4x10x1x4xf16>, tensor<4x10x1x4xf16>
      -> tensor<4x10x24xf16>
  return %y : tensor<4x10x24xf16>
}

// -----

// The state is carried between calls: only the initial state and the final
// state, no skip, gate or bias (the segments keep them apart).
// CHECK-LABEL: func.func @state_only
// CHECK-SAME: %[[H0:[^:]*]]: tensor<1x8x4xf32>)
// CHECK: %{{.*}}, %[[H:.*]] = ejk.selective_scan %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} initial_state(%[[H0]] : tensor<1x8x4xf32>) : {{.*}} -> tensor<1x1x8xf32>, tensor<1x8x4xf32>
// CHECK: return %[[H]]
func.func @state_only(%u: tensor<1x1x8xf32>, %delta: tensor<1x1x8xf32>, %A: tensor<8x4xf32>,
                      %B: tensor<1x1x2x4xf32>, %C: tensor<1x1x2x4xf32>, %h0: tensor<1x8x4xf32>) -> tensor<1x8x4xf32> {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C initial_state(%h0 : tensor<1x8x4xf32>)
      : tensor<1x1x8xf32>, tensor<1x1x8xf32>, tensor<8x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>
      -> tensor<1x1x8xf32>, tensor<1x8x4xf32>
  return %h : tensor<1x8x4xf32>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.selective_scan {{.*}} D({{.*}}) z({{.*}}) delta_bias({{.*}}) {delta_softplus}
func.func @doc_example(%u: tensor<2x256x1536xbf16>, %delta: tensor<2x256x1536xbf16>, %A: tensor<1536x16xf32>,
                       %B: tensor<2x256x1x16xbf16>, %C: tensor<2x256x1x16xbf16>, %D: tensor<1536xf32>,
                       %z: tensor<2x256x1536xbf16>, %bias: tensor<1536xf32>) -> (tensor<2x256x1536xbf16>, tensor<2x1536x16xf32>) {
    %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C
        D(%D : tensor<1536xf32>) z(%z : tensor<2x256x1536xbf16>)
        delta_bias(%bias : tensor<1536xf32>) {delta_softplus}
        : tensor<2x256x1536xbf16>, tensor<2x256x1536xbf16>,
          tensor<1536x16xf32>, tensor<2x256x1x16xbf16>,
          tensor<2x256x1x16xbf16>
        -> tensor<2x256x1536xbf16>, tensor<2x1536x16xf32>
  return %y, %h : tensor<2x256x1536xbf16>, tensor<2x1536x16xf32>
}
