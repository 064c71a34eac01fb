// RUN: ejk-opt %s -ejk-select-configs="target=vulkan subgroup-size=32 shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// The channel-lanes scan (`channel_lanes = 1`) on mamba1's shape: a lane =
// a channel with its 16 states, 32 channels a workgroup (64 blocks), 16
// splits of 128 steps in two dispatches, no shared memory, no barrier, no
// shuffle. The states dispatch (splits 0-14) fetches B alone as 16-byte
// words (4 a step) in groups of 2 steps: its loop carries 16 states, the
// step sum and 2 x (delta, u, 4 words); per step 4 exp2 by the polynomial
// (the exponent shifted in) and 12 by math.exp2; it stores 16 end states
// and the sum. The scan folds the earlier splits' end states (a loop whose
// 16 exp2 decay the carried state, the next split's 17 values fetched
// ahead), then walks its split with B and C as words (2 x (2 + 8) values
// carried) and stores y inside an scf.if per step.
// CHECK-LABEL: func.func private @channels_dispatch_0_states(
// CHECK-SAME: memref<1x15x2048x16xf32>, %{{.*}}: memref<1x15x2048xf32>)
// CHECK-SAME: ejk.grid = array<i64: 64, 1, 15>
// CHECK-SAME: ejk.shared_memory_bytes = 0 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 32, 1, 1>
// CHECK-NOT: memref.alloc
// CHECK: %[[BW:.*]] = builtin.unrealized_conversion_cast %arg3 : memref<1x2048x1x16xf32> to memref<8192xvector<4xi32>>
// CHECK-NOT: unrealized_conversion_cast
// CHECK: %{{.*}}:29 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2{{.*}} iter_args(
// CHECK-COUNT-8: memref.load %[[BW]]
// CHECK-NOT: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-4: arith.shli %{{.*}}, %c23_i32{{.*}} : i32
// CHECK-NOT: arith.shli
// CHECK-COUNT-12: math.exp2
// CHECK-COUNT-4: arith.shli %{{.*}}, %c23_i32{{.*}} : i32
// CHECK-NOT: arith.shli
// CHECK-COUNT-12: math.exp2
// CHECK: scf.yield
// CHECK: scf.if
// CHECK-COUNT-16: memref.store %{{.*}}, %arg4[
// CHECK: memref.store %{{.*}}, %arg5[
// CHECK-LABEL: func.func private @channels_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 64, 1, 16>
// CHECK-SAME: ejk.shared_memory_bytes = 0 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 32, 1, 1>
// CHECK-NOT: memref.alloc
// CHECK: %[[BW2:.*]] = builtin.unrealized_conversion_cast %arg3 : memref<1x2048x1x16xf32> to memref<8192xvector<4xi32>>
// CHECK: %[[CW2:.*]] = builtin.unrealized_conversion_cast %arg4 : memref<1x2048x1x16xf32> to memref<8192xvector<4xi32>>
// CHECK: %[[FOLD:.*]]:33 = scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c1{{.*}} iter_args(
// CHECK-COUNT-16: memref.load %arg7[
// CHECK-COUNT-16: math.exp2
// CHECK: scf.yield
// CHECK: %{{.*}}:36 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2{{.*}} iter_args(%{{.*}} = %[[FOLD]]#0,
// CHECK-NOT: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-4: arith.shli %{{.*}}, %c23_i32{{.*}} : i32
// CHECK-COUNT-12: math.exp2
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %arg6[
// CHECK-COUNT-4: arith.shli %{{.*}}, %c23_i32{{.*}} : i32
// CHECK-COUNT-12: math.exp2
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %arg6[
// CHECK: scf.yield
// CHECK-NOT: gpu.barrier
// CHECK-LABEL: func.func @channels(
// CHECK: ejk.dispatch @channels_dispatch_0_states(
// CHECK: ejk.dispatch @channels_dispatch_0(
func.func @channels(%u: tensor<1x2048x2048xf32>, %delta: tensor<1x2048x2048xf32>, %A: tensor<2048x16xf32>, %B: tensor<1x2048x1x16xf32>, %C: tensor<1x2048x1x16xf32>, %D: tensor<2048xf32>) -> tensor<1x2048x2048xf32> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<2048xf32>) {delta_softplus, config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 2, poly_exp = 4, split_l = 128>}
      : tensor<1x2048x2048xf32>, tensor<1x2048x2048xf32>, tensor<2048x16xf32>, tensor<1x2048x1x16xf32>, tensor<1x2048x1x16xf32> -> tensor<1x2048x2048xf32>
  return %y : tensor<1x2048x2048xf32>
}

// `fetch_ahead = 8` (the same shape and splits, groups of 2 steps): delta
// and u of 8 groups (16 steps) are loaded before the loop and carried, B
// (and in the scan C) one group; each iteration loads the group 8 ahead
// (2 steps of delta and u) and the next group's words, and yields the
// queue moved by one group. States loop: 16 states, the step sum, 8 x 2 x
// 2 row values and 2 x 4 B words = 57; scan: 16 + 32 + 2 x 8 = 64.
// CHECK-LABEL: func.func private @ahead_dispatch_0_states(
// CHECK-COUNT-16: memref.load %arg{{[01]}}[
// CHECK-COUNT-8: memref.load %{{.*}} : memref<8192xvector<4xi32>>
// CHECK: %{{.*}}:57 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2{{.*}} iter_args(
// CHECK-COUNT-4: memref.load %arg{{[01]}}[
// CHECK-COUNT-8: memref.load %{{.*}} : memref<8192xvector<4xi32>>
// CHECK-NOT: memref.load %arg{{[01]}}[
// CHECK: scf.yield %{{.*}}, %arg{{[0-9]+}}, %arg{{[0-9]+}},
// CHECK-LABEL: func.func private @ahead_dispatch_0(
// CHECK: %{{.*}}:64 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2{{.*}} iter_args(
func.func @ahead(%u: tensor<1x2048x2048xf32>, %delta: tensor<1x2048x2048xf32>, %A: tensor<2048x16xf32>, %B: tensor<1x2048x1x16xf32>, %C: tensor<1x2048x1x16xf32>, %D: tensor<2048xf32>) -> tensor<1x2048x2048xf32> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<2048xf32>) {delta_softplus, config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 2, fetch_ahead = 8, split_l = 128>}
      : tensor<1x2048x2048xf32>, tensor<1x2048x2048xf32>, tensor<2048x16xf32>, tensor<1x2048x1x16xf32>, tensor<1x2048x1x16xf32> -> tensor<1x2048x2048xf32>
  return %y : tensor<1x2048x2048xf32>
}

// `carry_pass = 1` with 32 splits of 64: a third dispatch between the two,
// one thread per (channel, state) (2048 x 16 / 256 = 128 workgroups), folds
// the 31 end states in order and writes each split's start state over its
// predecessor's slot; the scan loads that slot (split 0: the initial state
// or 0, by a select) instead of folding the splits before it.
// CHECK-LABEL: func.func private @carry_dispatch_0_states(
// CHECK-SAME: ejk.grid = array<i64: 64, 1, 31>
// CHECK-LABEL: func.func private @carry_dispatch_0_carry(
// CHECK-SAME: %{{.*}}: memref<2048x16xf32>, %[[ENDS:.*]]: memref<1x31x2048x16xf32>, %[[SUMS:.*]]: memref<1x31x2048xf32>)
// CHECK-SAME: ejk.grid = array<i64: 128, 1, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 0 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: scf.for %[[K:.*]] = %c0{{.*}} to %c31 step %c1{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: memref.load %[[SUMS]]
// CHECK: memref.load %[[ENDS]]
// CHECK: math.exp2
// CHECK: math.fma
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[ENDS]][%{{.*}}, %[[K]], %{{.*}}, %{{.*}}]
// CHECK-LABEL: func.func private @carry_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 64, 1, 32>
// CHECK-COUNT-16: arith.select
// CHECK-NOT: math.exp2
// CHECK: scf.for
// CHECK-LABEL: func.func @carry(
// CHECK: ejk.dispatch @carry_dispatch_0_states(
// CHECK-NEXT: ejk.dispatch @carry_dispatch_0_carry(%arg2, %[[E:.*]], %[[S:.*]]) :
// CHECK-NEXT: ejk.dispatch @carry_dispatch_0(%{{.*}}, %[[E]], %[[S]])
func.func @carry(%u: tensor<1x2048x2048xf32>, %delta: tensor<1x2048x2048xf32>, %A: tensor<2048x16xf32>, %B: tensor<1x2048x1x16xf32>, %C: tensor<1x2048x1x16xf32>, %D: tensor<2048xf32>) -> tensor<1x2048x2048xf32> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<2048xf32>) {delta_softplus, config = #ejk.config<block_d = 32, carry_pass = 1, channel_lanes = 1, chunk_l = 2, split_l = 64>}
      : tensor<1x2048x2048xf32>, tensor<1x2048x2048xf32>, tensor<2048x16xf32>, tensor<1x2048x1x16xf32>, tensor<1x2048x1x16xf32> -> tensor<1x2048x2048xf32>
  return %y : tensor<1x2048x2048xf32>
}
