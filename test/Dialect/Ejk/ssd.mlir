// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// One group per head, chunk size left to ejk-select-configs.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[X:.*]]: tensor<2x100x8x64xf32>, %[[DT:.*]]: tensor<2x100x8xf32>, %[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<2x100x8x32xf32>, %[[C:.*]]: tensor<2x100x8x32xf32>)
// CHECK: %[[Y:.*]] = ejk.ssd %[[X]], %[[DT]], %[[A]], %[[B]], %[[C]] : tensor<2x100x8x64xf32>, tensor<2x100x8xf32>, tensor<8xf32>, tensor<2x100x8x32xf32>, tensor<2x100x8x32xf32> -> tensor<2x100x8x64xf32>
// CHECK: return %[[Y]]
func.func @plain(%x: tensor<2x100x8x64xf32>, %dt: tensor<2x100x8xf32>, %A: tensor<8xf32>, %B: tensor<2x100x8x32xf32>, %C: tensor<2x100x8x32xf32>) -> tensor<2x100x8x64xf32> {
  %y = ejk.ssd %x, %dt, %A, %B, %C : tensor<2x100x8x64xf32>, tensor<2x100x8xf32>, tensor<8xf32>, tensor<2x100x8x32xf32>, tensor<2x100x8x32xf32> -> tensor<2x100x8x64xf32>
  return %y : tensor<2x100x8x64xf32>
}

// -----

// Every option and both results; 2 groups of B/C shared by 4 heads each (as
// GQA), and a chunk size given both ways (equal).
// CHECK-LABEL: func.func @all_options
// CHECK-SAME: %[[D:[^:]*]]: tensor<8xf32>, %[[Z:[^:]*]]: tensor<1x64x8x16xf16>, %[[BIAS:[^:]*]]: tensor<8xf32>, %[[S0:[^:]*]]: tensor<1x8x16x32xf32>)
// CHECK: %[[Y:.*]], %[[S:.*]] = ejk.ssd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} D(%[[D]] : tensor<8xf32>) z(%[[Z]] : tensor<1x64x8x16xf16>) dt_bias(%[[BIAS]] : tensor<8xf32>) initial_state(%[[S0]] : tensor<1x8x16x32xf32>)
// CHECK-SAME: chunk_size = 32 : i64
// CHECK-SAME: config = #ejk.config<block_n = 32, block_p = 16, chunk_size = 32>
// CHECK-SAME: dt_softplus
// CHECK-SAME: : tensor<1x64x8x16xf16>, tensor<1x64x8xf16>, tensor<8xf32>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16> -> tensor<1x64x8x16xf16>, tensor<1x8x16x32xf32>
// CHECK: return %[[Y]], %[[S]]
func.func @all_options(%x: tensor<1x64x8x16xf16>, %dt: tensor<1x64x8xf16>, %A: tensor<8xf32>,
                       %B: tensor<1x64x2x32xf16>, %C: tensor<1x64x2x32xf16>, %D: tensor<8xf32>,
                       %z: tensor<1x64x8x16xf16>, %bias: tensor<8xf32>, %s0: tensor<1x8x16x32xf32>)
    -> (tensor<1x64x8x16xf16>, tensor<1x8x16x32xf32>) {
  %y, %s = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<8xf32>) z(%z : tensor<1x64x8x16xf16>)
      dt_bias(%bias : tensor<8xf32>) initial_state(%s0 : tensor<1x8x16x32xf32>)
      {dt_softplus, chunk_size = 32 : i64, config = #ejk.config<chunk_size = 32, block_p = 16, block_n = 32>}
      : tensor<1x64x8x16xf16>, tensor<1x64x8xf16>, tensor<8xf32>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>
      -> tensor<1x64x8x16xf16>, tensor<1x8x16x32xf32>
  return %y, %s : tensor<1x64x8x16xf16>, tensor<1x8x16x32xf32>
}

// -----

// The chunk size from the config alone; one group for all heads; only the
// final state out.
// CHECK-LABEL: func.func @config_chunk_size
// CHECK: %{{.*}}, %[[S:.*]] = ejk.ssd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {config = #ejk.config<chunk_size = 128>} : tensor<4x512x16x64xbf16>, tensor<4x512x16xbf16>, tensor<16xf32>, tensor<4x512x1x128xbf16>, tensor<4x512x1x128xbf16> -> tensor<4x512x16x64xbf16>, tensor<4x16x64x128xf32>
// CHECK: return %[[S]]
func.func @config_chunk_size(%x: tensor<4x512x16x64xbf16>, %dt: tensor<4x512x16xbf16>, %A: tensor<16xf32>,
                             %B: tensor<4x512x1x128xbf16>, %C: tensor<4x512x1x128xbf16>) -> tensor<4x16x64x128xf32> {
  %y, %s = ejk.ssd %x, %dt, %A, %B, %C {config = #ejk.config<chunk_size = 128>}
      : tensor<4x512x16x64xbf16>, tensor<4x512x16xbf16>, tensor<16xf32>, tensor<4x512x1x128xbf16>, tensor<4x512x1x128xbf16>
      -> tensor<4x512x16x64xbf16>, tensor<4x16x64x128xf32>
  return %s : tensor<4x16x64x128xf32>
}

// -----

// Only the gate (the segments keep z apart from D and dt_bias).
// CHECK-LABEL: func.func @gate_only
// CHECK-SAME: %[[Z:[^:]*]]: tensor<1x8x2x4xf32>)
// CHECK: ejk.ssd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} z(%[[Z]] : tensor<1x8x2x4xf32>) {chunk_size = 1 : i64} :
func.func @gate_only(%x: tensor<1x8x2x4xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>,
                     %B: tensor<1x8x2x4xf32>, %C: tensor<1x8x2x4xf32>, %z: tensor<1x8x2x4xf32>) -> tensor<1x8x2x4xf32> {
  %y = ejk.ssd %x, %dt, %A, %B, %C z(%z : tensor<1x8x2x4xf32>) {chunk_size = 1 : i64}
      : tensor<1x8x2x4xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x4xf32>
      -> tensor<1x8x2x4xf32>
  return %y : tensor<1x8x2x4xf32>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.ssd {{.*}} D({{.*}}) dt_bias({{.*}}) {chunk_size = 64 : i64, dt_softplus}
func.func @doc_example(%x: tensor<2x512x24x64xbf16>, %dt: tensor<2x512x24xbf16>, %A: tensor<24xf32>,
                       %B: tensor<2x512x1x128xbf16>, %C: tensor<2x512x1x128xbf16>, %D: tensor<24xf32>,
                       %bias: tensor<24xf32>) -> (tensor<2x512x24x64xbf16>, tensor<2x24x64x128xf32>) {
    %y, %s = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<24xf32>)
        dt_bias(%bias : tensor<24xf32>) {chunk_size = 64 : i64, dt_softplus}
        : tensor<2x512x24x64xbf16>, tensor<2x512x24xbf16>, tensor<24xf32>,
          tensor<2x512x1x128xbf16>, tensor<2x512x1x128xbf16>
        -> tensor<2x512x24x64xbf16>, tensor<2x24x64x128xf32>
  return %y, %s : tensor<2x512x24x64xbf16>, tensor<2x24x64x128xf32>
}
