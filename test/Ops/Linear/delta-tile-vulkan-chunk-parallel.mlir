// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// The chunk-parallel delta rule on Vulkan (lib/Ops/Linear/Vulkan/DeltaChunk*):
// T = 300 steps take the heuristic's chunk-parallel config (chunks of 64,
// state blocks of 32 columns). GQA (4 query heads over 2), per-head decay,
// head_dim_k 32, head_dim_v 48, both states. Slots: 2 batch rows x
// ceil(300 / 64) = 10.
// CHECK-LABEL: func.func private @delta_dispatch_0_gates
// CHECK-SAME: ejk.grid = array<i64: 10, 4, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// The cumulative per-head decay: eight steps' loads, then their running sum.
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK-COUNT-8: memref.load %arg4[{{.*}}] : memref<2x300x4xf32>
// CHECK: arith.addf

// Prepare: A (64 x 64), a key tile (64 rows of 17 floats: the pitch that
// keeps a column's loads off a shared bank), rates, norms, B (64 each):
// 4 x (4096 + 1088 + 192) = 21504 bytes; FLOPs 2 x 300 x 4 x (65 x 32 +
// 63 x 80).
// CHECK-LABEL: func.func private @delta_dispatch_0_prepare
// CHECK-SAME: ejk.flops = 17088000 : i64
// CHECK-SAME: ejk.grid = array<i64: 10, 4, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 21504 : i64
// CHECK: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<1088xf32, #gpu.address_space<workgroup>>
// The scores over ceil(32 / 16) key tiles: of a thread's 4 x 4 scores the
// 10 on or below the diagonal blocks (the other 6 lie above the diagonal
// and are never computed), and 2 x 4 sums of squares.
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// The key norms; the per-head ratio exp(min(B_t - B_s, 0)).
// CHECK: math.sqrt
// CHECK: arith.minnumf
// CHECK: math.exp
// CHECK: gpu.barrier
// The solve: blocks of 16 rows, the earlier blocks read back from W or U.
// CHECK: scf.for %[[BI:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %[[BI]] step %c1
// CHECK: memref.load %arg8
// CHECK: memref.load %arg10
// CHECK: math.fma
// CHECK: memref.store {{.*}}, %arg8
// CHECK: memref.store {{.*}}, %arg10

// The state pass: 2 V blocks of 32 x 4 heads x 2 sequences; S (32 x 32),
// the new values (64 x 32) and the tiles (64 x 16): 4 x (1024 + 2048 +
// 1024) = 16384 bytes. Each thread's 2 x 2 state entries carried through
// the 5 chunks.
// CHECK-LABEL: func.func private @delta_dispatch_0_state
// CHECK-SAME: ejk.grid = array<i64: 2, 4, 2>
// CHECK-SAME: ejk.shared_memory_bytes = 16384 : i64
// The W and Kd stages hold vectors of 4 floats.
// CHECK: memref.alloc() : memref<256xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK: memref.load %arg5
// The first chunk's W before the loop: 2 key tiles (64 x 16), a vector of
// 4 keys a thread each. The loop carries the state and the next W.
// CHECK-COUNT-4: memref.load %arg8
// CHECK: vector.from_elements {{.*}} : vector<4xf32>
// CHECK-COUNT-4: memref.load %arg8
// CHECK: vector.from_elements {{.*}} : vector<4xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c5 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, vector<4xf32>, vector<4xf32>)
// The chunk's loads first: 4 step tiles of Kd (16 x 32: a vector of 4
// steps of one key per thread), U; then the state before the chunk,
// published.
// CHECK-COUNT-16: memref.load %arg9
// CHECK: memref.load %arg10
// CHECK: memref.store {{.*}}, %arg11
// N = U - W S over the 2 key tiles (unrolled), 4 keys of W a shared load.
// CHECK: memref.store {{.*}} : memref<256xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<256xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK: vector.extract {{.*}}[3] : f32 from vector<4xf32>
// CHECK: arith.negf
// CHECK: math.fma
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// The next chunk's W goes out once this chunk's is staged; N written over
// U.
// CHECK-COUNT-8: memref.load %arg8
// CHECK: memref.store {{.*}}, %arg10
// S = exp(B_last) S + Kd^T N over the 4 step tiles, Kd transposed (key
// rows of 5 vectors).
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<256xvector<4xf32>, #gpu.address_space<workgroup>>
// CHECK-COUNT-7: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield {{.*}} : f32, f32, f32, f32, vector<4xf32>, vector<4xf32>
// CHECK: memref.store {{.*}}, %arg7

// The outputs: one V block of 48; scores (64 x 64), q and k tiles (64 rows
// of 17 floats each), state rows (16 x 48), B (64): 4 x 7104 = 28416 bytes.
// CHECK-LABEL: func.func private @delta_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 10, 4, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 28416 : i64
// CHECK: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<1088xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<1088xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<768xf32, #gpu.address_space<workgroup>>
// CHECK: math.sqrt
// CHECK: arith.cmpi sle
// CHECK: memref.load %arg10
// CHECK: memref.store {{.*}}, %arg6

// The caller: temporaries W, Kd (10 x 4 x 64 x 32), U (10 x 4 x 64 x 48),
// the states (10 x 4 x 32 x 48), B (10 x 4 x 64); the four dispatches in
// order.
// CHECK-LABEL: func.func @delta
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<10x4x64x32xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<10x4x64x32xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<10x4x64x48xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<10x4x32x48xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<10x4x64xf32>
// CHECK: ejk.dispatch @delta_dispatch_0_gates
// CHECK: ejk.dispatch @delta_dispatch_0_prepare
// CHECK: ejk.dispatch @delta_dispatch_0_state
// CHECK: ejk.dispatch @delta_dispatch_0(
func.func @delta(%q: tensor<2x300x4x32xf32>, %k: tensor<2x300x2x32xf32>, %v: tensor<2x300x2x48xf32>, %beta: tensor<2x300x4xf32>, %g: tensor<2x300x4xf32>, %s0: tensor<2x4x32x48xf32>) -> (tensor<2x300x4x48xf32>, tensor<2x4x32x48xf32>) {
  %o, %s = ejk.delta_attention %q, %k, %v, %beta decay(%g : tensor<2x300x4xf32>) initial_state(%s0 : tensor<2x4x32x48xf32>)
      : tensor<2x300x4x32xf32>, tensor<2x300x2x32xf32>, tensor<2x300x2x48xf32>, tensor<2x300x4xf32> -> tensor<2x300x4x48xf32>, tensor<2x4x32x48xf32>
  return %o, %s : tensor<2x300x4x48xf32>, tensor<2x4x32x48xf32>
}

// -----

// KDA over 3 packed sequences, chunks of 32, state blocks of 16: slots
// ceil(200 / 32) + 3 = 10 (11 for the outputs: the filler); B per key dim
// (10 x 2 x 32 x 32); the per-key ratio inside the key loops.
// CHECK-LABEL: func.func private @kda_dispatch_0_gates
// CHECK-SAME: ejk.grid = array<i64: 10, 2, 1>
// CHECK-LABEL: func.func private @kda_dispatch_0_prepare
// CHECK: gpu.barrier
// CHECK: arith.minnumf
// CHECK: math.exp
// CHECK: math.fma
// CHECK-LABEL: func.func private @kda_dispatch_0_state
// CHECK-SAME: ejk.grid = array<i64: 2, 2, 3>
// CHECK-LABEL: func.func private @kda_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 11, 2, 1>
// The filler slot zeroes the steps of no sequence.
// CHECK: arith.cmpi eq, %{{.*}}, %c10
// CHECK: arith.minnumf
// CHECK-LABEL: func.func @kda
// CHECK-COUNT-5: memref.alloc() {alignment = 64 : i64} : memref<10x2x32x32xf32>
func.func @kda(%q: tensor<1x200x2x32xf32>, %k: tensor<1x200x2x32xf32>, %v: tensor<1x200x2x32xf32>, %beta: tensor<1x200x2xf32>, %g: tensor<1x200x2x32xf32>, %cu: tensor<4xi32>) -> tensor<1x200x2x32xf32> {
  %o = ejk.delta_attention %q, %k, %v, %beta decay(%g : tensor<1x200x2x32xf32>) cu_seqlens(%cu : tensor<4xi32>) {config = #ejk.config<block_v = 16, chunk_size = 32, chunk_parallel = 1>}
      : tensor<1x200x2x32xf32>, tensor<1x200x2x32xf32>, tensor<1x200x2x32xf32>, tensor<1x200x2xf32> -> tensor<1x200x2x32xf32>
  return %o : tensor<1x200x2x32xf32>
}
