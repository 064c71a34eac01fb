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
// Chunks of 32 steps carry the thread's one state.
// CHECK: scf.for {{.*}} step %c32{{.*}} iter_args({{.*}}) -> (f32)
// Staging: f16 widened, softplus, then a barrier.
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: math.log1p
// CHECK: gpu.barrier
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

// ssd, mamba2's shape with the NVIDIA heuristic: chunks of 64, head_dim
// blocks of 16, n-chunks of 32, 8 subgroups.
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
// The scan: grid [4, 32, 1] (128 workgroups). Shared memory: St (128 x
// 16), X (64 x 16), M (64 x 65, padded), the C and B n-chunks (64 x 33 each) and
// four 64-vectors: 46848 bytes.
// CHECK-LABEL: func.func private @ssd_dispatch_0(
// CHECK-SAME: memref<1x1x32x64x64xf32>
// CHECK-SAME: ejk.grid = array<i64: 4, 32, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 46848 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<4160xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<2112xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// The chunks in order; dt and X staged, then the decays.
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c1
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
// The final state, n fastest.
// CHECK: memref.store %{{.*}} : memref<1x32x64x128xf32>
// The entry allocates the scores and runs both dispatches.
// CHECK-LABEL: func.func @ssd(
// CHECK: %[[SCORES:.*]] = memref.alloc() {{.*}} : memref<1x1x32x64x64xf32>
// CHECK: ejk.dispatch @ssd_dispatch_0_scores(%{{.*}}, %{{.*}}, %[[SCORES]])
// CHECK: ejk.dispatch @ssd_dispatch_0({{.*}}, %[[SCORES]])
// CHECK: memref.dealloc %[[SCORES]]
func.func @ssd(%x: tensor<1x2048x32x64xf32>, %dt: tensor<1x2048x32xf32>, %A: tensor<32xf32>, %B: tensor<1x2048x1x128xf32>, %s0: tensor<1x32x64x128xf32>) -> (tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>) {
  %y, %s = ejk.ssd %x, %dt, %A, %B, %B initial_state(%s0 : tensor<1x32x64x128xf32>) {dt_softplus} : tensor<1x2048x32x64xf32>, tensor<1x2048x32xf32>, tensor<32xf32>, tensor<1x2048x1x128xf32>, tensor<1x2048x1x128xf32> -> tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>
  return %y, %s : tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>
}
