// ejk.ssd's chunk-parallel path (chunk_parallel = 1, SsdChunkedKernel.cpp)
// on Vulkan against the reference: tails (L not a whole number of chunks),
// one chunk, groups, odd head_dim and d_state, head_dim blocks that do not
// divide head_dim, every option alone and all together, f32/f16/bf16, and
// the heuristic's choice on a mamba2-like problem (chunk_parallel, as the
// sequence has more than one chunk). Configs for lavapipe (subgroup 8, 32
// KiB). Written by hand (not by generate_tests.py).

// REQUIRES: vulkan

// RUN: ejk-run %s --entry tail_all_f32 --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry tail_all_f16 --target vulkan --random-inputs 2 --check | FileCheck %s
// RUN: ejk-run %s --entry tail_all_bf16 --target vulkan --random-inputs 3 --check | FileCheck %s
// RUN: ejk-run %s --entry odd_shapes --target vulkan --random-inputs 4 --check | FileCheck %s
// RUN: ejk-run %s --entry odd_state --target vulkan --random-inputs 5 --check | FileCheck %s
// RUN: ejk-run %s --entry whole_chunks --target vulkan --random-inputs 6 --check | FileCheck %s
// RUN: ejk-run %s --entry one_chunk --target vulkan --random-inputs 7 --check | FileCheck %s
// RUN: ejk-run %s --entry skip --target vulkan --random-inputs 8 --check | FileCheck %s
// RUN: ejk-run %s --entry gate --target vulkan --random-inputs 9 --check | FileCheck %s
// RUN: ejk-run %s --entry bias --target vulkan --random-inputs 10 --check | FileCheck %s
// RUN: ejk-run %s --entry softplus --target vulkan --random-inputs 11 --check | FileCheck %s
// RUN: ejk-run %s --entry initial_state --target vulkan --random-inputs 12 --check | FileCheck %s
// RUN: ejk-run %s --entry final_state --target vulkan --random-inputs 13 --check | FileCheck %s
// RUN: ejk-run %s --entry heuristic_mamba2_like --target vulkan --random-inputs 14 --check | FileCheck %s

// CHECK: result 0 ({{.*}}): {{.*}}: ok
// CHECK-NOT: FAILED

func.func @tail_all_f32(%x: tensor<2x300x4x24xf32>, %dt: tensor<2x300x4xf32>, %A: tensor<4xf32>, %B: tensor<2x300x2x16xf32>, %C: tensor<2x300x2x16xf32>, %D: tensor<4xf32>, %z: tensor<2x300x4x24xf32>, %dt_bias: tensor<4xf32>, %initial_state: tensor<2x4x24x16xf32>) -> (tensor<2x300x4x24xf32>, tensor<2x4x24x16xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<4xf32>) z(%z : tensor<2x300x4x24xf32>) dt_bias(%dt_bias : tensor<4xf32>) initial_state(%initial_state : tensor<2x4x24x16xf32>) {dt_softplus, config = #ejk.config<block_n = 8, block_p = 16, chunk_parallel = 1, chunk_size = 32, num_subgroups = 16>}
      : tensor<2x300x4x24xf32>, tensor<2x300x4xf32>, tensor<4xf32>, tensor<2x300x2x16xf32>, tensor<2x300x2x16xf32> -> tensor<2x300x4x24xf32>, tensor<2x4x24x16xf32>
  return %y, %h : tensor<2x300x4x24xf32>, tensor<2x4x24x16xf32>
}

func.func @tail_all_f16(%x: tensor<1x200x4x32xf16>, %dt: tensor<1x200x4xf16>, %A: tensor<4xf32>, %B: tensor<1x200x2x32xf16>, %C: tensor<1x200x2x32xf16>, %D: tensor<4xf32>, %z: tensor<1x200x4x32xf16>, %dt_bias: tensor<4xf32>, %initial_state: tensor<1x4x32x32xf32>) -> (tensor<1x200x4x32xf16>, tensor<1x4x32x32xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<4xf32>) z(%z : tensor<1x200x4x32xf16>) dt_bias(%dt_bias : tensor<4xf32>) initial_state(%initial_state : tensor<1x4x32x32xf32>) {dt_softplus, config = #ejk.config<block_n = 16, block_p = 32, chunk_parallel = 1, chunk_size = 32, num_subgroups = 16>}
      : tensor<1x200x4x32xf16>, tensor<1x200x4xf16>, tensor<4xf32>, tensor<1x200x2x32xf16>, tensor<1x200x2x32xf16> -> tensor<1x200x4x32xf16>, tensor<1x4x32x32xf32>
  return %y, %h : tensor<1x200x4x32xf16>, tensor<1x4x32x32xf32>
}

func.func @tail_all_bf16(%x: tensor<1x200x4x32xbf16>, %dt: tensor<1x200x4xbf16>, %A: tensor<4xf32>, %B: tensor<1x200x2x32xbf16>, %C: tensor<1x200x2x32xbf16>, %D: tensor<4xf32>, %z: tensor<1x200x4x32xbf16>, %dt_bias: tensor<4xf32>, %initial_state: tensor<1x4x32x32xf32>) -> (tensor<1x200x4x32xbf16>, tensor<1x4x32x32xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<4xf32>) z(%z : tensor<1x200x4x32xbf16>) dt_bias(%dt_bias : tensor<4xf32>) initial_state(%initial_state : tensor<1x4x32x32xf32>) {dt_softplus, config = #ejk.config<block_n = 16, block_p = 32, chunk_parallel = 1, chunk_size = 32, num_subgroups = 16>}
      : tensor<1x200x4x32xbf16>, tensor<1x200x4xbf16>, tensor<4xf32>, tensor<1x200x2x32xbf16>, tensor<1x200x2x32xbf16> -> tensor<1x200x4x32xbf16>, tensor<1x4x32x32xf32>
  return %y, %h : tensor<1x200x4x32xbf16>, tensor<1x4x32x32xf32>
}

func.func @odd_shapes(%x: tensor<1x333x6x40xf32>, %dt: tensor<1x333x6xf32>, %A: tensor<6xf32>, %B: tensor<1x333x3x24xf32>, %C: tensor<1x333x3x24xf32>, %D: tensor<6xf32>, %z: tensor<1x333x6x40xf32>, %initial_state: tensor<1x6x40x24xf32>) -> (tensor<1x333x6x40xf32>, tensor<1x6x40x24xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<6xf32>) z(%z : tensor<1x333x6x40xf32>) initial_state(%initial_state : tensor<1x6x40x24xf32>) {dt_softplus, config = #ejk.config<block_n = 8, block_p = 32, chunk_parallel = 1, chunk_size = 32, num_subgroups = 32>}
      : tensor<1x333x6x40xf32>, tensor<1x333x6xf32>, tensor<6xf32>, tensor<1x333x3x24xf32>, tensor<1x333x3x24xf32> -> tensor<1x333x6x40xf32>, tensor<1x6x40x24xf32>
  return %y, %h : tensor<1x333x6x40xf32>, tensor<1x6x40x24xf32>
}

func.func @odd_state(%x: tensor<1x100x2x24xf32>, %dt: tensor<1x100x2xf32>, %A: tensor<2xf32>, %B: tensor<1x100x1x6xf32>, %C: tensor<1x100x1x6xf32>, %initial_state: tensor<1x2x24x6xf32>) -> (tensor<1x100x2x24xf32>, tensor<1x2x24x6xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C initial_state(%initial_state : tensor<1x2x24x6xf32>) {config = #ejk.config<block_n = 6, block_p = 16, chunk_parallel = 1, chunk_size = 16, num_subgroups = 4>}
      : tensor<1x100x2x24xf32>, tensor<1x100x2xf32>, tensor<2xf32>, tensor<1x100x1x6xf32>, tensor<1x100x1x6xf32> -> tensor<1x100x2x24xf32>, tensor<1x2x24x6xf32>
  return %y, %h : tensor<1x100x2x24xf32>, tensor<1x2x24x6xf32>
}

func.func @whole_chunks(%x: tensor<1x256x2x64xf32>, %dt: tensor<1x256x2xf32>, %A: tensor<2xf32>, %B: tensor<1x256x1x64xf32>, %C: tensor<1x256x1x64xf32>) -> (tensor<1x256x2x64xf32>) {
  %y = ejk.ssd %x, %dt, %A, %B, %C {config = #ejk.config<block_n = 16, block_p = 32, chunk_parallel = 1, chunk_size = 64, num_subgroups = 32>}
      : tensor<1x256x2x64xf32>, tensor<1x256x2xf32>, tensor<2xf32>, tensor<1x256x1x64xf32>, tensor<1x256x1x64xf32> -> tensor<1x256x2x64xf32>
  return %y : tensor<1x256x2x64xf32>
}

func.func @one_chunk(%x: tensor<1x50x2x16xf32>, %dt: tensor<1x50x2xf32>, %A: tensor<2xf32>, %B: tensor<1x50x1x16xf32>, %C: tensor<1x50x1x16xf32>, %D: tensor<2xf32>, %z: tensor<1x50x2x16xf32>, %dt_bias: tensor<2xf32>, %initial_state: tensor<1x2x16x16xf32>) -> (tensor<1x50x2x16xf32>, tensor<1x2x16x16xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<2xf32>) z(%z : tensor<1x50x2x16xf32>) dt_bias(%dt_bias : tensor<2xf32>) initial_state(%initial_state : tensor<1x2x16x16xf32>) {dt_softplus, config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 64, num_subgroups = 8>}
      : tensor<1x50x2x16xf32>, tensor<1x50x2xf32>, tensor<2xf32>, tensor<1x50x1x16xf32>, tensor<1x50x1x16xf32> -> tensor<1x50x2x16xf32>, tensor<1x2x16x16xf32>
  return %y, %h : tensor<1x50x2x16xf32>, tensor<1x2x16x16xf32>
}

func.func @skip(%x: tensor<1x100x2x16xf32>, %dt: tensor<1x100x2xf32>, %A: tensor<2xf32>, %B: tensor<1x100x1x16xf32>, %C: tensor<1x100x1x16xf32>, %D: tensor<2xf32>) -> (tensor<1x100x2x16xf32>) {
  %y = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<2xf32>) {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 32, num_subgroups = 8>}
      : tensor<1x100x2x16xf32>, tensor<1x100x2xf32>, tensor<2xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x2x16xf32>
  return %y : tensor<1x100x2x16xf32>
}

func.func @gate(%x: tensor<1x100x2x16xf32>, %dt: tensor<1x100x2xf32>, %A: tensor<2xf32>, %B: tensor<1x100x1x16xf32>, %C: tensor<1x100x1x16xf32>, %z: tensor<1x100x2x16xf32>) -> (tensor<1x100x2x16xf32>) {
  %y = ejk.ssd %x, %dt, %A, %B, %C z(%z : tensor<1x100x2x16xf32>) {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 32, num_subgroups = 8>}
      : tensor<1x100x2x16xf32>, tensor<1x100x2xf32>, tensor<2xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x2x16xf32>
  return %y : tensor<1x100x2x16xf32>
}

func.func @bias(%x: tensor<1x100x2x16xf32>, %dt: tensor<1x100x2xf32>, %A: tensor<2xf32>, %B: tensor<1x100x1x16xf32>, %C: tensor<1x100x1x16xf32>, %dt_bias: tensor<2xf32>) -> (tensor<1x100x2x16xf32>) {
  %y = ejk.ssd %x, %dt, %A, %B, %C dt_bias(%dt_bias : tensor<2xf32>) {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 32, num_subgroups = 8>}
      : tensor<1x100x2x16xf32>, tensor<1x100x2xf32>, tensor<2xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x2x16xf32>
  return %y : tensor<1x100x2x16xf32>
}

func.func @softplus(%x: tensor<1x100x2x16xf32>, %dt: tensor<1x100x2xf32>, %A: tensor<2xf32>, %B: tensor<1x100x1x16xf32>, %C: tensor<1x100x1x16xf32>) -> (tensor<1x100x2x16xf32>) {
  %y = ejk.ssd %x, %dt, %A, %B, %C {dt_softplus, config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 32, num_subgroups = 8>}
      : tensor<1x100x2x16xf32>, tensor<1x100x2xf32>, tensor<2xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x2x16xf32>
  return %y : tensor<1x100x2x16xf32>
}

func.func @initial_state(%x: tensor<1x100x2x16xf32>, %dt: tensor<1x100x2xf32>, %A: tensor<2xf32>, %B: tensor<1x100x1x16xf32>, %C: tensor<1x100x1x16xf32>, %initial_state: tensor<1x2x16x16xf32>) -> (tensor<1x100x2x16xf32>) {
  %y = ejk.ssd %x, %dt, %A, %B, %C initial_state(%initial_state : tensor<1x2x16x16xf32>) {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 32, num_subgroups = 8>}
      : tensor<1x100x2x16xf32>, tensor<1x100x2xf32>, tensor<2xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x2x16xf32>
  return %y : tensor<1x100x2x16xf32>
}

func.func @final_state(%x: tensor<1x100x2x16xf32>, %dt: tensor<1x100x2xf32>, %A: tensor<2xf32>, %B: tensor<1x100x1x16xf32>, %C: tensor<1x100x1x16xf32>) -> (tensor<1x100x2x16xf32>, tensor<1x2x16x16xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C {config = #ejk.config<block_n = 16, block_p = 16, chunk_parallel = 1, chunk_size = 32, num_subgroups = 8>}
      : tensor<1x100x2x16xf32>, tensor<1x100x2xf32>, tensor<2xf32>, tensor<1x100x1x16xf32>, tensor<1x100x1x16xf32> -> tensor<1x100x2x16xf32>, tensor<1x2x16x16xf32>
  return %y, %h : tensor<1x100x2x16xf32>, tensor<1x2x16x16xf32>
}

func.func @heuristic_mamba2_like(%x: tensor<1x512x4x64xf32>, %dt: tensor<1x512x4xf32>, %A: tensor<4xf32>, %B: tensor<1x512x1x128xf32>, %C: tensor<1x512x1x128xf32>, %D: tensor<4xf32>, %z: tensor<1x512x4x64xf32>, %initial_state: tensor<1x4x64x128xf32>) -> (tensor<1x512x4x64xf32>, tensor<1x4x64x128xf32>) {
  %y, %h = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<4xf32>) z(%z : tensor<1x512x4x64xf32>) initial_state(%initial_state : tensor<1x4x64x128xf32>) {dt_softplus}
      : tensor<1x512x4x64xf32>, tensor<1x512x4xf32>, tensor<4xf32>, tensor<1x512x1x128xf32>, tensor<1x512x1x128xf32> -> tensor<1x512x4x64xf32>, tensor<1x4x64x128xf32>
  return %y, %h : tensor<1x512x4x64xf32>, tensor<1x4x64x128xf32>
}
