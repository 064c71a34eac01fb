// The kernels' structure under issue 16's options: sinks seed the row
// state, variable lengths bound the key-block range, an unnormalized
// output is stored without the division, and on Vulkan such ops take the
// portable kernel even where cooperative matrices would run the plain op.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefix=CPU
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=VULKAN

// The host kernel with per-head sinks, both lengths, bottom-right causal,
// unnormalized.
// CPU-LABEL: func.func private @varlen_dispatch_0(
// CPU-SAME: %[[Q:[^:]*]]: memref<3x40x4x32xf32>, %{{.*}}: memref<3x60x2x32xf32>, %{{.*}}: memref<3x60x2x32xf32>, %[[SINKS:[^:]*]]: memref<4x2xf32>, %[[CUMQ:[^:]*]]: memref<4xi32>, %[[CUMK:[^:]*]]: memref<4xi32>, %[[OUT:[^:]*]]: memref<3x40x4x32xf32>
// The batch's lengths, read once and clamped to [0, seq].
// CPU: %[[BATCH:.*]] = ejk.workgroup_id 2
// CPU: %[[ROWS:.*]] = arith.minsi %{{.*}}, %c16 : index
// CPU: memref.load %[[CUMQ]][%[[BATCH]]] : memref<4xi32>
// CPU: %[[LQ0:.*]] = arith.maxsi %{{.*}}, %c0 : index
// CPU: %[[LQ:.*]] = arith.minsi %[[LQ0]], %c40 : index
// CPU: memref.load %[[CUMK]][%[[BATCH]]] : memref<4xi32>
// CPU: %[[LK0:.*]] = arith.maxsi %{{.*}}, %c0 : index
// CPU: %[[LK:.*]] = arith.minsi %[[LK0]], %c60 : index
// The bottom-right anchor of this batch: len_k - len_q.
// CPU: %[[OFF:.*]] = arith.subi %[[LK]], %[[LQ]] : index
// Each row starts from its head's sinks: m = max, l = sum exp(sink - m).
// CPU: scf.for
// CPU: memref.load %[[SINKS]][%{{.*}}, %{{.*}}] : memref<4x2xf32>
// CPU: arith.maxnumf
// CPU: memref.load %[[SINKS]][%{{.*}}, %{{.*}}] : memref<4x2xf32>
// CPU: math.exp
// The key range ends at min(len_k, last row + offset + 1), and is empty
// when the rows start past len_q.
// CPU: arith.addi %{{.*}}, %[[OFF]] : index
// CPU: %[[HI:.*]] = arith.minsi %[[LK]], %{{.*}} : index
// CPU: %[[PAST:.*]] = arith.cmpi sge, %{{.*}}, %[[LQ]] : index
// CPU: arith.select %[[PAST]], %c0, %[[HI]] : index
// Unnormalized: O goes to the output as it is.
// CPU: scf.for %{{.*}} = %c0 to %[[ROWS]] step %c1 {
// CPU: %[[O:.*]] = vector.load %{{.*}}[%{{.*}}, %c0] : memref<16x32xf32>, vector<8xf32>
// CPU-NEXT: vector.store %[[O]], %[[OUT]]
func.func @varlen(%q: tensor<3x40x4x32xf32>, %k: tensor<3x60x2x32xf32>, %v: tensor<3x60x2x32xf32>, %s: tensor<4x2xf32>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<3x40x4x32xf32> {
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<4x2xf32>) cum_seqlens_q(%cq : tensor<4xi32>) cum_seqlens_k(%ck : tensor<4xi32>) {causal, mask_alignment = "bottom_right", normalize_output = false, config = #ejk.config<block_q = 16, block_k = 16>} : tensor<3x40x4x32xf32>, tensor<3x60x2x32xf32>, tensor<3x60x2x32xf32> -> tensor<3x40x4x32xf32>
  return %o : tensor<3x40x4x32xf32>
}

// -----

// On Vulkan, f16 with sinks and a padding mask runs on cooperative
// matrices: the row state starts from the sinks (m = their max, in log2
// units for the register softmax's exp2, l = the sum of exp(sink - m) on the
// first of a row's four lanes only: in the register softmax a lane's l is
// its share of the row), the key loop carries them,
// and the padding mask is read for the row and the key.
// VULKAN-LABEL: func.func private @sinks_f16_dispatch_0(
// VULKAN-SAME: %{{.*}}: memref<4x2xf16>, %[[PAD:[^:]*]]: memref<1x128xi1>
// VULKAN-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// VULKAN: gpu.subgroup_mma_load_matrix
// VULKAN: %[[MAX:.*]] = scf.for {{.*}} -> (f32) {
// VULKAN: memref.load %{{.*}} : memref<4x2xf16>
// VULKAN: arith.maxnumf
// VULKAN: %[[SUM:.*]] = scf.for {{.*}} -> (f32) {
// VULKAN: math.exp
// VULKAN: %[[M0:.*]] = arith.mulf %[[MAX]], %cst{{.*}} : f32
// VULKAN: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
// VULKAN: %[[L0:.*]] = arith.select %[[FIRST]], %[[SUM]], %{{.*}} : f32
// VULKAN: scf.for {{.*}} iter_args({{.*}} = %[[M0]], {{.*}} = %[[M0]], {{.*}} = %[[L0]], {{.*}} = %[[L0]],
// VULKAN: memref.load %[[PAD]][%{{.*}}, %{{.*}}] : memref<1x128xi1>
// VULKAN: memref.load %[[PAD]][%{{.*}}, %{{.*}}] : memref<1x128xi1>
// VULKAN: gpu.subgroup_mma_compute
func.func @sinks_f16(%q: tensor<1x128x4x64xf16>, %k: tensor<1x128x4x64xf16>, %v: tensor<1x128x4x64xf16>, %s: tensor<4x2xf16>, %p: tensor<1x128xi1>) -> tensor<1x128x4x64xf16> {
  %o = ejk.flash_attention %q, %k, %v softmax_aux(%s : tensor<4x2xf16>) padding_mask(%p : tensor<1x128xi1>) {causal} : tensor<1x128x4x64xf16>, tensor<1x128x4x64xf16>, tensor<1x128x4x64xf16> -> tensor<1x128x4x64xf16>
  return %o : tensor<1x128x4x64xf16>
}

// -----

// The same op without the options runs on cooperative matrices.
// VULKAN-LABEL: func.func private @plain_f16_dispatch_0(
// VULKAN-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// VULKAN: gpu.subgroup_mma_load_matrix
func.func @plain_f16(%q: tensor<1x128x4x64xf16>, %k: tensor<1x128x4x64xf16>, %v: tensor<1x128x4x64xf16>) -> tensor<1x128x4x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x128x4x64xf16>, tensor<1x128x4x64xf16>, tensor<1x128x4x64xf16> -> tensor<1x128x4x64xf16>
  return %o : tensor<1x128x4x64xf16>
}

// -----

// normalize_output = false on cooperative matrices: O leaves without the
// division by l (the normalized op divides once per row).
// VULKAN-LABEL: func.func private @unnormalized_f16_dispatch_0(
// VULKAN-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// VULKAN: gpu.subgroup_mma_compute
// VULKAN-NOT: arith.divf
// VULKAN: return
// VULKAN-LABEL: func.func private @normalized_f16_dispatch_0(
// VULKAN: gpu.subgroup_mma_compute
// VULKAN: arith.divf
// VULKAN: return
func.func @unnormalized_f16(%q: tensor<1x128x4x64xf16>, %k: tensor<1x128x4x64xf16>, %v: tensor<1x128x4x64xf16>) -> tensor<1x128x4x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal, normalize_output = false} : tensor<1x128x4x64xf16>, tensor<1x128x4x64xf16>, tensor<1x128x4x64xf16> -> tensor<1x128x4x64xf16>
  return %o : tensor<1x128x4x64xf16>
}
func.func @normalized_f16(%q: tensor<1x128x4x64xf16>, %k: tensor<1x128x4x64xf16>, %v: tensor<1x128x4x64xf16>) -> tensor<1x128x4x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x128x4x64xf16>, tensor<1x128x4x64xf16>, tensor<1x128x4x64xf16> -> tensor<1x128x4x64xf16>
  return %o : tensor<1x128x4x64xf16>
}
