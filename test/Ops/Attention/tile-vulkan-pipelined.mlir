// The register softmax's pipelined P V and causal block skip
// (CoopKernel.cpp; VulkanAttentionLayout::pipelined, causalSkip) on a device
// with NVIDIA's matrix layout and 48 KiB of shared memory.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// d128, 128 x 64 x 8 (one K/V buffer): the loop carries the previous
// block's P (4 A matrices) beside O, m and l. Each iteration stages K of
// block kb and V of block kb - 1, then loads K of kb + 1 and V of kb
// (seq_k is 4 whole blocks: no test per row; the block index clamped to
// the last block, 3; each thread's 4 words of a block at one address plus
// steps of 16 rows of 2 heads of 16 words); the previous block's P V
// runs before this block's softmax (the first products of each O tile take
// the carried P and O), and O is rescaled after it. The loop runs two
// blocks an iteration (kb, then kb + 1), then the odd block in a uniform
// branch. After that the last block's V is staged and its P V added.
// CHECK-LABEL: func.func private @pipelined_dispatch_0
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: %[[PAIRS:.*]] = arith.divui %[[SPAN:.*]], %[[TWO:c2[_0-9]*]] : index
// CHECK: %[[LOOP:.*]]:24 = scf.for %[[KB:arg[0-9]+]] = %{{.*}} to %[[END:.*]] step %[[TWO]]
// CHECK-SAME: f32, f32, f32, f32, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">, vector<4xi32>
// CHECK: memref.store %arg{{[0-9]+}}, %{{.*}} : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[NEXT:.*]] = arith.addi %[[KB]], %c1{{.*}} : index
// CHECK: %[[KCLAMP:.*]] = arith.minsi %[[NEXT]], %c3{{.*}} : index
// CHECK: arith.muli %[[KCLAMP]], %c64{{.*}} : index
// CHECK: memref.load %{{.*}}[%[[KAT:.*]]] : memref<8192xvector<4xi32>>
// CHECK-NOT: arith.select
// CHECK: arith.addi %[[KAT]], %c512{{.*}} : index
// CHECK: %[[PREV:.*]] = arith.subi %[[NEXT]], %c1{{.*}} : index
// CHECK: arith.minsi %[[PREV]], %c3{{.*}} : index
// CHECK: gpu.subgroup_mma_compute %arg{{[0-9]+}}, %{{[0-9]+}}, %arg{{[0-9]+}} : !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: math.exp2
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.barrier
// CHECK: %[[KB1:.*]] = arith.addi %[[KB]], %c1{{.*}} : index
// CHECK: gpu.barrier
// CHECK: arith.addi %[[KB1]], %c1{{.*}} : index
// CHECK: math.exp2
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: %[[ODD:.*]] = arith.cmpi ult, %[[END]], %{{.*}} : index
// CHECK-NEXT: %[[LAST:.*]]:24 = scf.if %[[ODD]]
// CHECK: math.exp2
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[LOOP]]#0,
// CHECK: memref.store %[[LAST]]#20, %{{.*}} : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_compute %[[LAST]]#12, %{{.*}}, %[[LAST]]#0
func.func @pipelined(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}

// -----

// Causal d64: the heuristic's 128 x 64 blocks of 4 subgroups with two row
// tiles each, pipelined. A block whose first key lies past the diagonal of
// the subgroup's last row (kb * 64 > its last row + 0, seq_q = seq_k) skips
// the products and the softmax: only the previous block's P V runs and P
// becomes zero.
// CHECK-LABEL: func.func private @causal_skip_dispatch_0
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK: scf.for %[[KB:arg[0-9]+]] = {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, f32, f32, f32, f32, !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: %[[LAST:.*]] = arith.addi %{{.*}}, %c15 : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[KB]], %c64{{.*}} : index
// CHECK: %[[DIAG:.*]] = arith.addi %[[LAST]], %c0{{.*}} : index
// CHECK: %[[HIDDEN:.*]] = arith.cmpi sgt, %[[FIRST]], %[[DIAG]] : index
// CHECK: scf.if %[[HIDDEN]] -> (
// CHECK-NOT: math.exp2
// CHECK: gpu.subgroup_mma_compute %arg{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}
// CHECK: %[[ZERO:.*]] = gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NEXT: scf.yield {{.*}}, %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] :
// CHECK: } else {
// CHECK: math.exp2
func.func @causal_skip(%q: tensor<1x256x2x64xf16>, %k: tensor<1x256x2x64xf16>, %v: tensor<1x256x2x64xf16>) -> tensor<1x256x2x64xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16>, tensor<1x256x2x64xf16> -> tensor<1x256x2x64xf16>
  return %o : tensor<1x256x2x64xf16>
}

// -----

// Causal d128 (128 x 64 x 8, one row tile a subgroup): neither pipelined
// (it was slower there on the H200) nor skipped: the loop carries O, m, l
// and the prefetched words only, and P V follows the softmax; two blocks
// an iteration. Q's 8 A matrices are loaded from the buffer's 16-byte view
// (rows 2 heads of 16 words apart), not staged: one barrier before the
// layout probe's read, none more before the loop.
// CHECK-LABEL: func.func private @causal_one_tile_dispatch_0
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 32 : index} : memref<8192xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NOT: memref.store {{.*}} : memref<2176xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: scf.for {{.*}} step %c2{{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, f32, f32, f32, f32, vector<4xi32>
// CHECK-NOT: arith.cmpi sgt
// CHECK: math.exp2
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: math.exp2
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @causal_one_tile(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}

// -----

// seq_k 200 is not a whole number of 64-key blocks: every K/V row keeps
// its bound test (zeros past seq_k: a select of the loaded words).
// CHECK-LABEL: func.func private @partial_blocks_dispatch_0
// CHECK: scf.for
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %c200{{.*}} : index
// CHECK: arith.minsi %{{.*}}, %c199{{.*}} : index
// CHECK: %[[WORD:.*]] = memref.load
// CHECK: arith.select %[[VALID]], %[[WORD]], %{{.*}} : vector<4xi32>
func.func @partial_blocks(%q: tensor<1x256x2x128xf16>, %k: tensor<1x200x2x128xf16>, %v: tensor<1x200x2x128xf16>) -> tensor<1x256x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x256x2x128xf16>, tensor<1x200x2x128xf16>, tensor<1x200x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}

// -----

// Non-causal, normalized (the lazy rescale, d128 128 x 64 x 8): each row
// keeps its max unless its own block max grew past it by more than 8
// (log2 units): the row's new max is selected by its own verdict (not the
// subgroup's), so a kept max gives alpha exp2(0) = 1 without a select on
// the vote; the rows' verdicts are combined over the subgroup (xor 16, 8,
// 4: the four lanes of a row agree) only to decide whether O's 8 tiles are
// rescaled, inside the branch.
// CHECK-LABEL: func.func private @lazy_rescale_dispatch_0
// CHECK: scf.for
// CHECK: %[[EIGHT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[BOUND:.*]] = arith.addf %[[M0:arg[0-9]+]], %[[EIGHT]] : f32
// CHECK-NEXT: %[[PAST:.*]] = arith.cmpf ogt, %[[MAX0:.*]], %[[BOUND]] : f32
// CHECK: %[[EIGHT1:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[BOUND1:.*]] = arith.addf %[[M1:arg[0-9]+]], %[[EIGHT1]] : f32
// CHECK-NEXT: %[[PAST1:.*]] = arith.cmpf ogt, %[[MAX1:.*]], %[[BOUND1]] : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[RESCALE:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.select %[[PAST]], %[[MAX0]], %[[M0]] : f32
// CHECK-NEXT: arith.select %[[PAST1]], %[[MAX1]], %[[M1]] : f32
// CHECK: math.exp2
// CHECK-NOT: arith.select %[[RESCALE]]
// CHECK: %[[O:.*]]:8 = scf.if %[[RESCALE]] -> (!gpu.mma_matrix<16x16xf32, "COp">
// CHECK-COUNT-8: gpu.subgroup_mma_elementwise  mulf
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield
// CHECK: gpu.barrier
// CHECK: arith.addi %arg{{[0-9]+}}, %c1{{.*}} : index
// CHECK: math.exp2
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @lazy_rescale(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> tensor<1x256x2x128xf16> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}

// -----

// normalize_output = false returns O relative to the exact row max: no
// lazy rescale (O is rescaled in every block, outside any branch).
// CHECK-LABEL: func.func private @unnormalized_dispatch_0
// CHECK: scf.for
// CHECK-NOT: arith.constant 8.000000e+00 : f32
// CHECK-NOT: scf.if {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">
// CHECK: math.exp2
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.barrier
// CHECK: arith.addi %arg{{[0-9]+}}, %c1{{.*}} : index
// CHECK: math.exp2
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
func.func @unnormalized(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>) -> (tensor<1x256x2x128xf16>, tensor<1x2x256xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v {normalize_output = false} : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16> -> tensor<1x256x2x128xf16>, tensor<1x2x256xf32>
  return %o, %lse : tensor<1x256x2x128xf16>, tensor<1x2x256xf32>
}
