// ejk.selective_scan's time-segments scan (`time_segments`: the channels
// along a subgroup's lanes, with `state_lanes` groups of states, and each
// chunk's steps split across subgroups; SelectiveScanSegments.cpp) on
// Vulkan against the reference: tail chunks, partial blocks, blocks spanning
// groups of B/C, one to four state groups, one to eight segments, f16/bf16,
// batches, every option. lavapipe's subgroups of 8 bound block_d x
// state_lanes. Written by hand (issue 21).

// REQUIRES: vulkan

// RUN: ejk-run %s --entry seg_tail --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry seg_odd --target vulkan --random-inputs 2 --check | FileCheck %s
// RUN: ejk-run %s --entry seg_f16 --target vulkan --random-inputs 3 --check | FileCheck %s
// RUN: ejk-run %s --entry seg_bf16 --target vulkan --random-inputs 4 --check | FileCheck %s
// RUN: ejk-run %s --entry seg_whole --target vulkan --random-inputs 5 --check | FileCheck %s
// RUN: ejk-run %s --entry seg_one --target vulkan --random-inputs 6 --check | FileCheck %s
// RUN: ejk-run %s --entry seg_short --target vulkan --random-inputs 7 --check | FileCheck %s
// RUN: ejk-run %s --entry seg_groups_odd --target vulkan --random-inputs 8 --check | FileCheck %s

// CHECK: result 0 ({{.*}}): {{.*}}: ok
// CHECK-NOT: FAILED

// 4 channels x 2 state groups x 4 segments of 8 steps, B and C as 16-byte
// words; L 1000 (a tail chunk), 42 channels (a partial last block, blocks
// spanning the 2 groups of B/C), every option.
func.func @seg_tail(%u: tensor<1x1000x42xf32>, %delta: tensor<1x1000x42xf32>, %A: tensor<42x16xf32>, %B: tensor<1x1000x2x16xf32>, %C: tensor<1x1000x2x16xf32>, %D: tensor<42xf32>, %z: tensor<1x1000x42xf32>, %bias: tensor<42xf32>, %h0: tensor<1x42x16xf32>) -> (tensor<1x1000x42xf32>, tensor<1x42x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<42xf32>) z(%z : tensor<1x1000x42xf32>) delta_bias(%bias : tensor<42xf32>) initial_state(%h0 : tensor<1x42x16xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 32, state_lanes = 2, time_segments = 4>}
      : tensor<1x1000x42xf32>, tensor<1x1000x42xf32>, tensor<42x16xf32>, tensor<1x1000x2x16xf32>, tensor<1x1000x2x16xf32> -> tensor<1x1000x42xf32>, tensor<1x42x16xf32>
  return %y, %h : tensor<1x1000x42xf32>, tensor<1x42x16xf32>
}

// One state group: 6 channels (not a power of two), 3 segments of 5 steps,
// d_state 7 (scalar B and C), 4 groups of B/C, batch 2, every option.
func.func @seg_odd(%u: tensor<2x333x44xf32>, %delta: tensor<2x333x44xf32>, %A: tensor<44x7xf32>, %B: tensor<2x333x4x7xf32>, %C: tensor<2x333x4x7xf32>, %D: tensor<44xf32>, %z: tensor<2x333x44xf32>, %bias: tensor<44xf32>, %h0: tensor<2x44x7xf32>) -> (tensor<2x333x44xf32>, tensor<2x44x7xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<44xf32>) z(%z : tensor<2x333x44xf32>) delta_bias(%bias : tensor<44xf32>) initial_state(%h0 : tensor<2x44x7xf32>) {delta_softplus, config = #ejk.config<block_d = 6, chunk_l = 15, time_segments = 3>}
      : tensor<2x333x44xf32>, tensor<2x333x44xf32>, tensor<44x7xf32>, tensor<2x333x4x7xf32>, tensor<2x333x4x7xf32> -> tensor<2x333x44xf32>, tensor<2x44x7xf32>
  return %y, %h : tensor<2x333x44xf32>, tensor<2x44x7xf32>
}

// f16: 4 segments of 4 steps, 8 states a thread (scalar B and C).
func.func @seg_f16(%u: tensor<1x150x48xf16>, %delta: tensor<1x150x48xf16>, %A: tensor<48x16xf32>, %B: tensor<1x150x3x16xf16>, %C: tensor<1x150x3x16xf16>, %D: tensor<48xf32>, %z: tensor<1x150x48xf16>, %bias: tensor<48xf32>, %h0: tensor<1x48x16xf32>) -> (tensor<1x150x48xf16>, tensor<1x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<1x150x48xf16>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<1x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 16, state_lanes = 2, time_segments = 4>}
      : tensor<1x150x48xf16>, tensor<1x150x48xf16>, tensor<48x16xf32>, tensor<1x150x3x16xf16>, tensor<1x150x3x16xf16> -> tensor<1x150x48xf16>, tensor<1x48x16xf32>
  return %y, %h : tensor<1x150x48xf16>, tensor<1x48x16xf32>
}

// bf16: 4 state groups (two rounds of the groups' sum), 2 segments of 8
// steps, batch 2.
func.func @seg_bf16(%u: tensor<2x150x48xbf16>, %delta: tensor<2x150x48xbf16>, %A: tensor<48x16xf32>, %B: tensor<2x150x3x16xbf16>, %C: tensor<2x150x3x16xbf16>, %D: tensor<48xf32>, %z: tensor<2x150x48xbf16>, %bias: tensor<48xf32>, %h0: tensor<2x48x16xf32>) -> (tensor<2x150x48xbf16>, tensor<2x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<2x150x48xbf16>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<2x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 2, chunk_l = 16, state_lanes = 4, time_segments = 2>}
      : tensor<2x150x48xbf16>, tensor<2x150x48xbf16>, tensor<48x16xf32>, tensor<2x150x3x16xbf16>, tensor<2x150x3x16xbf16> -> tensor<2x150x48xbf16>, tensor<2x48x16xf32>
  return %y, %h : tensor<2x150x48xbf16>, tensor<2x48x16xf32>
}

// Whole chunks: 8 segments of 8 steps (the mamba1 shape's segments), no
// initial or final state.
func.func @seg_whole(%u: tensor<1x512x64xf32>, %delta: tensor<1x512x64xf32>, %A: tensor<64x16xf32>, %B: tensor<1x512x1x16xf32>, %C: tensor<1x512x1x16xf32>, %D: tensor<64xf32>, %z: tensor<1x512x64xf32>) -> (tensor<1x512x64xf32>) {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<64xf32>) z(%z : tensor<1x512x64xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 64, state_lanes = 2, time_segments = 8>}
      : tensor<1x512x64xf32>, tensor<1x512x64xf32>, tensor<64x16xf32>, tensor<1x512x1x16xf32>, tensor<1x512x1x16xf32> -> tensor<1x512x64xf32>
  return %y : tensor<1x512x64xf32>
}

// One segment (no (P, H) exchange, only the carry), one word of B and C,
// no softplus.
func.func @seg_one(%u: tensor<1x100x24xf32>, %delta: tensor<1x100x24xf32>, %A: tensor<24x4xf32>, %B: tensor<1x100x1x4xf32>, %C: tensor<1x100x1x4xf32>, %D: tensor<24xf32>) -> (tensor<1x100x24xf32>, tensor<1x24x4xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<24xf32>) {config = #ejk.config<block_d = 8, chunk_l = 8, time_segments = 1>}
      : tensor<1x100x24xf32>, tensor<1x100x24xf32>, tensor<24x4xf32>, tensor<1x100x1x4xf32>, tensor<1x100x1x4xf32> -> tensor<1x100x24xf32>, tensor<1x24x4xf32>
  return %y, %h : tensor<1x100x24xf32>, tensor<1x24x4xf32>
}

// L shorter than one chunk (two segments wholly past the sequence).
func.func @seg_short(%u: tensor<1x10x16xf32>, %delta: tensor<1x10x16xf32>, %A: tensor<16x16xf32>, %B: tensor<1x10x1x16xf32>, %C: tensor<1x10x1x16xf32>, %D: tensor<16xf32>, %z: tensor<1x10x16xf32>, %bias: tensor<16xf32>, %h0: tensor<1x16x16xf32>) -> (tensor<1x10x16xf32>, tensor<1x16x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<16xf32>) z(%z : tensor<1x10x16xf32>) delta_bias(%bias : tensor<16xf32>) initial_state(%h0 : tensor<1x16x16xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 32, state_lanes = 2, time_segments = 4>}
      : tensor<1x10x16xf32>, tensor<1x10x16xf32>, tensor<16x16xf32>, tensor<1x10x1x16xf32>, tensor<1x10x1x16xf32> -> tensor<1x10x16xf32>, tensor<1x16x16xf32>
  return %y, %h : tensor<1x10x16xf32>, tensor<1x16x16xf32>
}

// 4 state groups of 2 states with 2 steps a segment (fewer steps than
// groups: every group computes its own softplus), 3 segments, 2 channels a
// block (a partial last block of 10), every option.
func.func @seg_groups_odd(%u: tensor<1x77x9xf32>, %delta: tensor<1x77x9xf32>, %A: tensor<9x8xf32>, %B: tensor<1x77x1x8xf32>, %C: tensor<1x77x1x8xf32>, %D: tensor<9xf32>, %z: tensor<1x77x9xf32>, %bias: tensor<9xf32>, %h0: tensor<1x9x8xf32>) -> (tensor<1x77x9xf32>, tensor<1x9x8xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<9xf32>) z(%z : tensor<1x77x9xf32>) delta_bias(%bias : tensor<9xf32>) initial_state(%h0 : tensor<1x9x8xf32>) {delta_softplus, config = #ejk.config<block_d = 2, chunk_l = 6, state_lanes = 4, time_segments = 3>}
      : tensor<1x77x9xf32>, tensor<1x77x9xf32>, tensor<9x8xf32>, tensor<1x77x1x8xf32>, tensor<1x77x1x8xf32> -> tensor<1x77x9xf32>, tensor<1x9x8xf32>
  return %y, %h : tensor<1x77x9xf32>, tensor<1x9x8xf32>
}
