// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan subgroup-size=32 shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// The split SSD scan (split_l), with explicit configs: the heuristic runs
// one pass (the split was slower on the H100, Rules.cpp); the tuner tries
// the split. Three dispatches: the end states of all splits but the last,
// the scores, the scan carrying the earlier splits' states in.

// ssd, mamba2's shape with the NVIDIA heuristic's blocks (chunks of 64,
// head_dim blocks of 16, n-chunks of 32, 8 subgroups) and the split the
// tuner tries (the heuristic itself runs one pass: Rules.cpp).
// The scores pre-pass: grid [chunks, groups, batch]; C B^T (64 x 64) on
// 4 x 4 accumulators per thread over n-chunks of staged C and B (64 x 33).
// CHECK-LABEL: func.func private @ssd_dispatch_0_scores
// CHECK-SAME: memref<1x1x32x64x64xf32>
// CHECK-SAME: ejk.grid = array<i64: 32, 1, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 16896 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK-COUNT-2: memref.alloc() : memref<2112xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for {{.*}} step %c32{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: gpu.barrier
// CHECK: math.fma
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<1x1x32x64x64xf32>
// The scan: the sequence split in 4 (split_l = 512, 8 chunks each), grid
// [4, 32 x 4, 1].
// Shared memory: St (128 x 16), X (64 x 16), M (64 x 65, padded), the C and
// B n-chunks (64 x 33 each) and four 64-vectors: 46848 bytes.
// CHECK-LABEL: func.func private @ssd_dispatch_0(
// CHECK-SAME: memref<1x1x32x64x64xf32>
// CHECK-SAME: ejk.grid = array<i64: 4, 128, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 46848 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<4160xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<2112xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// The split's chunks in order; dt and X staged, then the decays.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{.*}} iter_args
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.barrier
// M = the chunk's scores weighted by the decays, causal.
// CHECK: memref.load %{{.*}} : memref<1x1x32x64x64xf32>
// CHECK: arith.cmpi sle
// n-chunks of 32 carry the 2 x 2 C St accumulators.
// CHECK: scf.for {{.*}} step %c32{{.*}} -> (f32, f32, f32, f32)
// CHECK: gpu.barrier
// CHECK: math.fma
// CHECK: gpu.barrier
// The state update of the n-chunk: 2 accumulators over the chunk's steps.
// CHECK: math.exp
// CHECK: scf.for {{.*}} -> (f32, f32)
// CHECK: gpu.barrier
// Y = exp(a) C St + M X.
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32)
// CHECK: memref.store %{{.*}} : memref<1x2048x32x64xf32>
// CHECK: gpu.barrier
// The final state, n fastest (the last split).
// CHECK: arith.cmpi eq, %{{.*}}, %c3
// CHECK: memref.store %{{.*}} : memref<1x32x64x128xf32>
// The entry allocates the split temporaries and the scores and runs the
// three dispatches.
// CHECK-LABEL: func.func @ssd(
// CHECK: memref.alloc() {{.*}} : memref<1x3x32x64x128xf32>
// CHECK: ejk.dispatch @ssd_dispatch_0_states
// CHECK: %[[SCORES:.*]] = memref.alloc() {{.*}} : memref<1x1x32x64x64xf32>
// CHECK: ejk.dispatch @ssd_dispatch_0_scores(%{{.*}}, %{{.*}}, %[[SCORES]])
// CHECK: ejk.dispatch @ssd_dispatch_0({{.*}}, %[[SCORES]])
// CHECK: memref.dealloc %[[SCORES]]
func.func @ssd(%x: tensor<1x2048x32x64xf32>, %dt: tensor<1x2048x32xf32>, %A: tensor<32xf32>, %B: tensor<1x2048x1x128xf32>, %s0: tensor<1x32x64x128xf32>) -> (tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>) {
  %y, %s = ejk.ssd %x, %dt, %A, %B, %B initial_state(%s0 : tensor<1x32x64x128xf32>) {dt_softplus, config = #ejk.config<block_n = 32, block_p = 16, chunk_size = 64, num_subgroups = 8, split_l = 512>} : tensor<1x2048x32x64xf32>, tensor<1x2048x32xf32>, tensor<32xf32>, tensor<1x2048x1x128xf32>, tensor<1x2048x1x128xf32> -> tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>
  return %y, %s : tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>
}

// -----

// The split SSD on a small problem (2 head_dim blocks x 4 heads): chunks
// of 64, splits of one chunk: 4 splits of L = 200. First the end state and
// log decay of splits 0-2 (grid y = heads x 3), from zero, without C, M or
// outputs (4 * (1024 + 512 + 64 * 33 + 4 * 64) = 15616 bytes).
// CHECK-LABEL: func.func private @ssd_split_dispatch_0_states
// CHECK-SAME: memref<1x3x4x32x32xf32>, %{{.*}}: memref<1x3x4xf32>
// CHECK-SAME: ejk.grid = array<i64: 2, 12, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 15616 : i64
// CHECK: %[[Y:.*]] = ejk.workgroup_id 1
// CHECK: arith.remui %[[Y]], %c4
// CHECK: %[[SPLIT:.*]] = arith.divui %[[Y]], %c4
// CHECK-NOT: memref<4160xf32
// The split's chunks, summing A * dt (the log decay).
// CHECK: %[[FIRST:.*]] = arith.muli %[[SPLIT]], %c1
// CHECK: %[[LOG:.*]] = scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (f32)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NEXT: scf.yield
// CHECK: memref.store %{{.*}} : memref<1x3x4x32x32xf32>
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[LOG]], %{{.*}} : memref<1x3x4xf32>
// The scan of one split: the state carried over the earlier splits.
// CHECK-LABEL: func.func private @ssd_split_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 16, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 40704 : i64
// CHECK: %[[SY:.*]] = ejk.workgroup_id 1
// CHECK: %[[SSPLIT:.*]] = arith.divui %[[SY]], %c4
// CHECK: memref.load %{{.*}} : memref<1x4x32x32xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %[[SSPLIT]] step %c1 iter_args({{.*}}) -> (f32)
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[K]], %{{.*}}] : memref<1x3x4xf32>
// CHECK: math.exp
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x3x4x32x32xf32>
// CHECK: math.fma
// Only the last split stores final_state.
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[SSPLIT]], %c3
// CHECK: scf.if %[[LAST]]
// CHECK: memref.store %{{.*}} : memref<1x4x32x32xf32>
// The entry: the states, the scores, then the scan with both.
// CHECK-LABEL: func.func @ssd_split(
// CHECK: %[[ENDS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x3x4x32x32xf32>
// CHECK: %[[LOGS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x3x4xf32>
// CHECK: ejk.dispatch @ssd_split_dispatch_0_states({{.*}}, %[[ENDS]], %[[LOGS]])
// CHECK: %[[SCORES:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x4x64x64xf32>
// CHECK: ejk.dispatch @ssd_split_dispatch_0_scores({{.*}}, %[[SCORES]])
// CHECK: ejk.dispatch @ssd_split_dispatch_0({{.*}}, %[[ENDS]], %[[LOGS]], %[[SCORES]])
func.func @ssd_split(%x: tensor<1x200x4x32xf32>, %dt: tensor<1x200x4xf32>, %A: tensor<4xf32>, %B: tensor<1x200x1x32xf32>, %s0: tensor<1x4x32x32xf32>) -> (tensor<1x200x4x32xf32>, tensor<1x4x32x32xf32>) {
  %y, %s = ejk.ssd %x, %dt, %A, %B, %B initial_state(%s0 : tensor<1x4x32x32xf32>) {dt_softplus, config = #ejk.config<block_n = 32, block_p = 16, chunk_size = 64, num_subgroups = 8, split_l = 64>} : tensor<1x200x4x32xf32>, tensor<1x200x4xf32>, tensor<4xf32>, tensor<1x200x1x32xf32>, tensor<1x200x1x32xf32> -> tensor<1x200x4x32xf32>, tensor<1x4x32x32xf32>
  return %y, %s : tensor<1x200x4x32xf32>, tensor<1x4x32x32xf32>
}
