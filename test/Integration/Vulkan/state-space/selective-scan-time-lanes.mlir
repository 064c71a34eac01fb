// ejk.selective_scan's time-lanes scan (`time_lanes`) on Vulkan against the
// reference: a tail chunk, a sequence shorter than one chunk, channel blocks
// spanning groups and a partial last block, several channels per subgroup
// (4 and 2 lanes), non-power-of-two steps per thread, one lane (no
// shuffles), 32 states, every option, f16/bf16, batches, initial and final
// states, and a mamba1-like block of whole chunks. Written by hand (issue 21).

// REQUIRES: vulkan

// RUN: ejk-run %s --entry lanes_tail --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_short --target vulkan --random-inputs 2 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_groups_span --target vulkan --random-inputs 3 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_segments --target vulkan --random-inputs 4 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_one --target vulkan --random-inputs 5 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_whole --target vulkan --random-inputs 6 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_states32 --target vulkan --random-inputs 7 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_f16 --target vulkan --random-inputs 8 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_bf16 --target vulkan --random-inputs 9 --check | FileCheck %s
// RUN: ejk-run %s --entry lanes_mamba1_like --target vulkan --random-inputs 10 --check | FileCheck %s

// CHECK: result 0 ({{.*}}): {{.*}}: ok
// CHECK-NOT: FAILED

func.func @lanes_tail(%u: tensor<1x1000x64xf32>, %delta: tensor<1x1000x64xf32>, %A: tensor<64x5xf32>, %B: tensor<1x1000x1x5xf32>, %C: tensor<1x1000x1x5xf32>, %D: tensor<64xf32>, %z: tensor<1x1000x64xf32>, %bias: tensor<64xf32>, %h0: tensor<1x64x5xf32>) -> (tensor<1x1000x64xf32>, tensor<1x64x5xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<64xf32>) z(%z : tensor<1x1000x64xf32>) delta_bias(%bias : tensor<64xf32>) initial_state(%h0 : tensor<1x64x5xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 64, time_lanes = 8>}
      : tensor<1x1000x64xf32>, tensor<1x1000x64xf32>, tensor<64x5xf32>, tensor<1x1000x1x5xf32>, tensor<1x1000x1x5xf32> -> tensor<1x1000x64xf32>, tensor<1x64x5xf32>
  return %y, %h : tensor<1x1000x64xf32>, tensor<1x64x5xf32>
}

func.func @lanes_short(%u: tensor<1x7x32xf32>, %delta: tensor<1x7x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x7x1x16xf32>, %C: tensor<1x7x1x16xf32>, %D: tensor<32xf32>, %z: tensor<1x7x32xf32>, %bias: tensor<32xf32>, %h0: tensor<1x32x16xf32>) -> (tensor<1x7x32xf32>, tensor<1x32x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<32xf32>) z(%z : tensor<1x7x32xf32>) delta_bias(%bias : tensor<32xf32>) initial_state(%h0 : tensor<1x32x16xf32>) {delta_softplus, config = #ejk.config<block_d = 8, chunk_l = 64, time_lanes = 8>}
      : tensor<1x7x32xf32>, tensor<1x7x32xf32>, tensor<32x16xf32>, tensor<1x7x1x16xf32>, tensor<1x7x1x16xf32> -> tensor<1x7x32xf32>, tensor<1x32x16xf32>
  return %y, %h : tensor<1x7x32xf32>, tensor<1x32x16xf32>
}

func.func @lanes_groups_span(%u: tensor<1x130x48xf32>, %delta: tensor<1x130x48xf32>, %A: tensor<48x16xf32>, %B: tensor<1x130x4x16xf32>, %C: tensor<1x130x4x16xf32>, %D: tensor<48xf32>, %z: tensor<1x130x48xf32>, %bias: tensor<48xf32>, %h0: tensor<1x48x16xf32>) -> (tensor<1x130x48xf32>, tensor<1x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<1x130x48xf32>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<1x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 20, chunk_l = 16, time_lanes = 2>}
      : tensor<1x130x48xf32>, tensor<1x130x48xf32>, tensor<48x16xf32>, tensor<1x130x4x16xf32>, tensor<1x130x4x16xf32> -> tensor<1x130x48xf32>, tensor<1x48x16xf32>
  return %y, %h : tensor<1x130x48xf32>, tensor<1x48x16xf32>
}

func.func @lanes_segments(%u: tensor<2x77x44xf32>, %delta: tensor<2x77x44xf32>, %A: tensor<44x16xf32>, %B: tensor<2x77x2x16xf32>, %C: tensor<2x77x2x16xf32>, %D: tensor<44xf32>, %z: tensor<2x77x44xf32>, %bias: tensor<44xf32>, %h0: tensor<2x44x16xf32>) -> (tensor<2x77x44xf32>, tensor<2x44x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<44xf32>) z(%z : tensor<2x77x44xf32>) delta_bias(%bias : tensor<44xf32>) initial_state(%h0 : tensor<2x44x16xf32>) {delta_softplus, config = #ejk.config<block_d = 6, chunk_l = 12, time_lanes = 4>}
      : tensor<2x77x44xf32>, tensor<2x77x44xf32>, tensor<44x16xf32>, tensor<2x77x2x16xf32>, tensor<2x77x2x16xf32> -> tensor<2x77x44xf32>, tensor<2x44x16xf32>
  return %y, %h : tensor<2x77x44xf32>, tensor<2x44x16xf32>
}

func.func @lanes_one(%u: tensor<1x100x40xf32>, %delta: tensor<1x100x40xf32>, %A: tensor<40x7xf32>, %B: tensor<1x100x1x7xf32>, %C: tensor<1x100x1x7xf32>, %D: tensor<40xf32>, %h0: tensor<1x40x7xf32>) -> (tensor<1x100x40xf32>, tensor<1x40x7xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<40xf32>) initial_state(%h0 : tensor<1x40x7xf32>) {delta_softplus, config = #ejk.config<block_d = 8, chunk_l = 5, time_lanes = 1>}
      : tensor<1x100x40xf32>, tensor<1x100x40xf32>, tensor<40x7xf32>, tensor<1x100x1x7xf32>, tensor<1x100x1x7xf32> -> tensor<1x100x40xf32>, tensor<1x40x7xf32>
  return %y, %h : tensor<1x100x40xf32>, tensor<1x40x7xf32>
}

func.func @lanes_whole(%u: tensor<1x256x32xf32>, %delta: tensor<1x256x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x256x1x16xf32>, %C: tensor<1x256x1x16xf32>, %D: tensor<32xf32>) -> (tensor<1x256x32xf32>, tensor<1x32x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<32xf32>) {config = #ejk.config<block_d = 2, chunk_l = 128, time_lanes = 8>}
      : tensor<1x256x32xf32>, tensor<1x256x32xf32>, tensor<32x16xf32>, tensor<1x256x1x16xf32>, tensor<1x256x1x16xf32> -> tensor<1x256x32xf32>, tensor<1x32x16xf32>
  return %y, %h : tensor<1x256x32xf32>, tensor<1x32x16xf32>
}

func.func @lanes_states32(%u: tensor<1x90x16xf32>, %delta: tensor<1x90x16xf32>, %A: tensor<16x32xf32>, %B: tensor<1x90x1x32xf32>, %C: tensor<1x90x1x32xf32>, %z: tensor<1x90x16xf32>) -> (tensor<1x90x16xf32>) {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C z(%z : tensor<1x90x16xf32>) {delta_softplus, config = #ejk.config<block_d = 1, chunk_l = 32, time_lanes = 8>}
      : tensor<1x90x16xf32>, tensor<1x90x16xf32>, tensor<16x32xf32>, tensor<1x90x1x32xf32>, tensor<1x90x1x32xf32> -> tensor<1x90x16xf32>
  return %y : tensor<1x90x16xf32>
}

func.func @lanes_f16(%u: tensor<1x150x48xf16>, %delta: tensor<1x150x48xf16>, %A: tensor<48x16xf32>, %B: tensor<1x150x3x16xf16>, %C: tensor<1x150x3x16xf16>, %D: tensor<48xf32>, %z: tensor<1x150x48xf16>, %bias: tensor<48xf32>, %h0: tensor<1x48x16xf32>) -> (tensor<1x150x48xf16>, tensor<1x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<1x150x48xf16>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<1x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 64, time_lanes = 8>}
      : tensor<1x150x48xf16>, tensor<1x150x48xf16>, tensor<48x16xf32>, tensor<1x150x3x16xf16>, tensor<1x150x3x16xf16> -> tensor<1x150x48xf16>, tensor<1x48x16xf32>
  return %y, %h : tensor<1x150x48xf16>, tensor<1x48x16xf32>
}

func.func @lanes_bf16(%u: tensor<2x150x48xbf16>, %delta: tensor<2x150x48xbf16>, %A: tensor<48x16xf32>, %B: tensor<2x150x3x16xbf16>, %C: tensor<2x150x3x16xbf16>, %D: tensor<48xf32>, %z: tensor<2x150x48xbf16>, %bias: tensor<48xf32>, %h0: tensor<2x48x16xf32>) -> (tensor<2x150x48xbf16>, tensor<2x48x16xf32>) {
  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<48xf32>) z(%z : tensor<2x150x48xbf16>) delta_bias(%bias : tensor<48xf32>) initial_state(%h0 : tensor<2x48x16xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 64, time_lanes = 8>}
      : tensor<2x150x48xbf16>, tensor<2x150x48xbf16>, tensor<48x16xf32>, tensor<2x150x3x16xbf16>, tensor<2x150x3x16xbf16> -> tensor<2x150x48xbf16>, tensor<2x48x16xf32>
  return %y, %h : tensor<2x150x48xbf16>, tensor<2x48x16xf32>
}

func.func @lanes_mamba1_like(%u: tensor<1x2048x64xf32>, %delta: tensor<1x2048x64xf32>, %A: tensor<64x16xf32>, %B: tensor<1x2048x1x16xf32>, %C: tensor<1x2048x1x16xf32>, %D: tensor<64xf32>, %z: tensor<1x2048x64xf32>) -> (tensor<1x2048x64xf32>) {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<64xf32>) z(%z : tensor<1x2048x64xf32>) {delta_softplus, config = #ejk.config<block_d = 4, chunk_l = 128, time_lanes = 8>}
      : tensor<1x2048x64xf32>, tensor<1x2048x64xf32>, tensor<64x16xf32>, tensor<1x2048x1x16xf32>, tensor<1x2048x1x16xf32> -> tensor<1x2048x64xf32>
  return %y : tensor<1x2048x64xf32>
}
