// ejk.native_sparse_attention's selection with one subgroup per token
// (`subgroup_select = 1`, LaneSelect.cpp) on lavapipe (8 lanes): against
// the reference evaluator, and byte for byte against the one-thread-per-token
// selection (the same block order in every sum: the same selected blocks
// and outputs) on the same inputs. Blocks past the lanes (25 blocks over 8
// lanes), head dims that are not whole lanes (36, 40), top-k past the
// blocks, GQA 1 to 8, a sequence shorter than a block; f32, f16, bf16.

// REQUIRES: vulkan

// RUN: ejk-run %s --entry gqa_2_lanes --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: rm -rf %t.gqa_2 && mkdir -p %t.gqa_2
// RUN: ejk-run %s --entry gqa_2_lanes --target vulkan --random-inputs 1 --output %t.gqa_2/lanes.npy
// RUN: ejk-run %s --entry gqa_2_threads --target vulkan --random-inputs 1 --output %t.gqa_2/threads.npy
// RUN: cmp %t.gqa_2/lanes.npy %t.gqa_2/threads.npy
// RUN: ejk-run %s --entry blocks_past_lanes_lanes --target vulkan --random-inputs 2 --check | FileCheck %s
// RUN: rm -rf %t.blocks_past_lanes && mkdir -p %t.blocks_past_lanes
// RUN: ejk-run %s --entry blocks_past_lanes_lanes --target vulkan --random-inputs 2 --output %t.blocks_past_lanes/lanes.npy
// RUN: ejk-run %s --entry blocks_past_lanes_threads --target vulkan --random-inputs 2 --output %t.blocks_past_lanes/threads.npy
// RUN: cmp %t.blocks_past_lanes/lanes.npy %t.blocks_past_lanes/threads.npy
// RUN: ejk-run %s --entry topk_more_than_all_lanes --target vulkan --random-inputs 3 --check | FileCheck %s
// RUN: rm -rf %t.topk_more_than_all && mkdir -p %t.topk_more_than_all
// RUN: ejk-run %s --entry topk_more_than_all_lanes --target vulkan --random-inputs 3 --output %t.topk_more_than_all/lanes.npy
// RUN: ejk-run %s --entry topk_more_than_all_threads --target vulkan --random-inputs 3 --output %t.topk_more_than_all/threads.npy
// RUN: cmp %t.topk_more_than_all/lanes.npy %t.topk_more_than_all/threads.npy
// RUN: ejk-run %s --entry gqa_8_f16_lanes --target vulkan --random-inputs 4 --check | FileCheck %s
// RUN: rm -rf %t.gqa_8_f16 && mkdir -p %t.gqa_8_f16
// RUN: ejk-run %s --entry gqa_8_f16_lanes --target vulkan --random-inputs 4 --output %t.gqa_8_f16/lanes.npy
// RUN: ejk-run %s --entry gqa_8_f16_threads --target vulkan --random-inputs 4 --output %t.gqa_8_f16/threads.npy
// RUN: cmp %t.gqa_8_f16/lanes.npy %t.gqa_8_f16/threads.npy
// RUN: ejk-run %s --entry bf16_lanes --target vulkan --random-inputs 5 --check | FileCheck %s
// RUN: rm -rf %t.bf16 && mkdir -p %t.bf16
// RUN: ejk-run %s --entry bf16_lanes --target vulkan --random-inputs 5 --output %t.bf16/lanes.npy
// RUN: ejk-run %s --entry bf16_threads --target vulkan --random-inputs 5 --output %t.bf16/threads.npy
// RUN: cmp %t.bf16/lanes.npy %t.bf16/threads.npy
// RUN: ejk-run %s --entry one_partial_block_lanes --target vulkan --random-inputs 6 --check | FileCheck %s
// RUN: rm -rf %t.one_partial_block && mkdir -p %t.one_partial_block
// RUN: ejk-run %s --entry one_partial_block_lanes --target vulkan --random-inputs 6 --output %t.one_partial_block/lanes.npy
// RUN: ejk-run %s --entry one_partial_block_threads --target vulkan --random-inputs 6 --output %t.one_partial_block/threads.npy
// RUN: cmp %t.one_partial_block/lanes.npy %t.one_partial_block/threads.npy

// CHECK-NOT: FAILED
// CHECK: result 0 ({{.*}}): {{.*}}: ok

func.func @gqa_2_lanes(%q: tensor<1x64x4x32xf32>, %k: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %gcmp: tensor<1x64x4xf32>, %gslc: tensor<1x64x4xf32>) -> tensor<1x64x4x32xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x64x4xf32>) g_slc(%gslc : tensor<1x64x4xf32>) {block_size = 16 : i64, block_counts = 2 : i64, config = #ejk.config<block_t = 16, subgroup_select = 1>}
      : tensor<1x64x4x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x4x32xf32>
  return %o : tensor<1x64x4x32xf32>
}

func.func @gqa_2_threads(%q: tensor<1x64x4x32xf32>, %k: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>, %gcmp: tensor<1x64x4xf32>, %gslc: tensor<1x64x4xf32>) -> tensor<1x64x4x32xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x64x4xf32>) g_slc(%gslc : tensor<1x64x4xf32>) {block_size = 16 : i64, block_counts = 2 : i64, config = #ejk.config<block_t = 16>}
      : tensor<1x64x4x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x4x32xf32>
  return %o : tensor<1x64x4x32xf32>
}

func.func @blocks_past_lanes_lanes(%q: tensor<1x200x4x36xf32>, %k: tensor<1x200x2x36xf32>, %v: tensor<1x200x2x36xf32>, %gcmp: tensor<1x200x4xf32>, %gslc: tensor<1x200x4xf32>) -> tensor<1x200x4x36xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x200x4xf32>) g_slc(%gslc : tensor<1x200x4xf32>) {block_size = 8 : i64, block_counts = 4 : i64, config = #ejk.config<block_t = 16, subgroup_select = 1>}
      : tensor<1x200x4x36xf32>, tensor<1x200x2x36xf32>, tensor<1x200x2x36xf32> -> tensor<1x200x4x36xf32>
  return %o : tensor<1x200x4x36xf32>
}

func.func @blocks_past_lanes_threads(%q: tensor<1x200x4x36xf32>, %k: tensor<1x200x2x36xf32>, %v: tensor<1x200x2x36xf32>, %gcmp: tensor<1x200x4xf32>, %gslc: tensor<1x200x4xf32>) -> tensor<1x200x4x36xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x200x4xf32>) g_slc(%gslc : tensor<1x200x4xf32>) {block_size = 8 : i64, block_counts = 4 : i64, config = #ejk.config<block_t = 16>}
      : tensor<1x200x4x36xf32>, tensor<1x200x2x36xf32>, tensor<1x200x2x36xf32> -> tensor<1x200x4x36xf32>
  return %o : tensor<1x200x4x36xf32>
}

func.func @topk_more_than_all_lanes(%q: tensor<1x48x2x16xf32>, %k: tensor<1x48x1x16xf32>, %v: tensor<1x48x1x16xf32>, %gcmp: tensor<1x48x2xf32>, %gslc: tensor<1x48x2xf32>) -> tensor<1x48x2x16xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x48x2xf32>) g_slc(%gslc : tensor<1x48x2xf32>) {block_size = 16 : i64, block_counts = 8 : i64, config = #ejk.config<block_t = 16, subgroup_select = 1>}
      : tensor<1x48x2x16xf32>, tensor<1x48x1x16xf32>, tensor<1x48x1x16xf32> -> tensor<1x48x2x16xf32>
  return %o : tensor<1x48x2x16xf32>
}

func.func @topk_more_than_all_threads(%q: tensor<1x48x2x16xf32>, %k: tensor<1x48x1x16xf32>, %v: tensor<1x48x1x16xf32>, %gcmp: tensor<1x48x2xf32>, %gslc: tensor<1x48x2xf32>) -> tensor<1x48x2x16xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x48x2xf32>) g_slc(%gslc : tensor<1x48x2xf32>) {block_size = 16 : i64, block_counts = 8 : i64, config = #ejk.config<block_t = 16>}
      : tensor<1x48x2x16xf32>, tensor<1x48x1x16xf32>, tensor<1x48x1x16xf32> -> tensor<1x48x2x16xf32>
  return %o : tensor<1x48x2x16xf32>
}

func.func @gqa_8_f16_lanes(%q: tensor<2x96x8x32xf16>, %k: tensor<2x96x1x32xf16>, %v: tensor<2x96x1x32xf16>, %gcmp: tensor<2x96x8xf16>, %gslc: tensor<2x96x8xf16>) -> tensor<2x96x8x32xf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<2x96x8xf16>) g_slc(%gslc : tensor<2x96x8xf16>) {block_size = 16 : i64, block_counts = 3 : i64, config = #ejk.config<block_t = 16, subgroup_select = 1>}
      : tensor<2x96x8x32xf16>, tensor<2x96x1x32xf16>, tensor<2x96x1x32xf16> -> tensor<2x96x8x32xf16>
  return %o : tensor<2x96x8x32xf16>
}

func.func @gqa_8_f16_threads(%q: tensor<2x96x8x32xf16>, %k: tensor<2x96x1x32xf16>, %v: tensor<2x96x1x32xf16>, %gcmp: tensor<2x96x8xf16>, %gslc: tensor<2x96x8xf16>) -> tensor<2x96x8x32xf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<2x96x8xf16>) g_slc(%gslc : tensor<2x96x8xf16>) {block_size = 16 : i64, block_counts = 3 : i64, config = #ejk.config<block_t = 16>}
      : tensor<2x96x8x32xf16>, tensor<2x96x1x32xf16>, tensor<2x96x1x32xf16> -> tensor<2x96x8x32xf16>
  return %o : tensor<2x96x8x32xf16>
}

func.func @bf16_lanes(%q: tensor<1x130x4x40xbf16>, %k: tensor<1x130x2x40xbf16>, %v: tensor<1x130x2x40xbf16>, %gcmp: tensor<1x130x4xbf16>, %gslc: tensor<1x130x4xbf16>) -> tensor<1x130x4x40xbf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x130x4xbf16>) g_slc(%gslc : tensor<1x130x4xbf16>) {block_size = 16 : i64, block_counts = 3 : i64, config = #ejk.config<block_t = 16, subgroup_select = 1>}
      : tensor<1x130x4x40xbf16>, tensor<1x130x2x40xbf16>, tensor<1x130x2x40xbf16> -> tensor<1x130x4x40xbf16>
  return %o : tensor<1x130x4x40xbf16>
}

func.func @bf16_threads(%q: tensor<1x130x4x40xbf16>, %k: tensor<1x130x2x40xbf16>, %v: tensor<1x130x2x40xbf16>, %gcmp: tensor<1x130x4xbf16>, %gslc: tensor<1x130x4xbf16>) -> tensor<1x130x4x40xbf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x130x4xbf16>) g_slc(%gslc : tensor<1x130x4xbf16>) {block_size = 16 : i64, block_counts = 3 : i64, config = #ejk.config<block_t = 16>}
      : tensor<1x130x4x40xbf16>, tensor<1x130x2x40xbf16>, tensor<1x130x2x40xbf16> -> tensor<1x130x4x40xbf16>
  return %o : tensor<1x130x4x40xbf16>
}

func.func @one_partial_block_lanes(%q: tensor<1x12x2x16xf32>, %k: tensor<1x12x2x16xf32>, %v: tensor<1x12x2x16xf32>, %gcmp: tensor<1x12x2xf32>, %gslc: tensor<1x12x2xf32>) -> tensor<1x12x2x16xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x12x2xf32>) g_slc(%gslc : tensor<1x12x2xf32>) {block_size = 16 : i64, block_counts = 1 : i64, config = #ejk.config<block_t = 16, subgroup_select = 1>}
      : tensor<1x12x2x16xf32>, tensor<1x12x2x16xf32>, tensor<1x12x2x16xf32> -> tensor<1x12x2x16xf32>
  return %o : tensor<1x12x2x16xf32>
}

func.func @one_partial_block_threads(%q: tensor<1x12x2x16xf32>, %k: tensor<1x12x2x16xf32>, %v: tensor<1x12x2x16xf32>, %gcmp: tensor<1x12x2xf32>, %gslc: tensor<1x12x2xf32>) -> tensor<1x12x2x16xf32> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gcmp : tensor<1x12x2xf32>) g_slc(%gslc : tensor<1x12x2xf32>) {block_size = 16 : i64, block_counts = 1 : i64, config = #ejk.config<block_t = 16>}
      : tensor<1x12x2x16xf32>, tensor<1x12x2x16xf32>, tensor<1x12x2x16xf32> -> tensor<1x12x2x16xf32>
  return %o : tensor<1x12x2x16xf32>
}
