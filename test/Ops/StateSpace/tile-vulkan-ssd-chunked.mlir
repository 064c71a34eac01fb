// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan subgroup-size=32 shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// The chunk-parallel SSD (chunk_parallel = 1; SsdChunkedKernel.cpp): the
// heuristic's choice on an NVIDIA-like device for mamba2 (B1 L2048 H32 P64
// N128, 32 chunks of 64). Four dispatches: every chunk's own state, the
// pass over the chunk states, the C B^T scores, every chunk's outputs.

// Chunk states: grid [head_dim blocks, heads x chunks, batch] = [1, 1024,
// 1]; dt, a and w (64 each), X w (32 steps x 64) and B (32 x 128): 25344
// bytes; 512 threads. The 64 x 128 state tile keeps 16 accumulators per
// thread over two rounds of 32 staged steps; each round's X (4) and B (8)
// values per thread are fetched into registers during the round before.
// CHECK-LABEL: func.func private @ssd_dispatch_0_chunk_states(
// CHECK-SAME: memref<1x32x32x64x128xf32>, %{{.*}}: memref<1x32x32xf32>)
// CHECK-SAME: ejk.grid = array<i64: 1, 1024, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 25344 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 512, 1, 1>
// CHECK-COUNT-3: memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// dt and the prefix sums a_t in one round, a thread a step: 5 rounds of
// shuffle idx over the subgroup, the first subgroup's steps (one a lane:
// 64 steps are two subgroups) totalled by 5 xor shuffles, one barrier, no
// loop; then w = exp(a_last - a) dt.
// CHECK: math.log1p
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle  idx
// CHECK-NOT: gpu.barrier
// CHECK: math.log1p
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK-NOT: scf.for
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: %{{.*}}:28 = scf.for %{{.*}} = %c0 to %c64{{.*}} step %c32
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<1x2048x32x64xf32>
// CHECK: %{{.*}}:16 = scf.for %{{.*}} = %c0 to %c32{{.*}} step %c1
// CHECK: math.fma
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<1x32x32x64x128xf32>
// The chunk's log decay, by one thread of the first head_dim block.
// CHECK: arith.cmpi eq
// CHECK: memref.store %{{.*}} : memref<1x32x32xf32>

// The pass: one thread per state entry of a head, in workgroups of 1024
// threads whatever the chunk kernels' (64 x 128 / 1024 = 8 workgroups per
// head), no shared memory; from initial_state, each chunk's entry replaced
// by the state before it, then final_state; in batches of 16 chunks, whose
// 16 loads come before their stores.
// CHECK-LABEL: func.func private @ssd_dispatch_0_state_pass(
// CHECK-SAME: ejk.grid = array<i64: 8, 32, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 0 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 1024, 1, 1>
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<1x32x64x128xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16 iter_args
// CHECK-COUNT-16: memref.load %{{.*}} : memref<1x32x32x64x128xf32>
// CHECK-NOT: math.fma
// CHECK: memref.store %{{.*}} : memref<1x32x32x64x128xf32>
// CHECK-NEXT: math.fma
// CHECK-COUNT-15: memref.store %{{.*}} : memref<1x32x32x64x128xf32>
// CHECK: scf.yield
// CHECK: memref.store %{{.*}} : memref<1x32x64x128xf32>

// The scores as for the one-pass scan (n-chunks of 16).
// CHECK-LABEL: func.func private @ssd_dispatch_0_scores(
// CHECK-SAME: ejk.grid = array<i64: 32, 1, 1>

// Outputs: grid as the chunk states; X (64 x 64), M (64 x 65), the C and
// state n-chunks (64 x 17 each), dt, a, exp(a): 42496 bytes.
// CHECK-LABEL: func.func private @ssd_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 1, 1024, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 42496 : i64
// CHECK: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<4160xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<1088xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-3: memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// M from the scores and the decays, causal.
// CHECK: memref.load %{{.*}} : memref<1x1x32x64x64xf32>
// CHECK: arith.cmpi sle
// C S_prev^T over n-chunks of 16: 8 accumulators, C and the state
// before the chunk staged, the next n-chunk's (2 + 2 values per thread)
// fetched during this one's products.
// CHECK: memref.load %{{.*}} : memref<1x32x32x64x128xf32>
// CHECK: %{{.*}}:12 = scf.for %{{.*}} = %c0 to %c128 step %c16
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<1x32x32x64x128xf32>
// CHECK: %{{.*}}:8 = scf.for
// CHECK: math.fma
// CHECK: gpu.barrier
// exp(a) C S^T + M X, stored; the outputs dispatch never writes the state.
// CHECK: %{{.*}}:8 = scf.for
// CHECK: memref.store %{{.*}} : memref<1x2048x32x64xf32>
// CHECK-NOT: memref<1x32x64x128xf32>
// CHECK-LABEL: func.func @ssd(
// CHECK: %[[STATES:.*]] = memref.alloc() {{.*}} : memref<1x32x32x64x128xf32>
// CHECK: %[[DECAYS:.*]] = memref.alloc() {{.*}} : memref<1x32x32xf32>
// CHECK: ejk.dispatch @ssd_dispatch_0_chunk_states({{.*}}, %[[STATES]], %[[DECAYS]])
// CHECK: ejk.dispatch @ssd_dispatch_0_state_pass(%{{.*}}, %{{.*}}, %[[STATES]], %[[DECAYS]])
// CHECK: ejk.dispatch @ssd_dispatch_0_scores
// CHECK: ejk.dispatch @ssd_dispatch_0({{.*}}, %[[STATES]], %[[DECAYS]], %{{.*}})
// CHECK: memref.dealloc %[[STATES]]
func.func @ssd(%x: tensor<1x2048x32x64xf32>, %dt: tensor<1x2048x32xf32>, %A: tensor<32xf32>, %B: tensor<1x2048x1x128xf32>, %s0: tensor<1x32x64x128xf32>) -> (tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>) {
  %y, %s = ejk.ssd %x, %dt, %A, %B, %B initial_state(%s0 : tensor<1x32x64x128xf32>) {dt_softplus} : tensor<1x2048x32x64xf32>, tensor<1x2048x32xf32>, tensor<32xf32>, tensor<1x2048x1x128xf32>, tensor<1x2048x1x128xf32> -> tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>
  return %y, %s : tensor<1x2048x32x64xf32>, tensor<1x32x64x128xf32>
}

// -----

// A tail (L = 100: chunks of 32, the last of 4 steps), head_dim 40 in
// blocks of 32 (two blocks, the second partly outside), 2 groups of 3
// heads, d_state 24 (n-chunks of 8), no initial or final state: the pass
// takes only the temporaries; the step loops run to the chunk's length.
// CHECK-LABEL: func.func private @tail_dispatch_0_chunk_states(
// CHECK-SAME: ejk.grid = array<i64: 2, 24, 1>
// CHECK: arith.minsi
// CHECK-LABEL: func.func private @tail_dispatch_0_state_pass(%{{.*}}: memref<1x4x6x40x24xf32>, %{{.*}}: memref<1x4x6xf32>)
// CHECK-SAME: ejk.grid = array<i64: 1, 6, 1>
// CHECK: arith.cmpi slt, %{{.*}}, %c960
// CHECK: scf.for %{{.*}} = %c0 to %c4{{.*}} step %c4{{.*}} iter_args
// CHECK-LABEL: func.func private @tail_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 24, 1>
// CHECK: scf.for %{{.*}} = %c0 to %c24 step %c8
// CHECK-LABEL: func.func @tail(
// CHECK: ejk.dispatch @tail_dispatch_0_chunk_states
// CHECK: ejk.dispatch @tail_dispatch_0_state_pass
// CHECK: ejk.dispatch @tail_dispatch_0_scores
// CHECK: ejk.dispatch @tail_dispatch_0(
func.func @tail(%x: tensor<1x100x6x40xf32>, %dt: tensor<1x100x6xf32>, %A: tensor<6xf32>, %B: tensor<1x100x2x24xf32>, %C: tensor<1x100x2x24xf32>) -> tensor<1x100x6x40xf32> {
  %y = ejk.ssd %x, %dt, %A, %B, %C {config = #ejk.config<block_n = 8, block_p = 32, chunk_parallel = 1, chunk_size = 32, num_subgroups = 8>} : tensor<1x100x6x40xf32>, tensor<1x100x6xf32>, tensor<6xf32>, tensor<1x100x2x24xf32>, tensor<1x100x2x24xf32> -> tensor<1x100x6x40xf32>
  return %y : tensor<1x100x6x40xf32>
}

// -----

// One chunk (L = 64): the heuristic keeps the one-pass scan (two
// dispatches, no chunk temporaries).
// CHECK-LABEL: func.func @one_chunk(
// CHECK-NOT: chunk_states
// CHECK: ejk.dispatch @one_chunk_dispatch_0_scores
// CHECK-NEXT: ejk.dispatch @one_chunk_dispatch_0(
func.func @one_chunk(%x: tensor<1x64x4x64xf32>, %dt: tensor<1x64x4xf32>, %A: tensor<4xf32>, %B: tensor<1x64x1x128xf32>) -> tensor<1x64x4x64xf32> {
  %y = ejk.ssd %x, %dt, %A, %B, %B : tensor<1x64x4x64xf32>, tensor<1x64x4xf32>, tensor<4xf32>, tensor<1x64x1x128xf32>, tensor<1x64x1x128xf32> -> tensor<1x64x4x64xf32>
  return %y : tensor<1x64x4x64xf32>
}
