// ejk.selective_scan's channel-lanes scan (`channel_lanes = 1`: a lane = a
// channel with every state in registers, B and C the same for the lanes, no
// shared memory; SelectiveScanChannels.cpp) on Vulkan against the
// reference: one pass and split (two dispatches), partial splits and step
// groups, partial channel blocks, blocks spanning groups of B/C, 1 to 32
// states, f32 words and scalar B/C, f16/bf16, `poly_exp` (exp2 by a
// polynomial) for none, some and every state, `fetch_ahead` (delta, u, z
// several groups ahead), `carry_pass` (a dispatch joins the splits), every
// option present and absent. Written by hand
// (issue 21).

// REQUIRES: vulkan

// RUN: ejk-run %s --entry cl_tail --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_one --target vulkan --random-inputs 2 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_f16 --target vulkan --random-inputs 3 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_bf16 --target vulkan --random-inputs 4 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_odd --target vulkan --random-inputs 5 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_n32 --target vulkan --random-inputs 6 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_n1 --target vulkan --random-inputs 7 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_ahead_tail --target vulkan --random-inputs 8 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_ahead_f16 --target vulkan --random-inputs 9 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_ahead_one --target vulkan --random-inputs 10 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_carry_tail --target vulkan --random-inputs 11 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_carry_bf16 --target vulkan --random-inputs 12 --check | FileCheck %s
// RUN: ejk-run %s --entry cl_carry_noinit --target vulkan --random-inputs 13 --check | FileCheck %s

// CHECK: result 0 ({{.*}}): {{.*}}: ok
// CHECK-NOT: FAILED

// 8 channels a workgroup (42: a partial last block, blocks spanning the 2
// groups of B/C), splits of 128 (L 1000: a partial last split) in groups of
// 3 steps (neither L nor the split a multiple), B and C as 16-byte words,
// 4 states' exp2 by the polynomial, every option.
func.func @cl_tail(%u: tensor<1x1000x42xf32>, %delta: tensor<1x1000x42xf32>, %A: tensor<42x16xf32>, %B: tensor<1x1000x2x16xf32>, %C: tensor<1x1000x2x16xf32>, %D: tensor<42xf32>, %z: tensor<1x1000x42xf32>, %bias: tensor<42xf32>, %h0: tensor<1x42x16xf32>) -> (tensor<1x1000x42xf32>, tensor<1x42x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<42xf32>) z(%z : tensor<1x1000x42xf32>) delta_bias(%bias : tensor<42xf32>) initial_state(%h0 : tensor<1x42x16xf32>) {delta_softplus, config = #ejk.config<block_d = 8, channel_lanes = 1, chunk_l = 3, poly_exp = 4, split_l = 128>}
      : tensor<1x1000x42xf32>, tensor<1x1000x42xf32>, tensor<42x16xf32>, tensor<1x1000x2x16xf32>, tensor<1x1000x2x16xf32> -> tensor<1x1000x42xf32>, tensor<1x42x16xf32>
  return %y, %h : tensor<1x1000x42xf32>, tensor<1x42x16xf32>
}

// One pass (no split_l: one dispatch), batch 2, 2 steps a group (333: a
// tail), a partial block, D and the states only, no softplus.
func.func @cl_one(%u: tensor<2x333x20xf32>, %delta: tensor<2x333x20xf32>, %A: tensor<20x16xf32>, %B: tensor<2x333x1x16xf32>, %C: tensor<2x333x1x16xf32>, %D: tensor<20xf32>, %h0: tensor<2x20x16xf32>) -> (tensor<2x333x20xf32>, tensor<2x20x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<20xf32>) initial_state(%h0 : tensor<2x20x16xf32>) {config = #ejk.config<block_d = 16, channel_lanes = 1, chunk_l = 2>}
      : tensor<2x333x20xf32>, tensor<2x333x20xf32>, tensor<20x16xf32>, tensor<2x333x1x16xf32>, tensor<2x333x1x16xf32> -> tensor<2x333x20xf32>, tensor<2x20x16xf32>
  return %y, %h : tensor<2x333x20xf32>, tensor<2x20x16xf32>
}

// f16 inputs (scalar B and C), every state's exp2 by the polynomial, a
// partial last split.
func.func @cl_f16(%u: tensor<1x150x48xf16>, %delta: tensor<1x150x48xf16>, %A: tensor<48x16xf32>, %B: tensor<1x150x2x16xf16>, %C: tensor<1x150x2x16xf16>, %D: tensor<48xf32>, %z: tensor<1x150x48xf16>, %bias: tensor<48xf32>, %h0: tensor<1x48x16xf32>) -> (tensor<1x150x48xf16>, tensor<1x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<1x150x48xf16>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<1x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 16, channel_lanes = 1, chunk_l = 2, poly_exp = 16, split_l = 64>}
      : tensor<1x150x48xf16>, tensor<1x150x48xf16>, tensor<48x16xf32>, tensor<1x150x2x16xf16>, tensor<1x150x2x16xf16> -> tensor<1x150x48xf16>, tensor<1x48x16xf32>
  return %y, %h : tensor<1x150x48xf16>, tensor<1x48x16xf32>
}

// bf16 inputs, 8 states, 4 groups of 11 channels, splits of 50 in groups
// of 4 steps.
func.func @cl_bf16(%u: tensor<2x150x44xbf16>, %delta: tensor<2x150x44xbf16>, %A: tensor<44x8xf32>, %B: tensor<2x150x4x8xbf16>, %C: tensor<2x150x4x8xbf16>, %D: tensor<44xf32>, %z: tensor<2x150x44xbf16>, %bias: tensor<44xf32>, %h0: tensor<2x44x8xf32>) -> (tensor<2x150x44xbf16>, tensor<2x44x8xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<44xf32>) z(%z : tensor<2x150x44xbf16>) delta_bias(%bias : tensor<44xf32>) initial_state(%h0 : tensor<2x44x8xf32>) {delta_softplus, config = #ejk.config<block_d = 8, channel_lanes = 1, chunk_l = 4, poly_exp = 3, split_l = 50>}
      : tensor<2x150x44xbf16>, tensor<2x150x44xbf16>, tensor<44x8xf32>, tensor<2x150x4x8xbf16>, tensor<2x150x4x8xbf16> -> tensor<2x150x44xbf16>, tensor<2x44x8xf32>
  return %y, %h : tensor<2x150x44xbf16>, tensor<2x44x8xf32>
}

// 7 states (scalar f32 B and C), no D, z, bias or softplus, only the
// final state; 9 channels in blocks of 4.
func.func @cl_odd(%u: tensor<1x333x9xf32>, %delta: tensor<1x333x9xf32>, %A: tensor<9x7xf32>, %B: tensor<1x333x1x7xf32>, %C: tensor<1x333x1x7xf32>) -> (tensor<1x333x9xf32>, tensor<1x9x7xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C {config = #ejk.config<block_d = 4, channel_lanes = 1, chunk_l = 5, poly_exp = 7, split_l = 100>}
      : tensor<1x333x9xf32>, tensor<1x333x9xf32>, tensor<9x7xf32>, tensor<1x333x1x7xf32>, tensor<1x333x1x7xf32> -> tensor<1x333x9xf32>, tensor<1x9x7xf32>
  return %y, %h : tensor<1x333x9xf32>, tensor<1x9x7xf32>
}

// 32 states a lane (the most), whole groups and splits (no step
// predicates).
func.func @cl_n32(%u: tensor<1x256x64xf32>, %delta: tensor<1x256x64xf32>, %A: tensor<64x32xf32>, %B: tensor<1x256x1x32xf32>, %C: tensor<1x256x1x32xf32>, %D: tensor<64xf32>, %h0: tensor<1x64x32xf32>) -> (tensor<1x256x64xf32>, tensor<1x64x32xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<64xf32>) initial_state(%h0 : tensor<1x64x32xf32>) {delta_softplus, config = #ejk.config<block_d = 32, channel_lanes = 1, chunk_l = 4, poly_exp = 8, split_l = 64>}
      : tensor<1x256x64xf32>, tensor<1x256x64xf32>, tensor<64x32xf32>, tensor<1x256x1x32xf32>, tensor<1x256x1x32xf32> -> tensor<1x256x64xf32>, tensor<1x64x32xf32>
  return %y, %h : tensor<1x256x64xf32>, tensor<1x64x32xf32>
}

// 1 state, one step a group, 8 splits.
func.func @cl_n1(%u: tensor<1x77x16xf32>, %delta: tensor<1x77x16xf32>, %A: tensor<16x1xf32>, %B: tensor<1x77x1x1xf32>, %C: tensor<1x77x1x1xf32>, %D: tensor<16xf32>, %z: tensor<1x77x16xf32>, %bias: tensor<16xf32>, %h0: tensor<1x16x1xf32>) -> (tensor<1x77x16xf32>, tensor<1x16x1xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<16xf32>) z(%z : tensor<1x77x16xf32>) delta_bias(%bias : tensor<16xf32>) initial_state(%h0 : tensor<1x16x1xf32>) {delta_softplus, config = #ejk.config<block_d = 16, channel_lanes = 1, chunk_l = 1, poly_exp = 1, split_l = 10>}
      : tensor<1x77x16xf32>, tensor<1x77x16xf32>, tensor<16x1xf32>, tensor<1x77x1x1xf32>, tensor<1x77x1x1xf32> -> tensor<1x77x16xf32>, tensor<1x16x1xf32>
  return %y, %h : tensor<1x77x16xf32>, tensor<1x16x1xf32>
}

// `fetch_ahead`: delta, u, z 5 groups of 3 steps ahead (past the split's
// last group: clamped), B and C one; partial splits, groups and blocks.
func.func @cl_ahead_tail(%u: tensor<1x1000x42xf32>, %delta: tensor<1x1000x42xf32>, %A: tensor<42x16xf32>, %B: tensor<1x1000x2x16xf32>, %C: tensor<1x1000x2x16xf32>, %D: tensor<42xf32>, %z: tensor<1x1000x42xf32>, %bias: tensor<42xf32>, %h0: tensor<1x42x16xf32>) -> (tensor<1x1000x42xf32>, tensor<1x42x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<42xf32>) z(%z : tensor<1x1000x42xf32>) delta_bias(%bias : tensor<42xf32>) initial_state(%h0 : tensor<1x42x16xf32>) {delta_softplus, config = #ejk.config<block_d = 8, channel_lanes = 1, chunk_l = 3, fetch_ahead = 5, poly_exp = 4, split_l = 128>}
      : tensor<1x1000x42xf32>, tensor<1x1000x42xf32>, tensor<42x16xf32>, tensor<1x1000x2x16xf32>, tensor<1x1000x2x16xf32> -> tensor<1x1000x42xf32>, tensor<1x42x16xf32>
  return %y, %h : tensor<1x1000x42xf32>, tensor<1x42x16xf32>
}

// f16 inputs, 16 groups of 2 steps ahead (more than a split holds).
func.func @cl_ahead_f16(%u: tensor<2x150x48xf16>, %delta: tensor<2x150x48xf16>, %A: tensor<48x16xf32>, %B: tensor<2x150x2x16xf16>, %C: tensor<2x150x2x16xf16>, %D: tensor<48xf32>, %z: tensor<2x150x48xf16>, %bias: tensor<48xf32>, %h0: tensor<2x48x16xf32>) -> (tensor<2x150x48xf16>, tensor<2x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<2x150x48xf16>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<2x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 16, channel_lanes = 1, chunk_l = 2, fetch_ahead = 16, split_l = 64>}
      : tensor<2x150x48xf16>, tensor<2x150x48xf16>, tensor<48x16xf32>, tensor<2x150x2x16xf16>, tensor<2x150x2x16xf16> -> tensor<2x150x48xf16>, tensor<2x48x16xf32>
  return %y, %h : tensor<2x150x48xf16>, tensor<2x48x16xf32>
}

// One pass, 8 states, 8 groups of 4 steps ahead (the most: 32 steps).
func.func @cl_ahead_one(%u: tensor<1x333x20xf32>, %delta: tensor<1x333x20xf32>, %A: tensor<20x8xf32>, %B: tensor<1x333x1x8xf32>, %C: tensor<1x333x1x8xf32>, %D: tensor<20xf32>, %h0: tensor<1x20x8xf32>) -> (tensor<1x333x20xf32>, tensor<1x20x8xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<20xf32>) initial_state(%h0 : tensor<1x20x8xf32>) {delta_softplus, config = #ejk.config<block_d = 16, channel_lanes = 1, chunk_l = 4, fetch_ahead = 8>}
      : tensor<1x333x20xf32>, tensor<1x333x20xf32>, tensor<20x8xf32>, tensor<1x333x1x8xf32>, tensor<1x333x1x8xf32> -> tensor<1x333x20xf32>, tensor<1x20x8xf32>
  return %y, %h : tensor<1x333x20xf32>, tensor<1x20x8xf32>
}

// `carry_pass`: a dispatch between the two folds the 15 splits' end states
// (each split then loads its start state); batch 2, a partial last split
// and block, every option, 16 states x 42 channels: 3 carry workgroups.
func.func @cl_carry_tail(%u: tensor<2x1000x42xf32>, %delta: tensor<2x1000x42xf32>, %A: tensor<42x16xf32>, %B: tensor<2x1000x2x16xf32>, %C: tensor<2x1000x2x16xf32>, %D: tensor<42xf32>, %z: tensor<2x1000x42xf32>, %bias: tensor<42xf32>, %h0: tensor<2x42x16xf32>) -> (tensor<2x1000x42xf32>, tensor<2x42x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<42xf32>) z(%z : tensor<2x1000x42xf32>) delta_bias(%bias : tensor<42xf32>) initial_state(%h0 : tensor<2x42x16xf32>) {delta_softplus, config = #ejk.config<block_d = 8, carry_pass = 1, channel_lanes = 1, chunk_l = 3, fetch_ahead = 4, poly_exp = 4, split_l = 64>}
      : tensor<2x1000x42xf32>, tensor<2x1000x42xf32>, tensor<42x16xf32>, tensor<2x1000x2x16xf32>, tensor<2x1000x2x16xf32> -> tensor<2x1000x42xf32>, tensor<2x42x16xf32>
  return %y, %h : tensor<2x1000x42xf32>, tensor<2x42x16xf32>
}

// bf16, 8 states, splits of 37 (9).
func.func @cl_carry_bf16(%u: tensor<1x300x44xbf16>, %delta: tensor<1x300x44xbf16>, %A: tensor<44x8xf32>, %B: tensor<1x300x4x8xbf16>, %C: tensor<1x300x4x8xbf16>, %D: tensor<44xf32>, %z: tensor<1x300x44xbf16>, %bias: tensor<44xf32>, %h0: tensor<1x44x8xf32>) -> (tensor<1x300x44xbf16>, tensor<1x44x8xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<44xf32>) z(%z : tensor<1x300x44xbf16>) delta_bias(%bias : tensor<44xf32>) initial_state(%h0 : tensor<1x44x8xf32>) {delta_softplus, config = #ejk.config<block_d = 16, carry_pass = 1, channel_lanes = 1, chunk_l = 2, split_l = 37>}
      : tensor<1x300x44xbf16>, tensor<1x300x44xbf16>, tensor<44x8xf32>, tensor<1x300x4x8xbf16>, tensor<1x300x4x8xbf16> -> tensor<1x300x44xbf16>, tensor<1x44x8xf32>
  return %y, %h : tensor<1x300x44xbf16>, tensor<1x44x8xf32>
}

// No initial state (the carry starts from 0), 5 states (scalar B, C), only
// the final state and D.
func.func @cl_carry_noinit(%u: tensor<1x200x20xf32>, %delta: tensor<1x200x20xf32>, %A: tensor<20x5xf32>, %B: tensor<1x200x1x5xf32>, %C: tensor<1x200x1x5xf32>, %D: tensor<20xf32>) -> (tensor<1x200x20xf32>, tensor<1x20x5xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<20xf32>) {config = #ejk.config<block_d = 8, carry_pass = 1, channel_lanes = 1, chunk_l = 1, split_l = 30>}
      : tensor<1x200x20xf32>, tensor<1x200x20xf32>, tensor<20x5xf32>, tensor<1x200x1x5xf32>, tensor<1x200x1x5xf32> -> tensor<1x200x20xf32>, tensor<1x20x5xf32>
  return %y, %h : tensor<1x200x20xf32>, tensor<1x20x5xf32>
}
