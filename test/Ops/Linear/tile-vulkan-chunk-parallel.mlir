// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" | FileCheck %s --check-prefix=CONFIG
// Vulkan's chunk-parallel gla kernel (lib/Ops/Linear/Vulkan/ChunkParallel.cpp).

// The heuristic from 256 steps on: chunk-parallel, chunks of 64, all of
// V = 128 per workgroup. Three dispatches, in order: update, scan, outputs.
// CONFIG-LABEL: func.func @heuristic
// CONFIG: config = #ejk.config<block_v = 128, chunk_parallel = 1, chunk_size = 64>
// ceil(1000 / 64) = 16 chunk slots, 4 heads, 1 V block; 256 threads.
// update: dS = (k exp(B_last - B))^T v, 2 K V FLOPs per step and head;
// shared memory: a tile of 16 gated keys and one of 16 values (128 each).
// CHECK-LABEL: func.func private @heuristic_dispatch_0_update
// CHECK-SAME: ejk.flops = 131072000 : i64, ejk.grid = array<i64: 16, 4, 1>, ejk.shared_memory_bytes = 16384 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK-COUNT-2: memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// The column threads' cumulative gates, the chunk's 64 gate loads at once
// before their stores (no loop), written by the first V block into the
// f32 temporary for the outputs, and the chunk decays.
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NOT: scf.for
// CHECK-COUNT-64: memref.load %arg3[{{.*}}] : memref<1x1000x4x128xf16>
// CHECK-NOT: memref.store
// CHECK: memref.store %{{.*}}, %arg7[{{.*}}] : memref<1x1000x4x128xf32>
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %arg6[{{.*}}] : memref<16x4x128xf32>
// Each tile of 16 steps: the column threads' 16 gate and key loads before
// the first gated key is stored; the values' 8 rounds of loads before
// their stores (batched stages).
// CHECK: scf.for
// CHECK: scf.if
// CHECK-COUNT-32: memref.load %arg{{[23]}}[{{.*}}] : memref<1x1000x4x128xf16>
// CHECK-NOT: memref.load
// CHECK: memref.store %{{.*}}, %{{.*}}[%thread_id_x] : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: } else {
// CHECK-COUNT-8: memref.load %arg2[{{.*}}] : memref<1x1000x4x128xf16>
// CHECK-NOT: memref.load
// CHECK-COUNT-8: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// The state contribution of the chunk, into the states temporary.
// CHECK: memref.store %{{.*}}, %arg5[{{.*}}] : memref<16x4x128x128xf32>
// scan: one thread per state entry (128 x 128 / 256 = 64 workgroups per
// head), S = decay * S + dS over the chunks, eight chunks a round (their
// loads first), the state before each chunk written over dS.
// CHECK-LABEL: func.func private @heuristic_dispatch_0_scan
// CHECK-SAME: ejk.grid = array<i64: 64, 4, 1>
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%[[S:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[DS:.*]] = memref.load %arg5[{{.*}}] : memref<16x4x128x128xf32>
// CHECK-NEXT: %[[D:.*]] = memref.load %arg6[{{.*}}] : memref<16x4x128xf32>
// CHECK-COUNT-7: memref.load %arg6
// CHECK: memref.store %[[S]], %arg5[{{.*}}] : memref<16x4x128x128xf32>
// CHECK: %[[NEXT:.*]] = math.fma %[[D]], %[[S]], %[[DS]] : f32
// CHECK: arith.select %{{.*}}, %[[NEXT]], %[[S]] : f32
// outputs: the scores (64 x 64), key tiles of 8 for q, k and B, a value
// tile, the subgroup maxima of the chunk decay; the bound picks the
// factored or the exact scores.
// CHECK-LABEL: func.func private @heuristic_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 16, 4, 1>, ejk.shared_memory_bytes = 31520 : i64
// CHECK: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// Key tiles of 8 in rows of 9 floats (no bank conflicts on column reads).
// CHECK-COUNT-2: memref.alloc() : memref<576xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.shuffle  xor
// CHECK: %[[BOUND:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : f32
// One pass over key tiles gives the scores (16) and q exp(B) S (4 x 8) of
// each thread.
// CHECK: scf.if %[[BOUND]] -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// The exact scores: exp(min(B_t - B_s, 0)) per key and pair.
// CHECK: arith.minnumf
// CHECK: math.exp
// Outputs narrowed to f16.
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK-LABEL: func.func @heuristic
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<16x4x128x128xf32>
// CHECK: ejk.dispatch @heuristic_dispatch_0_update
// CHECK-NEXT: ejk.dispatch @heuristic_dispatch_0_scan
// CHECK-NEXT: ejk.dispatch @heuristic_dispatch_0(
func.func @heuristic(%q: tensor<1x1000x4x128xf16>, %g: tensor<1x1000x4x128xf16>) -> tensor<1x1000x4x128xf16> {
  %o = ejk.gla %q, %q, %q g(%g : tensor<1x1000x4x128xf16>) : tensor<1x1000x4x128xf16>, tensor<1x1000x4x128xf16>, tensor<1x1000x4x128xf16> -> tensor<1x1000x4x128xf16>
  return %o : tensor<1x1000x4x128xf16>
}

// -----

// Packed sequences: ceil(500 / 32) + 3 = 19 slots, one more for the outputs
// (the filler of the steps of no sequence); a constant decay (g_gamma)
// needs no temporaries but the states.
// CHECK-LABEL: func.func private @packed_dispatch_0_update
// CHECK-SAME: ejk.grid = array<i64: 19, 2, 1>
// CHECK-LABEL: func.func private @packed_dispatch_0_scan
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 3>
// CHECK-LABEL: func.func private @packed_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 20, 2, 1>
// CHECK-LABEL: func.func @packed
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<19x2x32x32xf32>
// CHECK-NOT: memref.alloc()
// CHECK: ejk.dispatch @packed_dispatch_0_update
func.func @packed(%q: tensor<1x500x2x32xf32>, %gg: tensor<2xf32>, %cu: tensor<4xi32>) -> tensor<1x500x2x32xf32> {
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) cu_seqlens(%cu : tensor<4xi32>) {config = #ejk.config<block_v = 32, chunk_size = 32, chunk_parallel = 1>} : tensor<1x500x2x32xf32>, tensor<1x500x2x32xf32>, tensor<1x500x2x32xf32> -> tensor<1x500x2x32xf32>
  return %o : tensor<1x500x2x32xf32>
}
