// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs="policy=heuristics target=vulkan vulkan-features=float16,storage16 explain" -ejk-form-dispatches -ejk-tile-dispatches

// ejk.block_sparse_attention's heuristic on a device with subgroup
// operations 'basic' only (lib/Ops/Attention/Vulkan/BlockSparse.cpp).
// Without shuffles the portable kernel runs one thread per row: a
// workgroup of 32 or more rows, each keeping its whole output row. Where
// such a config exists the heuristic takes it; where none does, the op's
// error names the missing shuffles (it used to report the smallest
// config's row-group rule: "'block_q' (1) must be a multiple of the 32 row
// groups of 32 threads with 1 threads per row").

// Mask blocks of 64 rows, head dim 64: 64 rows of one key a workgroup.
func.func @fits(%q: tensor<1x256x2x64xf32>, %k: tensor<1x256x2x64xf32>) -> tensor<1x256x2x64xf32> {
  // expected-remark @+1 {{config #ejk.config<block_k = 1, block_q = 64, num_subgroups = 2> from the heuristic tier}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 64 : i64, kv_block_size = 64 : i64}
      : tensor<1x256x2x64xf32>, tensor<1x256x2x64xf32>, tensor<1x256x2x64xf32> -> tensor<1x256x2x64xf32>
  return %o : tensor<1x256x2x64xf32>
}

// -----

// Mask blocks of 16 rows: fewer rows than a subgroup's threads.
func.func @small_mask_blocks(%q: tensor<1x64x2x16xf32>, %k: tensor<1x64x2x16xf32>) -> tensor<1x64x2x16xf32> {
  // expected-error @+1 {{'ejk.block_sparse_attention' op config #ejk.config<block_k = 16, block_q = 16, num_subgroups = 4> from the heuristic tier is invalid for this target: the kernel combines rows across 16 threads with subgroup shuffles, which the target lacks ('subgroup_shuffle')}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 16 : i64, kv_block_size = 16 : i64}
      : tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32>, tensor<1x64x2x16xf32> -> tensor<1x64x2x16xf32>
  return %o : tensor<1x64x2x16xf32>
}

// -----

// Head dim 128: a thread's whole output row is more than its registers.
func.func @wide_rows(%q: tensor<1x256x2x128xf32>, %k: tensor<1x256x2x128xf32>) -> tensor<1x256x2x128xf32> {
  // expected-error @+1 {{'ejk.block_sparse_attention' op config #ejk.config<block_k = 64, block_q = 64, num_subgroups = 4> from the heuristic tier is invalid for this target: the kernel combines rows across 16 threads with subgroup shuffles, which the target lacks ('subgroup_shuffle')}}
  %o = ejk.block_sparse_attention %q, %k, %k {q_block_size = 64 : i64, kv_block_size = 64 : i64}
      : tensor<1x256x2x128xf32>, tensor<1x256x2x128xf32>, tensor<1x256x2x128xf32> -> tensor<1x256x2x128xf32>
  return %o : tensor<1x256x2x128xf32>
}
