// Query blocks a workgroup runs in turn (`row_blocks`, CoopKernel.cpp's
// buildRowBlocks) on a device with NVIDIA's matrix layout, and the
// heuristic's choice of it.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" | FileCheck %s --check-prefix=HEUR

// 300 query rows at block_q 128: 3 query blocks (the last one 44 rows), two
// a workgroup: a grid of 2 groups; group w takes blocks w, w + 2 (group 0:
// 2 turns, group 1: one, (3 + 2 - 1 - w) / 2). seq_k 200 is no whole number
// of 64-key blocks (rows past it load as zeros). The turn loop carries the
// prefetched K/V words (K of the turn's first block; its V rows are zeros)
// and the turn's Q words; each turn stages Q, runs the key loop (two blocks
// an iteration, then the odd one), whose prefetch past the turn's last
// block loads the next turn's first block (the select), then loads the
// next turn's Q rows, adds the last block's P V and writes the output.
// CHECK-LABEL: func.func private @turns_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 2, 4, 1>
// CHECK: %[[GROUP:.*]] = ejk.workgroup_id 0
// CHECK: %[[LEFT:.*]] = arith.subi %c4{{.*}}, %[[GROUP]] : index
// CHECK: %[[TURNS:.*]] = arith.divsi %[[LEFT]], %c2{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.subi %[[TURNS]], %c1{{.*}} : index
// CHECK: scf.for %[[TURN:arg[0-9]+]] = %{{.*}} to %[[TURNS]] step %{{.*}} iter_args({{.*}}) -> (vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>) {
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix
// CHECK: gpu.barrier
// CHECK: %[[HI:.*]] = arith.select %{{.*}}, %{{.*}}, %[[LO:.*]] : index
// CHECK: %[[NEXTTURN:.*]] = arith.addi %[[TURN]], %c1{{.*}} : index
// CHECK: arith.minsi %[[NEXTTURN]], %[[LAST]] : index
// CHECK: %[[WRAP:.*]] = arith.divsi %{{.*}}, %c64{{.*}} : index
// CHECK: %[[PAIRS:.*]]:24 = scf.for %[[KB:arg[0-9]+]] = %[[LO]] to %{{.*}} step %c2
// CHECK: gpu.barrier
// CHECK: %[[NEXT:.*]] = arith.addi %[[KB]], %c1{{.*}} : index
// CHECK: %[[INRANGE:.*]] = arith.cmpi ult, %[[NEXT]], %[[HI]] : index
// CHECK: arith.select %[[INRANGE]], %[[NEXT]], %[[WRAP]] : index
// CHECK: %[[ODD:.*]]:24 = scf.if
// A turn without key blocks loads the next turn's first block itself.
// CHECK: %[[RAN:.*]] = arith.cmpi ult, %[[LO]], %[[HI]] : index
// CHECK: scf.if %[[RAN]] -> (vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>) {
// CHECK: } else {
// CHECK: memref.load
// CHECK: }
// The next turn's Q rows, then the last P V and the output through the stage.
// CHECK: memref.load %{{.*}} : memref<19200xvector<4xi32>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_compute
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<19200xvector<4xi32>>
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @turns(%q: tensor<1x300x4x128xf16>, %k: tensor<1x200x2x128xf16>, %v: tensor<1x200x2x128xf16>) -> tensor<1x300x4x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 8, row_blocks = 2>} : tensor<1x300x4x128xf16>, tensor<1x200x2x128xf16>, tensor<1x200x2x128xf16> -> tensor<1x300x4x128xf16>
  return %o : tensor<1x300x4x128xf16>
}

// -----

// The heuristic: gfa-d128 (B4 S2048 H16 D128, f16, no mask) runs two query
// blocks a workgroup (512 workgroups remain); with a causal mask, in bf16
// (not pipelined) and at head dim 64 (two row tiles a subgroup) one.
// HEUR-LABEL: func.func @gfa_d128
// HEUR: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8, row_blocks = 2>
// HEUR-LABEL: func.func @gfa_d128_causal
// HEUR: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>}
// HEUR-LABEL: func.func @gfa_d128_bf16
// HEUR: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>}
// HEUR-LABEL: func.func @gfa_d64
// HEUR: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 4>}
// Fewer than 512 workgroups would remain: one.
// HEUR-LABEL: func.func @small
// HEUR: config = #ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>}
func.func @gfa_d128(%q: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %q, %q : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}
func.func @gfa_d128_causal(%q: tensor<4x2048x16x128xf16>) -> tensor<4x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %q, %q {causal} : tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> -> tensor<4x2048x16x128xf16>
  return %o : tensor<4x2048x16x128xf16>
}
func.func @gfa_d128_bf16(%q: tensor<4x2048x16x128xbf16>) -> tensor<4x2048x16x128xbf16> {
  %o = ejk.flash_attention %q, %q, %q : tensor<4x2048x16x128xbf16>, tensor<4x2048x16x128xbf16>, tensor<4x2048x16x128xbf16> -> tensor<4x2048x16x128xbf16>
  return %o : tensor<4x2048x16x128xbf16>
}
func.func @gfa_d64(%q: tensor<4x2048x32x64xf16>) -> tensor<4x2048x32x64xf16> {
  %o = ejk.flash_attention %q, %q, %q : tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16>, tensor<4x2048x32x64xf16> -> tensor<4x2048x32x64xf16>
  return %o : tensor<4x2048x32x64xf16>
}
func.func @small(%q: tensor<1x2048x16x128xf16>) -> tensor<1x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16> -> tensor<1x2048x16x128xf16>
  return %o : tensor<1x2048x16x128xf16>
}
