// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-form-dispatches -ejk-tile-dispatches

// Vulkan config errors of the cooperative-matrix prefill kernel of the
// ragged ops (lib/Ops/Paged/Vulkan/PrefillRules.cpp): 'block_q' above 1
// runs it; where it cannot run (target, dtypes, head_dim, features) or a
// config does not fit (threads, workgroup memory, key tiles), the message
// says so and 'block_q' = 1 (the decode kernel) is the way out.

module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @no_coop(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf16> {
  // expected-error @+1 {{'block_q' (16) above 1 runs the cooperative-matrix prefill kernel, but the target has no cooperative matrices; 'block_q' = 1 runs every row on the decode kernel}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32>} : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @f32(%q: tensor<40x8x64xf32>, %kc: tensor<40x16x2x64xf32>, %vc: tensor<40x16x2x64xf32>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf32> {
  // expected-error @+1 {{'block_q' (16) above 1 runs the cooperative-matrix prefill kernel, but it takes f16 queries and caches (or bf16 ones); 'block_q' = 1 runs every row on the decode kernel}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32>} : tensor<40x8x64xf32>, tensor<40x16x2x64xf32>, tensor<40x16x2x64xf32>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf32>
  return %o : tensor<40x8x64xf32>
}
}

// -----

// bf16 without bf16 cooperative matrices (no 'cooperative_matrix_bf16').
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_shuffle"]}} {
func.func @bf16(%q: tensor<40x8x64xbf16>, %kc: tensor<40x16x2x64xbf16>, %vc: tensor<40x16x2x64xbf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{'block_q' (16) above 1 runs the cooperative-matrix prefill kernel, but bf16 queries and caches need bf16 cooperative matrices; 'block_q' = 1 runs every row on the decode kernel}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32>} : tensor<40x8x64xbf16>, tensor<40x16x2x64xbf16>, tensor<40x16x2x64xbf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @head_dim(%q: tensor<40x8x72xf16>, %kc: tensor<40x16x2x72xf16>, %vc: tensor<40x16x2x72xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x72xf16> {
  // expected-error @+1 {{'block_q' (16) above 1 runs the cooperative-matrix prefill kernel, but it takes a head_dim that is a multiple of 16; 'block_q' = 1 runs every row on the decode kernel}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32>} : tensor<40x8x72xf16>, tensor<40x16x2x72xf16>, tensor<40x16x2x72xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x72xf16>
  return %o : tensor<40x8x72xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @subgroup8(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf16> {
  // expected-error @+1 {{'block_q' (16) above 1 runs the cooperative-matrix prefill kernel, but it takes subgroups of a multiple of 16 lanes; 'block_q' = 1 runs every row on the decode kernel}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32>} : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["storage16", "subgroup_shuffle"]}} {
func.func @no_float16(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf16> {
  // expected-error @+1 {{'block_q' (16) above 1 runs the cooperative-matrix prefill kernel, but it needs the 'float16' and 'storage16' features; 'block_q' = 1 runs every row on the decode kernel}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32>} : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16"]}} {
func.func @no_shuffle(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf16> {
  // expected-error @+1 {{'block_q' (16) above 1 runs the cooperative-matrix prefill kernel, but it needs the 'subgroup_shuffle' feature; 'block_q' = 1 runs every row on the decode kernel}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32>} : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @prefill_block_k(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf16> {
  // expected-error @+1 {{'prefill_block_k' (24) must be a multiple of 16 (the cooperative-matrix kernel's key tiles)}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32, prefill_block_k = 24>} : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @threads(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf16> {
  // expected-error @+1 {{'block_q' (132) tokens of 4 query heads are 528 rows, 33 subgroups of 16 rows: 1056 threads, more than the target's 1024 per workgroup}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 132, block_k = 32>} : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @shared(%q: tensor<40x8x128xf16>, %kc: tensor<40x16x2x128xf16>, %vc: tensor<40x16x2x128xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x128xf16> {
  // expected-error @+1 {{'block_q' (16) and 'prefill_block_k' (128) need 125952 bytes of workgroup memory, more than the target's 49152}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 16, block_k = 32, prefill_block_k = 128>} : tensor<40x8x128xf16>, tensor<40x16x2x128xf16>, tensor<40x16x2x128xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x128xf16>
  return %o : tensor<40x8x128xf16>
}
}

// -----

module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @decode_only(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf16> {
  // expected-error @+1 {{'prefill_block_k' is the cooperative-matrix kernel's, which 'block_q' = 1 does not run}}
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n {config = #ejk.config<block_q = 1, block_k = 32, prefill_block_k = 32>} : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}
}

// -----

// unified_attention takes the same rules (here on f32, no cooperative
// matrices).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_shuffle"]}} {
func.func @unified_block_q(%q: tensor<8x4x32xf32>, %kc: tensor<8x16x2x32xf32>, %vc: tensor<8x16x2x32xf32>, %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %starts: tensor<3xi32>) -> tensor<8x4x32xf32> {
  // expected-error @+1 {{'block_q' (4) above 1 runs the cooperative-matrix prefill kernel, but the target has no cooperative matrices; 'block_q' = 1 runs every row on the decode kernel}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts {config = #ejk.config<block_q = 4, block_k = 64>} : tensor<8x4x32xf32>, tensor<8x16x2x32xf32>, tensor<8x16x2x32xf32>, tensor<2xi32>, tensor<2x4xi32>, tensor<3xi32> -> tensor<8x4x32xf32>
  return %o : tensor<8x4x32xf32>
}
}
