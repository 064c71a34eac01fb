// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan subgroup-size=32 shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan subgroup-size=8" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=LVP

// selective_scan, block_d = 8 channels of 16 threads (d_state 16 <= the
// subgroup of 32): 128 threads, grid [64 / 8, batch]. Shared memory: dt,
// u and y (32 x 8 floats each) and the B and C rows of the one group a
// block touches (32 x 16 each): 4 * (768 + 1024) = 7168 bytes.
// CHECK-LABEL: func.func private @scan_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 8, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 7168 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK: gpu.thread_id{{ +}}x
// CHECK-COUNT-3: memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
// The state and A are per-thread registers, the initial state read once.
// CHECK: memref.load %{{.*}} : memref<2x64x16xf32>
// Chunks of 32 steps carry the thread's one state and the chunk's global
// loads, fetched a chunk ahead (f16: 2 delta, 2 u, 4 B, 4 C, 2 z).
// CHECK: scf.for {{.*}} step %c32{{.*}} iter_args({{.*}}) -> (f32, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f16)
// Staging: f16 widened, softplus, then a barrier.
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: math.log1p
// CHECK: gpu.barrier
// The next chunk's loads go out before this chunk's scan.
// CHECK: memref.load %{{.*}} : memref<2x100x64xf16>
// One exp per element, then C . h over the 16 lanes of a channel.
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: math.exp
// CHECK: math.fma
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK: scf.if
// CHECK: gpu.barrier
// Output: D skip, silu(z), narrowed.
// CHECK: math.fma
// CHECK: math.exp
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<2x64x16xf32>

// Subgroups of 8: 8 threads per channel, two states each.
// LVP-LABEL: func.func private @scan_dispatch_0
// LVP-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
// LVP: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32)
// LVP: gpu.shuffle  xor %{{.*}}, %c4_i32, %c8_i32{{.*}} : f32
// LVP: gpu.shuffle  xor %{{.*}}, %c2_i32, %c8_i32{{.*}} : f32
// LVP: gpu.shuffle  xor %{{.*}}, %c1_i32, %c8_i32{{.*}} : f32
// LVP-NOT: gpu.shuffle
func.func @scan(%u: tensor<2x100x64xf16>, %A: tensor<64x16xf32>, %B: tensor<2x100x2x16xf16>, %D: tensor<64xf32>, %z: tensor<2x100x64xf16>, %h0: tensor<2x64x16xf32>) -> (tensor<2x100x64xf16>, tensor<2x64x16xf32>) {
  %y, %h = ejk.selective_scan %u, %u, %A, %B, %B D(%D : tensor<64xf32>) z(%z : tensor<2x100x64xf16>) initial_state(%h0 : tensor<2x64x16xf32>) {delta_softplus, config = #ejk.config<block_d = 8, chunk_l = 32>} : tensor<2x100x64xf16>, tensor<2x100x64xf16>, tensor<64x16xf32>, tensor<2x100x2x16xf16>, tensor<2x100x2x16xf16> -> tensor<2x100x64xf16>, tensor<2x64x16xf32>
  return %y, %h : tensor<2x100x64xf16>, tensor<2x64x16xf32>
}

// -----

// The split (chunked) scan, as the heuristic picked it (before the
// time-lanes scan, below) when the channels alone give too few threads
// (64 x 16 here): 4 lanes per channel, 32 channels (128 threads), chunks
// of 16, splits of 16 steps: 7 splits of L = 100. Both targets take the
// same config (lanes 4 <= either subgroup).
// First the end state and step sum of every split but the last, from
// zero: grid [2, 1, 6]; dt, u and B staged (4 * (2 * 512 + 256) = 5120
// bytes), no C, no output, no shuffle.
// CHECK-LABEL: func.func private @split_dispatch_0_states
// CHECK-SAME: memref<1x6x64x16xf32>, %{{.*}}: memref<1x6x64xf32>
// CHECK-SAME: ejk.grid = array<i64: 2, 1, 6>
// CHECK-SAME: ejk.shared_memory_bytes = 5120 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// A thread's 4 states are neighbours (4 lanes x 4 = d_state, f32): B is
// loaded and staged as 16-byte words, 4 per step.
// CHECK-COUNT-2: memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.alloc() : memref<64xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// The split's steps from zero, four states and the step sum carried, and
// the chunk's loads fetched ahead (4 delta, 4 u, a word of B: 64 words
// a chunk for 128 threads).
// CHECK: scf.for {{.*}} step %c16{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, vector<4xi32>)
// CHECK: memref.store %{{.*}} : memref<64xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32)
// One word of B per step, its 4 lanes for the 4 states.
// CHECK: memref.load %{{.*}} : memref<64xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.load
// CHECK: vector.extract %{{.*}}[0]
// CHECK-NEXT: arith.bitcast %{{.*}} : i32 to f32
// CHECK: math.exp2
// CHECK: vector.extract %{{.*}}[3]
// CHECK: math.exp2
// CHECK: scf.yield
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-4: memref.store %{{.*}}, %{{.*}} : memref<1x6x64x16xf32>
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}} : memref<1x6x64xf32>
// CHECK: return
// The scan of one split (grid z = 7): the initial state, then the end
// states of the splits before it, each decayed by exp2(sum dt * A log2 e).
// CHECK-LABEL: func.func private @split_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 1, 7>
// CHECK-SAME: ejk.shared_memory_bytes = 8192 : i64
// CHECK: %[[SPLIT:.*]] = ejk.workgroup_id 2
// CHECK: memref.load %{{.*}} : memref<1x64x16xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %[[SPLIT]] step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[K]], %{{.*}}] : memref<1x6x64xf32>
// CHECK: math.exp2
// CHECK: math.fma
// Then its own steps, in chunks of 16 from split * 16 (L = 100 leaves
// a partial last chunk: the trip count is clamped).
// CHECK: %[[BEGIN:.*]] = arith.muli %[[SPLIT]], %c16
// CHECK: scf.for {{.*}} = %[[BEGIN]] to {{.*}} step %c16
// CHECK: arith.minsi
// CHECK: gpu.barrier
// B and C one word each per step.
// CHECK: memref.load %{{.*}} : memref<64xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.load %{{.*}} : memref<64xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// Only the last split stores final_state.
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[SPLIT]], %c6
// CHECK: scf.if %[[LAST]]
// CHECK: memref.store %{{.*}} : memref<1x64x16xf32>
// The entry allocates the two temporaries and runs both dispatches.
// CHECK-LABEL: func.func @split(
// CHECK: %[[ENDS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x6x64x16xf32>
// CHECK: %[[SUMS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x6x64xf32>
// CHECK: ejk.dispatch @split_dispatch_0_states({{.*}}, %[[ENDS]], %[[SUMS]])
// CHECK: ejk.dispatch @split_dispatch_0({{.*}}, %[[ENDS]], %[[SUMS]])
// LVP-LABEL: func.func private @split_dispatch_0_states
// LVP-SAME: ejk.grid = array<i64: 2, 1, 6>
// LVP-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// LVP-LABEL: func.func private @split_dispatch_0(
// LVP: gpu.shuffle  xor %{{.*}}, %c2_i32, %c8_i32{{.*}} : f32
// LVP: gpu.shuffle  xor %{{.*}}, %c1_i32, %c8_i32{{.*}} : f32
// LVP-NEXT: arith.addf
// LVP-NEXT: scf.if
func.func @split(%u: tensor<1x100x64xf32>, %A: tensor<64x16xf32>, %B: tensor<1x100x1x16xf32>, %z: tensor<1x100x64xf32>, %h0: tensor<1x64x16xf32>) -> (tensor<1x100x64xf32>, tensor<1x64x16xf32>) {
  %y, %h = ejk.selective_scan %u, %u, %A, %B, %B z(%z : tensor<1x100x64xf32>) initial_state(%h0 : tensor<1x64x16xf32>) {delta_softplus, config = #ejk.config<block_d = 32, chunk_l = 16, split_l = 16, state_lanes = 4>} : tensor<1x100x64xf32>, tensor<1x100x64xf32>, tensor<64x16xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x64xf32>, tensor<1x64x16xf32>
  return %y, %h : tensor<1x100x64xf32>, tensor<1x64x16xf32>
}

// -----

// Whole chunks (L = 128, splits of 16): every chunk's step loop has the
// constant trip count 16, for the device compiler to unroll.
// CHECK-LABEL: func.func private @whole_dispatch_0(
// CHECK: scf.for {{.*}} step %c16
// CHECK-NOT: arith.minsi %c16
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1
func.func @whole(%u: tensor<1x128x64xf32>, %A: tensor<64x16xf32>, %B: tensor<1x128x1x16xf32>) -> tensor<1x128x64xf32> {
  %y = ejk.selective_scan %u, %u, %A, %B, %B {config = #ejk.config<block_d = 32, chunk_l = 16, split_l = 16, state_lanes = 4>} : tensor<1x128x64xf32>, tensor<1x128x64xf32>, tensor<64x16xf32>, tensor<1x128x1x16xf32>, tensor<1x128x1x16xf32> -> tensor<1x128x64xf32>
  return %y : tensor<1x128x64xf32>
}

// -----

// The time-lanes scan, the heuristic where the channels alone give too few
// threads and d_state fits a thread (64 x 16 here): 16 lanes per channel
// along time, 8 steps each (chunks of 128), two state groups of 8 states
// (32 threads a channel), 16 channels (512 threads): grid [4, 1, 1].
// Stages dt, u (then y) with steps fastest, rows 131 words apart (128
// steps + 3 pads, odd), B and C rows 132 apart (the two groups' loads of a
// step on distinct banks): 4 * (2 * 131 * 16 + 2 * 132 * 16) = 33664
// bytes. The loop carries the thread's 8 states and the next chunk's 20
// loads. Per state, 8 exps (one per step, never again), 4 rounds of two
// shuffles (idx, the lane off before), the lane before's prefix (2), the
// chunk's end state from the segment's last lane (1): 11 x 8 = 88
// shuffles over the whole subgroup; then the groups' y of each of the 8
// steps summed by one xor shuffle (lane 16 away), the D skip added, and
// group 0 stores y. lavapipe: 8 lanes (no room for a second group),
// chunks of 64, 32 channels (rows of 65 words); 3 rounds: 9 x 16 = 144.
// CHECK-LABEL: func.func private @lanes_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 4, 1, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 33664 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 512, 1, 1>
// CHECK-COUNT-2: memref.alloc() : memref<2096xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<2112xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// CHECK: scf.for %{{.*}} = %{{.*}} to %c100 step %c128{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: gpu.barrier
// CHECK-COUNT-8: math.exp2
// CHECK-NOT: gpu.shuffle  xor
// CHECK-COUNT-88: gpu.shuffle  idx %{{.*}}, %{{.*}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle  idx
// CHECK-COUNT-8: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if
// CHECK-COUNT-8: memref.store %{{.*}}, %[[UY:.*]][%{{.*}}] : memref<2096xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.yield
// LVP-LABEL: func.func private @lanes_dispatch_0(
// LVP-SAME: ejk.grid = array<i64: 2, 1, 1>
// LVP-SAME: ejk.shared_memory_bytes = 24960 : i64
// LVP-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// LVP-COUNT-2: memref.alloc() : memref<2080xf32, #gpu.address_space<workgroup>>
// LVP-COUNT-2: memref.alloc() : memref<1040xf32, #gpu.address_space<workgroup>>
// LVP: scf.for %{{.*}} = %{{.*}} to %c100 step %c64{{.*}} iter_args
// LVP-COUNT-144: gpu.shuffle  idx %{{.*}}, %{{.*}}, %c8_i32{{.*}} : f32
// LVP-NOT: gpu.shuffle
func.func @lanes(%u: tensor<1x100x64xf32>, %A: tensor<64x16xf32>, %B: tensor<1x100x1x16xf32>, %z: tensor<1x100x64xf32>, %h0: tensor<1x64x16xf32>) -> (tensor<1x100x64xf32>, tensor<1x64x16xf32>) {
  %y, %h = ejk.selective_scan %u, %u, %A, %B, %B z(%z : tensor<1x100x64xf32>) initial_state(%h0 : tensor<1x64x16xf32>) {delta_softplus} : tensor<1x100x64xf32>, tensor<1x100x64xf32>, tensor<64x16xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x64xf32>, tensor<1x64x16xf32>
  return %y, %h : tensor<1x100x64xf32>, tensor<1x64x16xf32>
}
