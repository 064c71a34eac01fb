// ejk.selective_scan's time-lanes scan with `lane_batch` (the lane scans of
// a batch of states emitted together, each lane's end state shuffled once)
// and `double_buffer` (the u / y stage in two buffers, one barrier a chunk
// fewer) on Vulkan against the reference: batches that do and do not divide
// the states a thread keeps, a tail chunk with blocks spanning groups of
// B/C and a partial last block, one time lane, f16/bf16, batches, initial
// and final states, every option, whole chunks. lavapipe's subgroups of 8
// bound TL x SL. Written by hand (issue 21).

// REQUIRES: vulkan

// RUN: ejk-run %s --entry batch_tail --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry batch_segments --target vulkan --random-inputs 2 --check | FileCheck %s
// RUN: ejk-run %s --entry batch_one_lane --target vulkan --random-inputs 3 --check | FileCheck %s
// RUN: ejk-run %s --entry batch_f16 --target vulkan --random-inputs 4 --check | FileCheck %s
// RUN: ejk-run %s --entry batch_bf16 --target vulkan --random-inputs 5 --check | FileCheck %s
// RUN: ejk-run %s --entry batch_whole --target vulkan --random-inputs 6 --check | FileCheck %s

// CHECK: result 0 ({{.*}}): {{.*}}: ok
// CHECK-NOT: FAILED

// 4 lanes x 2 groups (8 states a thread in batches of 3, 3, 2), double
// buffer, 6 channels a block across 2 groups of B/C, L 1000 in chunks of 64,
// every option.
func.func @batch_tail(%u: tensor<1x1000x64xf32>, %delta: tensor<1x1000x64xf32>, %A: tensor<64x16xf32>, %B: tensor<1x1000x2x16xf32>, %C: tensor<1x1000x2x16xf32>, %D: tensor<64xf32>, %z: tensor<1x1000x64xf32>, %bias: tensor<64xf32>, %h0: tensor<1x64x16xf32>) -> (tensor<1x1000x64xf32>, tensor<1x64x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<64xf32>) z(%z : tensor<1x1000x64xf32>) delta_bias(%bias : tensor<64xf32>) initial_state(%h0 : tensor<1x64x16xf32>) {delta_softplus, config = #ejk.config<block_d = 6, chunk_l = 64, double_buffer = 1, lane_batch = 3, state_lanes = 2, time_lanes = 4>}
      : tensor<1x1000x64xf32>, tensor<1x1000x64xf32>, tensor<64x16xf32>, tensor<1x1000x2x16xf32>, tensor<1x1000x2x16xf32> -> tensor<1x1000x64xf32>, tensor<1x64x16xf32>
  return %y, %h : tensor<1x1000x64xf32>, tensor<1x64x16xf32>
}

// 2 lanes x 2 groups, 3 states a thread in batches of 2, double buffer,
// 4 groups of B/C, batch 2, chunks of 6 (a tail).
func.func @batch_segments(%u: tensor<2x77x44xf32>, %delta: tensor<2x77x44xf32>, %A: tensor<44x6xf32>, %B: tensor<2x77x4x6xf32>, %C: tensor<2x77x4x6xf32>, %D: tensor<44xf32>, %z: tensor<2x77x44xf32>, %bias: tensor<44xf32>, %h0: tensor<2x44x6xf32>) -> (tensor<2x77x44xf32>, tensor<2x44x6xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<44xf32>) z(%z : tensor<2x77x44xf32>) delta_bias(%bias : tensor<44xf32>) initial_state(%h0 : tensor<2x44x6xf32>) {delta_softplus, config = #ejk.config<block_d = 6, chunk_l = 6, double_buffer = 1, lane_batch = 2, state_lanes = 2, time_lanes = 2>}
      : tensor<2x77x44xf32>, tensor<2x77x44xf32>, tensor<44x6xf32>, tensor<2x77x4x6xf32>, tensor<2x77x4x6xf32> -> tensor<2x77x44xf32>, tensor<2x44x6xf32>
  return %y, %h : tensor<2x77x44xf32>, tensor<2x44x6xf32>
}

// One time lane (no scan shuffles), 8 groups of one state, double buffer.
func.func @batch_one_lane(%u: tensor<1x100x40xf32>, %delta: tensor<1x100x40xf32>, %A: tensor<40x8xf32>, %B: tensor<1x100x1x8xf32>, %C: tensor<1x100x1x8xf32>, %D: tensor<40xf32>, %h0: tensor<1x40x8xf32>) -> (tensor<1x100x40xf32>, tensor<1x40x8xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<40xf32>) initial_state(%h0 : tensor<1x40x8xf32>) {delta_softplus, config = #ejk.config<block_d = 3, chunk_l = 5, double_buffer = 1, lane_batch = 1, state_lanes = 8, time_lanes = 1>}
      : tensor<1x100x40xf32>, tensor<1x100x40xf32>, tensor<40x8xf32>, tensor<1x100x1x8xf32>, tensor<1x100x1x8xf32> -> tensor<1x100x40xf32>, tensor<1x40x8xf32>
  return %y, %h : tensor<1x100x40xf32>, tensor<1x40x8xf32>
}

// f16: 2 lanes x 4 groups, the thread's 4 states in one batch, one buffer.
func.func @batch_f16(%u: tensor<1x150x48xf16>, %delta: tensor<1x150x48xf16>, %A: tensor<48x16xf32>, %B: tensor<1x150x3x16xf16>, %C: tensor<1x150x3x16xf16>, %D: tensor<48xf32>, %z: tensor<1x150x48xf16>, %bias: tensor<48xf32>, %h0: tensor<1x48x16xf32>) -> (tensor<1x150x48xf16>, tensor<1x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<1x150x48xf16>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<1x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 64, lane_batch = 4, state_lanes = 4, time_lanes = 2>}
      : tensor<1x150x48xf16>, tensor<1x150x48xf16>, tensor<48x16xf32>, tensor<1x150x3x16xf16>, tensor<1x150x3x16xf16> -> tensor<1x150x48xf16>, tensor<1x48x16xf32>
  return %y, %h : tensor<1x150x48xf16>, tensor<1x48x16xf32>
}

// bf16: 4 lanes x 2 groups, the thread's 8 states in one batch, double
// buffer, batch 2.
func.func @batch_bf16(%u: tensor<2x150x48xbf16>, %delta: tensor<2x150x48xbf16>, %A: tensor<48x16xf32>, %B: tensor<2x150x3x16xbf16>, %C: tensor<2x150x3x16xbf16>, %D: tensor<48xf32>, %z: tensor<2x150x48xbf16>, %bias: tensor<48xf32>, %h0: tensor<2x48x16xf32>) -> (tensor<2x150x48xbf16>, tensor<2x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<2x150x48xbf16>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<2x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 64, double_buffer = 1, lane_batch = 8, state_lanes = 2, time_lanes = 4>}
      : tensor<2x150x48xbf16>, tensor<2x150x48xbf16>, tensor<48x16xf32>, tensor<2x150x3x16xbf16>, tensor<2x150x3x16xbf16> -> tensor<2x150x48xbf16>, tensor<2x48x16xf32>
  return %y, %h : tensor<2x150x48xbf16>, tensor<2x48x16xf32>
}

// Whole chunks (no tail), 8 lanes, no groups: 16 states a thread in
// batches of 2, double buffer.
func.func @batch_whole(%u: tensor<1x512x64xf32>, %delta: tensor<1x512x64xf32>, %A: tensor<64x16xf32>, %B: tensor<1x512x1x16xf32>, %C: tensor<1x512x1x16xf32>, %D: tensor<64xf32>, %z: tensor<1x512x64xf32>) -> (tensor<1x512x64xf32>) {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<64xf32>) z(%z : tensor<1x512x64xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 128, double_buffer = 1, lane_batch = 2, time_lanes = 8>}
      : tensor<1x512x64xf32>, tensor<1x512x64xf32>, tensor<64x16xf32>, tensor<1x512x1x16xf32>, tensor<1x512x1x16xf32> -> tensor<1x512x64xf32>
  return %y : tensor<1x512x64xf32>
}
