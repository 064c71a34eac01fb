// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Every reason the Vulkan config rules of ejk.paged_attention
// (lib/Ops/Paged/Vulkan/Layout.cpp) give for a config, as
// ejk-tile-dispatches reports it. The target has subgroups of 32 lanes; a
// team's natural size for head_dim 64 is 8 lanes (8 elements each).

// Entries are read first.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @missing_block_k(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{config needs 'block_k'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<num_splits = 2>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// num_subgroups x subgroup size is the workgroup.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @threads(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{'num_subgroups' (64) gives 2048 threads (subgroups of 32), more than the target's 1024 per workgroup}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 64, num_subgroups = 64>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// Fewer tokens a step than natural teams (4 of 8 lanes) make larger teams:
// 32 / 3 is no power of two.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @teams_pow2(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{'block_k' (3) tokens per step over 32 threads make teams of 32 / 3 lanes; a team must be a power of two of at most 32 lanes that divides head_dim 64}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 3>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// More tokens a step than teams: a multiple of them.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @teams_multiple(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{'block_k' (6) tokens per step must be a multiple of the 4 teams of 8 lanes, at most 16 per team}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 6>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// 1024 tokens a step over 32 threads: even 32 teams of one lane would read
// 32 tokens each.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @teams_too_many(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{'block_k' (1024) tokens per step must be a multiple of the 32 teams of 1 lanes, at most 16 per team}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 1024>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// 256 tokens a step over 32 threads leave teams of 2 lanes, 128 elements
// of head_dim 256 each.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @lane_state(%q: tensor<2x8x256xf32>, %kc: tensor<16x2x16x256xf32>, %vc: tensor<16x2x16x256xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x256xf32> {
  // expected-error @+1 {{teams of 2 lanes leave 128 elements of head_dim 256 to each lane, more than 64 (lower 'block_k')}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 256>}
      : tensor<2x8x256xf32>, tensor<16x2x16x256xf32>, tensor<16x2x16x256xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x256xf32>
  return %o : tensor<2x8x256xf32>
}
}

// -----

// A split needs a token: 2 pages of 16.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @splits(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x2xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{'num_splits' (40) is more than the 32 tokens a query can see}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 4, num_splits = 40>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x2xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// The window bounds the tokens a query sees.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @splits_window(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{'num_splits' (8) is more than the 4 tokens a query can see}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {sliding_window = 4 : i64, config = #ejk.config<block_k = 4, num_splits = 8>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// 32 subgroups merging 8 heads of 256: 32 * 8 * 258 * 4 bytes.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @shared(%q: tensor<2x8x256xf32>, %kc: tensor<16x1x16x256xf32>, %vc: tensor<16x1x16x256xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x256xf32> {
  // expected-error @+1 {{merging 32 subgroups of 8 heads of head_dim 256 takes 264192 bytes of workgroup memory, more than the target's 32768}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 32, num_subgroups = 32>}
      : tensor<2x8x256xf32>, tensor<16x1x16x256xf32>, tensor<16x1x16x256xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x256xf32>
  return %o : tensor<2x8x256xf32>
}
}

// -----

// Teams sum with shuffles.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @shuffle(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{the kernel reduces across the lanes of a subgroup with shuffles, which the target lacks ('subgroup_shuffle')}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 4>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// 16-bit buffers.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_shuffle"]}} {
func.func @storage16(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xbf16>, %vc: tensor<16x2x16x64xbf16>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{f16 and bf16 buffers need the device feature 'storage16'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 4>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xbf16>, tensor<16x2x16x64xbf16>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// f16 arithmetic.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["storage16", "subgroup_shuffle"]}} {
func.func @float16(%q: tensor<2x8x64xf16>, %kc: tensor<16x2x16x64xf16>, %vc: tensor<16x2x16x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{f16 buffers need the device feature 'float16'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 4>}
      : tensor<2x8x64xf16>, tensor<16x2x16x64xf16>, tensor<16x2x16x64xf16>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}
}
// -----

// Sequences are the grid's z.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @grid(%q: tensor<70000x2x64xf32>, %kc: tensor<16x2x16x64xf32>, %vc: tensor<16x2x16x64xf32>, %lens: tensor<70000xi32>, %tables: tensor<70000x4xi32>) -> tensor<70000x2x64xf32> {
  // expected-error @+1 {{the grid (1 x 2 x 70000) exceeds 65535 workgroups along a dimension}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 4>}
      : tensor<70000x2x64xf32>, tensor<16x2x16x64xf32>, tensor<16x2x16x64xf32>, tensor<70000xi32>, tensor<70000x4xi32> -> tensor<70000x2x64xf32>
  return %o : tensor<70000x2x64xf32>
}
}

// -----

// A quantized cache reads i8 and converts it.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @int8(%q: tensor<2x8x64xf32>, %kc: tensor<16x2x16x64xi8>, %vc: tensor<16x2x16x64xi8>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{i8 caches need the device features 'storage8' and 'int8'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {k_scale = 0.01 : f32, v_scale = 0.02 : f32, config = #ejk.config<block_k = 4>}
      : tensor<2x8x64xf32>, tensor<16x2x16x64xi8>, tensor<16x2x16x64xi8>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
}

// -----

// bf16 buffers are read as 16-bit integers: without 'int16' the dispatch
// was refused in its own name, not the op's.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @bf16_without_int16(%q: tensor<2x8x64xbf16>, %kc: tensor<16x2x16x64xbf16>, %vc: tensor<16x2x16x64xbf16>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>) -> tensor<2x8x64xbf16> {
  // expected-error @+1 {{is invalid: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 8>} : tensor<2x8x64xbf16>, tensor<16x2x16x64xbf16>, tensor<16x2x16x64xbf16>, tensor<2xi32>, tensor<2x4xi32> -> tensor<2x8x64xbf16>
  return %o : tensor<2x8x64xbf16>
}
}
