// RUN: ejk-opt %s -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// flash_attention_grad on the CPU with the forward's padding mask and
// cumulative lengths (issue 16): causal bottom-right, GQA 4:2, B3 S100.
// Both passes read the lengths (clamped to [0, 100]) and anchor the
// diagonal at len_k - len_q; rows past len_q or padded take lse = +inf;
// keys past len_k or padded are masked; the visited blocks stop at the
// lengths.

// The dQ pass takes the padding mask and both length tensors.
// CHECK-LABEL: func.func private @grad_dispatch_0_dq
// CHECK-SAME: %[[PAD:[^:]*]]: memref<3x100xi1>, %[[CQ:[^:]*]]: memref<4xi32>, %[[CK:[^:]*]]: memref<4xi32>
// CHECK: %[[B:.*]] = ejk.workgroup_id 2
// CHECK: %[[Q0:.*]] = memref.load %[[CQ]][%[[B]]]
// CHECK: %[[Q1:.*]] = memref.load %[[CQ]][%{{.*}}]
// CHECK: %[[DQ:.*]] = arith.subi %[[Q1]], %[[Q0]] : i32
// CHECK: %[[IQ:.*]] = arith.index_cast %[[DQ]]
// CHECK: %[[MQ:.*]] = arith.maxsi %[[IQ]], %c0
// CHECK: %[[LQ:.*]] = arith.minsi %[[MQ]], %c100
// CHECK: memref.load %[[CK]][%[[B]]]
// CHECK: %[[LK:.*]] = arith.minsi %{{.*}}, %c100
// CHECK: %[[OFF:.*]] = arith.subi %[[LK]], %[[LQ]] : index
// Row scalars: lse where the row is within len_q, not padded and saw a key.
// CHECK: %[[LSE:.*]] = memref.load
// CHECK: %[[SEEN:.*]] = arith.cmpf one, %[[LSE]]
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %[[LQ]] : index
// CHECK: %[[V0:.*]] = arith.andi %[[IN]], %[[SEEN]] : i1
// CHECK: %[[P:.*]] = memref.load %[[PAD]]
// CHECK: %[[V:.*]] = arith.andi %[[V0]], %[[P]] : i1
// CHECK: arith.select %[[V]], %[[LSE]], %cst
// Key blocks: up to len_k - 1 and the causal diagonal, none past len_q.
// CHECK: %[[LASTK:.*]] = arith.subi %[[LK]], %c1 : index
// CHECK: arith.minsi %[[LASTK]], %{{.*}}
// CHECK: arith.cmpi sge, %{{.*}}, %[[LQ]] : index
// CHECK: arith.select %{{.*}}, %c-1, %{{.*}} : index
// Lanes: keys below len_k, at or below the row's diagonal, not padded.
// CHECK: %[[LKI:.*]] = arith.index_cast %[[LK]] : index to i32
// CHECK: %[[LKV:.*]] = vector.broadcast %[[LKI]]
// CHECK: arith.cmpi slt, %{{.*}}, %[[LKV]] : vector<8xi32>
// CHECK: arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: arith.cmpi sle
// CHECK: memref.load %[[PAD]]
// CHECK: vector.from_elements {{.*}} : vector<8xi1>
// CHECK: math.exp

// The dK/dV pass: query blocks from the causal diagonal of its first key
// (keyStart - offset), none for a key block at or past len_k, up to len_q.
// CHECK-LABEL: func.func private @grad_dispatch_0(
// CHECK-SAME: memref<3x100xi1>, %[[CQ2:[^:]*]]: memref<4xi32>, %[[CK2:[^:]*]]: memref<4xi32>
// CHECK: memref.load %[[CQ2]]
// CHECK: %[[LQ2:.*]] = arith.minsi %{{.*}}, %c100
// CHECK: memref.load %[[CK2]]
// CHECK: %[[LK2:.*]] = arith.minsi %{{.*}}, %c100
// CHECK: %[[OFF2:.*]] = arith.subi %[[LK2]], %[[LQ2]] : index
// CHECK: %[[KS:.*]] = arith.muli %{{.*}}, %c64 : index
// CHECK: %[[LASTQ:.*]] = arith.subi %[[LQ2]], %c1 : index
// CHECK: %[[FIRST:.*]] = arith.subi %[[KS]], %[[OFF2]] : index
// CHECK: %[[PAST:.*]] = arith.cmpi sge, %[[KS]], %[[LK2]] : index
// CHECK: %[[LAST:.*]] = arith.select %[[PAST]], %c-1, %[[LASTQ]] : index
// CHECK: %[[FROM:.*]] = arith.maxsi %[[FIRST]], %c0 : index
// CHECK: arith.cmpi sle, %[[FROM]], %[[LAST]] : index
func.func @grad(%q: tensor<3x100x4x64xf32>, %k: tensor<3x100x2x64xf32>, %v: tensor<3x100x2x64xf32>,
                %o: tensor<3x100x4x64xf32>, %do: tensor<3x100x4x64xf32>, %lse: tensor<3x4x100xf32>,
                %pad: tensor<3x100xi1>, %cq: tensor<4xi32>, %ck: tensor<4xi32>)
    -> (tensor<3x100x4x64xf32>, tensor<3x100x2x64xf32>, tensor<3x100x2x64xf32>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse
      padding_mask(%pad : tensor<3x100xi1>) cum_seqlens_q(%cq : tensor<4xi32>) cum_seqlens_k(%ck : tensor<4xi32>)
      {causal, mask_alignment = "bottom_right", config = #ejk.config<block_q = 32, block_k = 64, dq_block_q = 16, dq_block_k = 32>}
      : tensor<3x100x4x64xf32>, tensor<3x100x2x64xf32>, tensor<3x100x2x64xf32>,
        tensor<3x100x4x64xf32>, tensor<3x100x4x64xf32>, tensor<3x4x100xf32>
      -> tensor<3x100x4x64xf32>, tensor<3x100x2x64xf32>, tensor<3x100x2x64xf32>
  return %dq, %dk, %dv : tensor<3x100x4x64xf32>, tensor<3x100x2x64xf32>, tensor<3x100x2x64xf32>
}
