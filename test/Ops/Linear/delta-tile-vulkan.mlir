// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// delta_attention on Vulkan (lib/Ops/Linear/Vulkan/DeltaKernel.cpp), f32,
// GQA (4 query heads over 2 key/value heads), a per-head decay, head_dim_k
// 32, head_dim_v 48 in blocks of block_v = 16, chunks of 32 steps, both
// states. Subgroups of 32: the 32 keys of a column are 32 lanes (one state
// entry each), 16 columns x 32 = 512 threads. Shared memory: q and k (32 x
// 32 each), v and o (32 x 16 each), the rates and the decays (32 each):
// 4 * (2048 + 1024 + 64) = 12544 bytes.
// CHECK-LABEL: func.func private @delta_dispatch_0
// FLOPs: 2 x 100 x 4 x 6 x 32 x 48 (the recall k S, the update, q S).
// CHECK-SAME: ejk.flops = 7372800 : i64
// CHECK-SAME: ejk.grid = array<i64: 3, 4, 2>
// CHECK-SAME: ejk.shared_memory_bytes = 12544 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 512, 1, 1>
// CHECK-COUNT-2: memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
// The thread's state entry carried through ceil(100 / 32) chunks.
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (f32)
// Stage: the per-head decay as exp(a), one per step; a barrier.
// CHECK: memref.load %arg4[{{.*}}] : memref<2x100x4xf32>
// CHECK: math.exp
// CHECK: gpu.barrier
// The recurrence: S = exp(a) S, then k . S, |k|^2 and |q|^2 summed over the
// 32 lanes of the column, the norms, S += k d, q . S summed; lane 0 writes
// o.
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: %[[DECAYED:.*]] = arith.mulf
// CHECK: math.fma %{{.*}}, %[[DECAYED]], %{{.*}} : f32
// CHECK-COUNT-10: gpu.shuffle  xor
// CHECK: math.sqrt
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: math.sqrt
// CHECK: %[[S:.*]] = math.fma %{{.*}}, %{{.*}}, %[[DECAYED]] : f32
// CHECK: math.fma %{{.*}}, %[[S]], %{{.*}} : f32
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// The chunk's outputs, then the final state.
// CHECK: memref.store %{{.*}} : memref<2x100x4x48xf32>
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<2x4x32x48xf32>
func.func @delta(%q: tensor<2x100x4x32xf32>, %k: tensor<2x100x2x32xf32>, %v: tensor<2x100x2x48xf32>, %beta: tensor<2x100x4xf32>, %g: tensor<2x100x4xf32>, %s0: tensor<2x4x32x48xf32>) -> (tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>) {
  %o, %s = ejk.delta_attention %q, %k, %v, %beta decay(%g : tensor<2x100x4xf32>) initial_state(%s0 : tensor<2x4x32x48xf32>) {config = #ejk.config<block_v = 16, chunk_size = 32>} : tensor<2x100x4x32xf32>, tensor<2x100x2x32xf32>, tensor<2x100x2x48xf32>, tensor<2x100x4xf32> -> tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>
  return %o, %s : tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>
}

// -----

// A per-key decay (KDA) staged as exp per key ([chunk, kPad], a third key
// array); no l2 norm: no sqrt, only the two lane sums k . S and q . S.
// CHECK-LABEL: func.func private @kda_dispatch_0
// CHECK-COUNT-3: memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: math.sqrt
// CHECK: scf.for {{.*}} -> (f32)
// CHECK-COUNT-10: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
func.func @kda(%q: tensor<1x40x2x32xf32>, %v: tensor<1x40x2x16xf32>, %beta: tensor<1x40x2xf32>) -> tensor<1x40x2x16xf32> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%q : tensor<1x40x2x32xf32>) {use_qk_l2norm = false, config = #ejk.config<block_v = 16, chunk_size = 16>} : tensor<1x40x2x32xf32>, tensor<1x40x2x32xf32>, tensor<1x40x2x16xf32>, tensor<1x40x2xf32> -> tensor<1x40x2x16xf32>
  return %o : tensor<1x40x2x16xf32>
}
