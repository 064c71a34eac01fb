// RUN: ejk-opt %s -ejk-select-configs="target=vulkan subgroup-size=32 shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s

// The time-lanes scan with `lane_batch = 4` and `double_buffer = 1` (the
// heuristic's shape, given explicitly): the u / y stage twice (4192
// words): 4 * (3 * 131 * 16 + 2 * 132 * 16) = 42048 bytes. The thread's 8
// states in two batches of 4: each batch's 32 exps, then its 4 rounds of 8
// shuffles (sum and product of each state) and each state's end state
// shuffled twice (to the next lane, from the segment's last): 40 shuffles a
// batch, 80 in all (88 one state at a time, above). Two barriers a chunk:
// none after the output.
// CHECK-LABEL: func.func private @batched_dispatch_0(
// CHECK-SAME: ejk.shared_memory_bytes = 42048 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 512, 1, 1>
// CHECK: memref.alloc() : memref<2096xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<4192xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.alloc() : memref<2112xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c100 step %c128{{.*}} iter_args
// CHECK: gpu.barrier
// CHECK-COUNT-32: math.exp2
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-40: gpu.shuffle  idx %{{.*}}, %{{.*}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-32: math.exp2
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-40: gpu.shuffle  idx %{{.*}}, %{{.*}}, %c32_i32{{.*}} : f32
// CHECK-NOT: gpu.shuffle  idx
// CHECK-COUNT-8: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
func.func @batched(%u: tensor<1x100x64xf32>, %A: tensor<64x16xf32>, %B: tensor<1x100x1x16xf32>, %z: tensor<1x100x64xf32>, %h0: tensor<1x64x16xf32>) -> (tensor<1x100x64xf32>, tensor<1x64x16xf32>) {
  %y, %h = ejk.selective_scan %u, %u, %A, %B, %B z(%z : tensor<1x100x64xf32>) initial_state(%h0 : tensor<1x64x16xf32>) {delta_softplus, config = #ejk.config<block_d = 16, chunk_l = 128, double_buffer = 1, lane_batch = 4, state_lanes = 2, time_lanes = 16>} : tensor<1x100x64xf32>, tensor<1x100x64xf32>, tensor<64x16xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x64xf32>, tensor<1x64x16xf32>
  return %y, %h : tensor<1x100x64xf32>, tensor<1x64x16xf32>
}
