// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// flash_attention_grad with the forward's padding mask and cumulative
// lengths stays on cooperative matrices (issue 16: no fallback to the
// portable path): both passes take the mask and the lengths, read this
// batch's lengths, and mask scores by padding (Scores.h); the dK/dV pass
// visits no query block for a key block at or past len_k.

// CHECK-LABEL: func.func private @grad_dispatch_0_dq
// CHECK-SAME: %[[PAD:[^:]*]]: memref<3x100xi1>, %[[CQ:[^:]*]]: memref<4xi32>, %[[CK:[^:]*]]: memref<4xi32>
// CHECK-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// CHECK: memref.load %[[CQ]]
// CHECK: memref.load %[[CK]]
// CHECK: gpu.subgroup_mma_compute
// CHECK: memref.load %[[PAD]]

// CHECK-LABEL: func.func private @grad_dispatch_0(
// CHECK-SAME: %[[PAD2:[^:]*]]: memref<3x100xi1>, %[[CQ2:[^:]*]]: memref<4xi32>, %[[CK2:[^:]*]]: memref<4xi32>
// CHECK-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// CHECK: memref.load %[[CQ2]]
// CHECK: memref.load %[[CK2]]
// CHECK: %[[PAST:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK: arith.select %[[PAST]], %c-1, %{{.*}} : index
// CHECK: gpu.subgroup_mma_compute
// CHECK: memref.load %[[PAD2]]
func.func @grad(%q: tensor<3x100x4x64xf16>, %k: tensor<3x100x2x64xf16>, %v: tensor<3x100x2x64xf16>,
                %o: tensor<3x100x4x64xf16>, %do: tensor<3x100x4x64xf16>, %lse: tensor<3x4x100xf32>,
                %pad: tensor<3x100xi1>, %cq: tensor<4xi32>, %ck: tensor<4xi32>)
    -> (tensor<3x100x4x64xf16>, tensor<3x100x2x64xf16>, tensor<3x100x2x64xf16>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse
      padding_mask(%pad : tensor<3x100xi1>) cum_seqlens_q(%cq : tensor<4xi32>) cum_seqlens_k(%ck : tensor<4xi32>)
      {causal, mask_alignment = "bottom_right"}
      : tensor<3x100x4x64xf16>, tensor<3x100x2x64xf16>, tensor<3x100x2x64xf16>,
        tensor<3x100x4x64xf16>, tensor<3x100x4x64xf16>, tensor<3x4x100xf32>
      -> tensor<3x100x4x64xf16>, tensor<3x100x2x64xf16>, tensor<3x100x2x64xf16>
  return %dq, %dk, %dv : tensor<3x100x4x64xf16>, tensor<3x100x2x64xf16>, tensor<3x100x2x64xf16>
}
