// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=8" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefix=LVP

// gla on Vulkan (lib/Ops/Linear/Vulkan/Kernel.cpp), f32, GQA (4 query
// heads over 2 key/value heads), g and g_gamma, head_dim_k 32, head_dim_v
// 48 in blocks of block_v = 16, chunks of 32 steps, both states.
// Subgroups of 32: the 32 keys of a column are 32 lanes (one entry each),
// 16 columns x 32 = 512 threads. Shared memory: q, k and exp(g) (32 x 32
// each) and v and o (32 x 16 each): 4 * (3072 + 1024) = 16384 bytes.
// CHECK-LABEL: func.func private @gla_dispatch_0
// FLOPs: 2 x 100 x 4 x 4 x 32 x 48 (the recurrence's k^T v and q S).
// CHECK-SAME: ejk.flops = 4915200 : i64
// Workgroups: head_dim_v blocks x heads x batch.
// CHECK-SAME: ejk.grid = array<i64: 3, 4, 2>
// CHECK-SAME: ejk.shared_memory_bytes = 16384 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 512, 1, 1>
// CHECK: %[[HEAD:.*]] = ejk.workgroup_id 1
// CHECK: gpu.thread_id{{ +}}x
// The key/value head of a query head.
// CHECK: arith.divsi %[[HEAD]], %c2 : index
// CHECK-COUNT-3: memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<512xf32, #gpu.address_space<workgroup>>
// The thread's one state entry, read from the initial state, carried
// through ceil(100 / 32) chunks.
// CHECK: %[[S0:.*]] = memref.load %{{.*}} : memref<2x4x32x48xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %[[S0]]) -> (f32)
// Stage: scaled q, k, exp(g + g_gamma), then v; a barrier.
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: math.exp
// CHECK: memref.load %{{.*}} : memref<2x100x2x48xf32>
// CHECK: gpu.barrier
// The recurrence: S = exp(g) S + k v, then q . S summed over the 32 lanes
// of the column; lane 0 writes o.
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: %[[KV:.*]] = arith.mulf
// CHECK: %[[S:.*]] = math.fma %{{.*}}, %{{.*}}, %[[KV]] : f32
// CHECK: math.fma %{{.*}}, %[[S]], %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// The chunk's outputs, then the final state (columns inside head_dim_v).
// CHECK: memref.store %{{.*}} : memref<2x100x4x48xf32>
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<2x4x32x48xf32>

// Subgroups of 8: 8 lanes a column, 4 entries each, 128 threads.
// LVP-LABEL: func.func private @gla_dispatch_0
// LVP-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// LVP: scf.for {{.*}} -> (f32, f32, f32, f32)
// LVP: scf.for {{.*}} -> (f32, f32, f32, f32)
// LVP: gpu.shuffle  xor %{{.*}}, %c4_i32, %c8_i32 : f32
// LVP: gpu.shuffle  xor %{{.*}}, %c2_i32, %c8_i32 : f32
// LVP: gpu.shuffle  xor %{{.*}}, %c1_i32, %c8_i32 : f32
// LVP-NOT: gpu.shuffle
func.func @gla(%q: tensor<2x100x4x32xf32>, %k: tensor<2x100x2x32xf32>, %v: tensor<2x100x2x48xf32>, %g: tensor<2x100x4x32xf32>, %gamma: tensor<4xf32>, %s0: tensor<2x4x32x48xf32>) -> (tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>) {
  %o, %s = ejk.gla %q, %k, %v g(%g : tensor<2x100x4x32xf32>) g_gamma(%gamma : tensor<4xf32>) initial_state(%s0 : tensor<2x4x32x48xf32>) {config = #ejk.config<block_v = 16, chunk_size = 32>} : tensor<2x100x4x32xf32>, tensor<2x100x2x32xf32>, tensor<2x100x2x48xf32> -> tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>
  return %o, %s : tensor<2x100x4x48xf32>, tensor<2x4x32x48xf32>
}

// -----

// Packed sequences (4 over 200 steps), reversed, g_gamma only: one more
// workgroup along z zeroes the steps of no sequence; the others clamp
// their cu_seqlens entries and scan last to first. Without g the decay is
// exp(g_gamma) once per workgroup and only q and k are staged.
// CHECK-LABEL: func.func private @varlen_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 5>
// CHECK-SAME: ejk.shared_memory_bytes = 3072 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK: %[[SEQ:.*]] = ejk.workgroup_id 2
// CHECK: %[[FILLER:.*]] = arith.cmpi eq, %[[SEQ]], %c4 : index
// CHECK: scf.if %[[FILLER]] {
// CHECK: memref.store %cst{{.*}} : memref<1x200x2x24xf32>
// CHECK: memref.store %cst{{.*}} : memref<1x200x2x24xf32>
// CHECK: %[[SCAN:.*]] = arith.cmpi ne, %[[SEQ]], %c4 : index
// CHECK: scf.if %[[SCAN]] {
// A sequence edge is the running maximum of the clamped entries
// (Linear/Sequences.h):
// CHECK: %[[N:.*]] = arith.addi %[[SEQ]], %c1 : index
// CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 iter_args(%[[START:.*]] = %c0) -> (index) {
// CHECK: memref.load %{{.*}}[%[[I]]] : memref<5xi32>
// CHECK: arith.maxsi %[[START]], %{{.*}} : index
// CHECK-COUNT-2: memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// CHECK: %[[GAMMA:.*]] = memref.load %{{.*}} : memref<2xf32>
// CHECK: %[[DECAY:.*]] = math.exp %[[GAMMA]] : f32
// CHECK-NOT: math.exp
// CHECK: gpu.barrier
// CHECK: math.fma %[[DECAY]], %{{.*}}, %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.barrier
// The final state per sequence.
// CHECK: memref.store %{{.*}}[%[[SEQ]], {{.*}}] : memref<4x2x16x24xf32>
// LVP-LABEL: func.func private @varlen_dispatch_0
// LVP-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
func.func @varlen(%q: tensor<1x200x2x16xf32>, %v: tensor<1x200x2x24xf32>, %gamma: tensor<2xf32>, %cu: tensor<5xi32>) -> (tensor<1x200x2x24xf32>, tensor<4x2x16x24xf32>) {
  %o, %s = ejk.gla %q, %q, %v g_gamma(%gamma : tensor<2xf32>) cu_seqlens(%cu : tensor<5xi32>) {reverse, config = #ejk.config<block_v = 8, chunk_size = 16>} : tensor<1x200x2x16xf32>, tensor<1x200x2x16xf32>, tensor<1x200x2x24xf32> -> tensor<1x200x2x24xf32>, tensor<4x2x16x24xf32>
  return %o, %s : tensor<1x200x2x24xf32>, tensor<4x2x16x24xf32>
}

// -----

// The heuristic below 256 steps (recurrent kernel), f16, K = V = 128, 4
// heads: 8 columns of 32 lanes (256
// threads) give 16 x 4 = 64 workgroups; chunks of 64 would stage 100 KiB,
// so 16 (25600 bytes). With subgroups of 8: blocks of 8 columns of 8 lanes
// (64 threads) keep 64 workgroups. Inputs widen to f32, o narrows to f16.
// CHECK-LABEL: func.func private @heuristic_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 16, 4, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 25600 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: scf.for {{.*}} step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.truncf {{.*}} : f32 to f16
// LVP-LABEL: func.func private @heuristic_dispatch_0
// LVP-SAME: ejk.grid = array<i64: 16, 4, 1>
// LVP-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
func.func @heuristic(%q: tensor<1x200x4x128xf16>, %g: tensor<1x200x4x128xf16>) -> tensor<1x200x4x128xf16> {
  %o = ejk.gla %q, %q, %q g(%g : tensor<1x200x4x128xf16>) : tensor<1x200x4x128xf16>, tensor<1x200x4x128xf16>, tensor<1x200x4x128xf16> -> tensor<1x200x4x128xf16>
  return %o : tensor<1x200x4x128xf16>
}
