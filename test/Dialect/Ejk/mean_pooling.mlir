// RUN: ejk-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: ejk-opt %s -split-input-file | ejk-opt -split-input-file | FileCheck %s
// RUN: ejk-opt %s -split-input-file -mlir-print-op-generic | ejk-opt -split-input-file | FileCheck %s

// Dense: every sequence has seq tokens.
// CHECK-LABEL: func.func @dense
// CHECK-SAME: (%[[X:.*]]: tensor<4x10x32xf32>)
// CHECK: %[[OUT:.*]] = ejk.mean_pooling %[[X]] : tensor<4x10x32xf32> -> tensor<4x32xf32>
// CHECK: return %[[OUT]]
func.func @dense(%x: tensor<4x10x32xf32>) -> tensor<4x32xf32> {
  %out = ejk.mean_pooling %x : tensor<4x10x32xf32> -> tensor<4x32xf32>
  return %out : tensor<4x32xf32>
}

// -----

// Packed: 4 sequences in 1000 tokens, with a config.
// CHECK-LABEL: func.func @packed
// CHECK-SAME: (%[[X:.*]]: tensor<1000x768xbf16>, %[[CU:.*]]: tensor<5xi32>)
// CHECK: %[[OUT:.*]] = ejk.mean_pooling %[[X]] cu_seqlens(%[[CU]] : tensor<5xi32>) {config = #ejk.config<block_d = 256>} : tensor<1000x768xbf16> -> tensor<4x768xbf16>
// CHECK: return %[[OUT]]
func.func @packed(%x: tensor<1000x768xbf16>, %cu: tensor<5xi32>) -> tensor<4x768xbf16> {
  %out = ejk.mean_pooling %x cu_seqlens(%cu : tensor<5xi32>) {config = #ejk.config<block_d = 256>} : tensor<1000x768xbf16> -> tensor<4x768xbf16>
  return %out : tensor<4x768xbf16>
}

// -----

// No sequence at all: cu_seqlens = [0] gives an empty result.
// CHECK-LABEL: func.func @no_sequence
// CHECK: ejk.mean_pooling %{{.*}} cu_seqlens(%{{.*}} : tensor<1xi32>) : tensor<0x16xf16> -> tensor<0x16xf16>
func.func @no_sequence(%x: tensor<0x16xf16>, %cu: tensor<1xi32>) -> tensor<0x16xf16> {
  %out = ejk.mean_pooling %x cu_seqlens(%cu : tensor<1xi32>) : tensor<0x16xf16> -> tensor<0x16xf16>
  return %out : tensor<0x16xf16>
}

// -----

// The example of the op's description.
// CHECK-LABEL: func.func @doc_example
// CHECK: ejk.mean_pooling %{{.*}} cu_seqlens(%{{.*}} : tensor<5xi32>) : tensor<1000x768xf32> -> tensor<4x768xf32>
func.func @doc_example(%tokens: tensor<1000x768xf32>, %cu: tensor<5xi32>) -> tensor<4x768xf32> {
    %pooled = ejk.mean_pooling %tokens cu_seqlens(%cu : tensor<5xi32>)
        : tensor<1000x768xf32> -> tensor<4x768xf32>
  return %pooled : tensor<4x768xf32>
}

// -----

// The backward, dense and packed.
// CHECK-LABEL: func.func @grad_dense
// CHECK: ejk.mean_pooling_grad %{{.*}} : tensor<4x32xf32> -> tensor<4x10x32xf32>
func.func @grad_dense(%dy: tensor<4x32xf32>) -> tensor<4x10x32xf32> {
  %dx = ejk.mean_pooling_grad %dy : tensor<4x32xf32> -> tensor<4x10x32xf32>
  return %dx : tensor<4x10x32xf32>
}

// -----

// CHECK-LABEL: func.func @grad_packed
// CHECK: ejk.mean_pooling_grad %{{.*}} cu_seqlens(%{{.*}} : tensor<5xi32>) {config = #ejk.config<block_d = 64, block_s = 16>} : tensor<4x768xbf16> -> tensor<1000x768xbf16>
func.func @grad_packed(%dy: tensor<4x768xbf16>, %cu: tensor<5xi32>) -> tensor<1000x768xbf16> {
  %dx = ejk.mean_pooling_grad %dy cu_seqlens(%cu : tensor<5xi32>) {config = #ejk.config<block_d = 64, block_s = 16>}
      : tensor<4x768xbf16> -> tensor<1000x768xbf16>
  return %dx : tensor<1000x768xbf16>
}
