// RUN: ejk-opt %s -ejk-select-configs="target=vulkan subgroup-size=32 shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// The time-segments scan (`time_segments`) on mamba1's shape: 16 channels
// along the lanes x 2 state groups x 8 segments of 8 steps = 256 threads,
// 128 workgroups. Shared memory: (P, H) of 7 segments twice and the carry
// twice, each block 2 groups of 144 words (8 states x 16 channels padded
// so the second group starts 16 banks on): 4 * (4 * 7 * 288 + 2 * 288) =
// 34560 bytes. The last segment writes the first carry, one barrier, the
// first chunk's B as 16-byte words (2 a step), then the chunk loop carrying
// 8 delta, 8 u, 16 B words and 8 end states: each group's softplus of every
// other step exchanged by 8 shuffle idx, the next chunk's B, 64 exps, the
// (P, H) stores, C as words (16, before the barrier), the chunk's only
// barrier, the fold over the segments before (a loop bounded by the
// segment), the next carry, 8 y sums over the groups (xor 16), the stores.
// CHECK-LABEL: func.func private @segments_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 128, 1, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 34560 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: %[[BW:.*]] = builtin.unrealized_conversion_cast %arg3 : memref<1x2048x1x16xf32> to memref<8192xvector<4xi32>>
// CHECK: %[[CW:.*]] = builtin.unrealized_conversion_cast %arg4 : memref<1x2048x1x16xf32> to memref<8192xvector<4xi32>>
// CHECK: %[[PH:.*]] = memref.alloc() : memref<8064xf32, #gpu.address_space<workgroup>>
// CHECK: %[[CARRY:.*]] = memref.alloc() : memref<576xf32, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK-COUNT-8: memref.store %{{.*}}, %[[CARRY]]
// CHECK: gpu.barrier
// CHECK-COUNT-16: memref.load %[[BW]]
// CHECK: %{{.*}}:40 = scf.for %{{.*}} = %{{.*}} to %c2048{{.*}} step %c64 iter_args(
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: gpu.shuffle  idx
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-16: memref.load %[[BW]]
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-64: math.exp2
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-16: memref.store %{{.*}}, %[[PH]]
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-16: memref.load %[[CW]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-16: memref.load %[[PH]]
// CHECK: scf.yield
// CHECK: scf.if
// CHECK-COUNT-8: memref.store %{{.*}}, %[[CARRY]]
// CHECK-NOT: memref.load %[[CW]]
// CHECK-NOT: gpu.shuffle  idx
// CHECK-COUNT-8: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.barrier
// CHECK-NOT: gpu.shuffle  idx
// CHECK: scf.yield
func.func @segments(%u: tensor<1x2048x2048xf32>, %delta: tensor<1x2048x2048xf32>, %A: tensor<2048x16xf32>, %B: tensor<1x2048x1x16xf32>, %C: tensor<1x2048x1x16xf32>, %D: tensor<2048xf32>) -> tensor<1x2048x2048xf32> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<2048xf32>) {delta_softplus, config = #ejk.config<block_d = 16, chunk_l = 64, state_lanes = 2, time_segments = 8>}
      : tensor<1x2048x2048xf32>, tensor<1x2048x2048xf32>, tensor<2048x16xf32>, tensor<1x2048x1x16xf32>, tensor<1x2048x1x16xf32> -> tensor<1x2048x2048xf32>
  return %y : tensor<1x2048x2048xf32>
}

// f16 B and C (scalar loads, widened), 4 state groups of 4 states, 16
// segments of 4 steps (512 threads), a partial last block of 40 channels
// (grid 5 x 2), a tail chunk; two rounds of the groups' sum (xor 8, 16);
// the loop carries 4 delta, 4 u, 16 f16 B values and 4 end states, and
// the last segment stores the final state after it. Block 4 groups
// of 40 words: 4 * (4 * 15 * 160 + 2 * 160) = 39680 bytes.
// CHECK-LABEL: func.func private @groups4_f16_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 5, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 39680 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 512, 1, 1>
// CHECK-NOT: vector<4xi32>
// CHECK: memref.alloc() : memref<9600xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<320xf32, #gpu.address_space<workgroup>>
// CHECK: %[[LOOP:.*]]:28 = scf.for %{{.*}} = %{{.*}} to %c300 step %c64
// CHECK: memref.load %arg3[{{.*}}] : memref<2x300x2x16xf16>
// CHECK: arith.extf
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: memref.store %[[LOOP]]#24, %arg7
// CHECK: memref.store %[[LOOP]]#27, %arg7
func.func @groups4_f16(%u: tensor<2x300x40xf16>, %delta: tensor<2x300x40xf16>, %A: tensor<40x16xf32>, %B: tensor<2x300x2x16xf16>, %C: tensor<2x300x2x16xf16>, %h0: tensor<2x40x16xf32>) -> (tensor<2x300x40xf16>, tensor<2x40x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C initial_state(%h0 : tensor<2x40x16xf32>) {config = #ejk.config<block_d = 8, chunk_l = 64, state_lanes = 4, time_segments = 16>}
      : tensor<2x300x40xf16>, tensor<2x300x40xf16>, tensor<40x16xf32>, tensor<2x300x2x16xf16>, tensor<2x300x2x16xf16> -> tensor<2x300x40xf16>, tensor<2x40x16xf32>
  return %y, %h : tensor<2x300x40xf16>, tensor<2x40x16xf32>
}

// One segment: no (P, H) blocks and no fold, only the carry (2 x 4 states
// x 8 channels = 64 words); one state group: no shuffles.
// CHECK-LABEL: func.func private @one_segment_dispatch_0(
// CHECK-SAME: ejk.shared_memory_bytes = 256 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 8, 1, 1>
// CHECK: memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK-NOT: scf.for
// CHECK-NOT: gpu.shuffle
// CHECK: return
func.func @one_segment(%u: tensor<1x100x24xf32>, %A: tensor<24x4xf32>, %B: tensor<1x100x1x4xf32>) -> tensor<1x100x24xf32> {
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 8, chunk_l = 8, time_segments = 1>}
      : tensor<1x100x24xf32>, tensor<1x100x24xf32>, tensor<24x4xf32>, tensor<1x100x1x4xf32>, tensor<1x100x1x4xf32> -> tensor<1x100x24xf32>
  return %y : tensor<1x100x24xf32>
}
