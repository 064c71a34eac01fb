// RUN: ejk-opt %s -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefix=VK

// block_sparse_attention_grad: GQA 4:2, seq_q 96 and seq_k 128 in mask
// blocks of 32, a per-head block mask; the config gives the dK/dV pass
// 16 x 32 blocks and the dQ pass 32 x 16.
func.func @grad(%q: tensor<1x96x4x32xf32>, %k: tensor<1x128x2x32xf32>, %v: tensor<1x128x2x32xf32>,
                %o: tensor<1x96x4x32xf32>, %do: tensor<1x96x4x32xf32>, %lse: tensor<1x4x96xf32>,
                %bm: tensor<1x4x3x4xi1>) -> (tensor<1x96x4x32xf32>, tensor<1x128x2x32xf32>, tensor<1x128x2x32xf32>) {
  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %bm
      {q_block_size = 32 : i64, kv_block_size = 32 : i64, causal = false,
       config = #ejk.config<block_q = 16, block_k = 32, dq_block_q = 32, dq_block_k = 16>}
      : tensor<1x96x4x32xf32>, tensor<1x128x2x32xf32>, tensor<1x128x2x32xf32>, tensor<1x96x4x32xf32>, tensor<1x96x4x32xf32>, tensor<1x4x96xf32>, tensor<1x4x3x4xi1>
      -> tensor<1x96x4x32xf32>, tensor<1x128x2x32xf32>, tensor<1x128x2x32xf32>
  return %dq, %dk, %dv : tensor<1x96x4x32xf32>, tensor<1x128x2x32xf32>, tensor<1x128x2x32xf32>
}

// CPU. The transposed lists of the dK/dV pass: one workgroup per (key block
// of 32, head); each list holds a count and up to ceil(96 / 16) = 6 query
// blocks, written in order while the block-mask bits of mask column
// key_block * 32 / 32 are counted (no atomics).
// CHECK-LABEL: func.func private @grad_dispatch_0_live_query_blocks
// CHECK-SAME: (%[[BM:.*]]: memref<1x4x3x4xi1>, %[[L:.*]]: memref<1x4x4x7xi32>)
// CHECK-SAME: ejk.grid = array<i64: 4, 4, 1>
// CHECK: scf.for %[[QB:.*]] = %c0 to %c6 step %c1 iter_args(%[[N:.*]] = %c0) -> (index)
// CHECK: memref.store %{{.*}}, %[[L]]
// CHECK: %[[ROW:.*]] = arith.muli %[[QB]], %c16
// CHECK: arith.divsi %[[ROW]], %c32
// CHECK: memref.load %[[BM]]
// CHECK: arith.extui
// CHECK: memref.store %{{.*}}, %[[L]][%{{.*}}, %{{.*}}, %{{.*}}, %c0]

// The dQ pass's lists: the forward's, at its blocks (32 queries x 16 keys:
// 3 query blocks, up to 8 key blocks).
// CHECK-LABEL: func.func private @grad_dispatch_0_live_blocks
// CHECK-SAME: (%{{.*}}: memref<1x4x3x4xi1>, %{{.*}}: memref<1x4x3x9xi32>)
// CHECK-SAME: ejk.grid = array<i64: 3, 4, 1>

// The dQ pass loops over its query block's list: count at entry 0, the
// key blocks after it.
// CHECK-LABEL: func.func private @grad_dispatch_0_dq
// CHECK-SAME: %[[QL:[^:]*]]: memref<1x4x3x9xi32>)
// CHECK-SAME: ejk.grid = array<i64: 3, 4, 1>
// CHECK: %[[COUNT:.*]] = memref.load %[[QL]][%c0, %{{.*}}, %{{.*}}, %c0]
// CHECK: %[[NQ:.*]] = arith.index_cast %[[COUNT]] : i32 to index
// CHECK: scf.for %[[I:.*]] = %c0 to %[[NQ]] step %c1 {
// CHECK: %[[AT:.*]] = arith.addi %[[I]], %c1
// CHECK: memref.load %[[QL]][%c0, %{{.*}}, %{{.*}}, %[[AT]]]

// The dK/dV pass (the op's dispatch): per query head of the group (2), the
// query blocks of its key block's transposed list.
// CHECK-LABEL: func.func private @grad_dispatch_0(
// CHECK-SAME: %[[KL:[^:]*]]: memref<1x4x4x7xi32>)
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 1>
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK: %[[KCOUNT:.*]] = memref.load %[[KL]][%c0, %{{.*}}, %{{.*}}, %c0]
// CHECK: %[[NK:.*]] = arith.index_cast %[[KCOUNT]] : i32 to index
// CHECK: scf.for %{{.*}} = %c0 to %[[NK]] step %c1 {

// Every caller builds both lists, then runs delta, pack, dK/dV and dQ.
// CHECK-LABEL: func.func @grad
// CHECK: ejk.dispatch @grad_dispatch_0_live_query_blocks(%{{.*}}, %[[TL:.*]]) :
// CHECK: ejk.dispatch @grad_dispatch_0_live_blocks(%{{.*}}, %[[FL:.*]]) :
// CHECK: ejk.dispatch @grad_dispatch_0_delta
// CHECK: ejk.dispatch @grad_dispatch_0_pack
// CHECK: ejk.dispatch @grad_dispatch_0(%{{.*}}, %[[TL]]) :
// CHECK: ejk.dispatch @grad_dispatch_0_dq(%{{.*}}, %[[FL]]) :

// Vulkan: the same lists, one thread a workgroup; no pack.
// VK-LABEL: func.func private @grad_dispatch_0_live_query_blocks
// VK-SAME: memref<1x4x4x7xi32>
// VK-SAME: ejk.grid = array<i64: 4, 4, 1>
// VK-SAME: ejk.workgroup_size = array<i64: 1, 1, 1>
// VK-LABEL: func.func private @grad_dispatch_0_live_blocks
// VK-SAME: memref<1x4x3x9xi32>
// VK-SAME: ejk.grid = array<i64: 3, 4, 1>
// VK-SAME: ejk.workgroup_size = array<i64: 1, 1, 1>
// The dQ pass: the list loop carries the thread's dQ accumulators.
// VK-LABEL: func.func private @grad_dispatch_0_dq
// VK-SAME: %[[QL:[^:]*]]: memref<1x4x3x9xi32>)
// VK: %[[COUNT:.*]] = memref.load %[[QL]][%c0, %{{.*}}, %{{.*}}, %c0]
// VK: %[[N:.*]] = arith.index_cast %[[COUNT]] : i32 to index
// VK: scf.for %{{.*}} = %c0 to %[[N]] step %c1 iter_args
// The dK/dV pass: per query head, its key block's transposed list, carrying
// the dK and dV accumulators.
// VK-LABEL: func.func private @grad_dispatch_0(
// VK-SAME: %[[KL:[^:]*]]: memref<1x4x4x7xi32>)
// VK: %[[KCOUNT:.*]] = memref.load %[[KL]][%c0, %{{.*}}, %{{.*}}, %c0]
// VK: %[[NK:.*]] = arith.index_cast %[[KCOUNT]] : i32 to index
// VK: scf.for %{{.*}} = %c0 to %[[NK]] step %c1 iter_args
// VK-LABEL: func.func @grad
// VK: ejk.dispatch @grad_dispatch_0_live_query_blocks(%{{.*}}, %[[TL:.*]]) :
// VK: ejk.dispatch @grad_dispatch_0_live_blocks(%{{.*}}, %[[FL:.*]]) :
// VK: ejk.dispatch @grad_dispatch_0_delta
// VK: ejk.dispatch @grad_dispatch_0(%{{.*}}, %[[TL]]) :
// VK: ejk.dispatch @grad_dispatch_0_dq(%{{.*}}, %[[FL]]) :
