// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-lower-to-spirv

// Dispatches marked ejk.matrix_operands (bf16 operand matrices) that the
// Vulkan lowering refuses.

// A device without bf16 cooperative matrices (no 'cooperative_matrix_bf16').
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_basic"]}} {
  // expected-error @+1 {{dispatch 'd' multiplies bf16 cooperative matrices (VK_KHR_shader_bfloat16, 16x16x16 bf16*bf16+f32=f32), which the Vulkan target lacks}}
  func.func private @d(%a: memref<16x16xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.matrix_operands = "bf16"} {
    return
  }
}

// -----

// A value other than "bf16".
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_bf16", "float16", "storage16", "subgroup_basic"]}} {
  // expected-error @+1 {{dispatch 'd' has ejk.matrix_operands = "f8"; the only value is "bf16"}}
  func.func private @d(%a: memref<16x16xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.matrix_operands = "f8"} {
    return
  }
}

// -----

// Arithmetic on an operand matrix: SPV_KHR_bfloat16 allows none on bf16.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_bf16", "float16", "storage16", "subgroup_basic"]}} {
  func.func private @d(%a: memref<16x16xf16>, %c: memref<16x16xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.matrix_operands = "bf16"} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %acc = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %A = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %B = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    // expected-error @+1 {{'spirv.FNegate' op computes on a bf16 operand matrix; a kernel marked for bf16 matrices may only load, store, convert and multiply-add them}}
    %N = gpu.subgroup_mma_elementwise negatef %A : (!gpu.mma_matrix<16x16xf16, "AOp">) -> !gpu.mma_matrix<16x16xf16, "AOp">
    %D = gpu.subgroup_mma_compute %N, %B, %acc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %D, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    return
  }
}

// -----

// An f16 element that is neither a constant nor a conversion (its bits would
// be read as bf16) put into an operand matrix.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_bf16", "float16", "storage16", "subgroup_basic"]}} {
  func.func private @d(%a: memref<16xf16>, %c: memref<16x16xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.matrix_operands = "bf16"} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %h = arith.constant 0.0 : f16
    %acc = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %A0 = gpu.subgroup_mma_constant_matrix %h : !gpu.mma_matrix<16x16xf16, "AOp">
    %B = gpu.subgroup_mma_constant_matrix %h : !gpu.mma_matrix<16x16xf16, "BOp">
    %x = memref.load %a[%c0] : memref<16xf16>
    // expected-error @+1 {{'spirv.CompositeInsert' op puts an f16 value that is neither a constant nor a conversion into a bf16 matrix}}
    %A = gpu.subgroup_mma_insert_thread_local %x, %A0[%c0] : f16, !gpu.mma_matrix<16x16xf16, "AOp"> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %D = gpu.subgroup_mma_compute %A, %B, %acc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %D, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    return
  }
}

// -----

// An element of an operand matrix read other than by a conversion.
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["cooperative_matrix_bf16", "float16", "storage16", "subgroup_basic"]}} {
  func.func private @d(%a: memref<16x16xf16>, %c: memref<16xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.matrix_operands = "bf16"} {
    %c0 = arith.constant 0 : index
    %A = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %x = gpu.subgroup_mma_extract_thread_local %A[%c0] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    // expected-error @+1 {{'spirv.Store' op reads an element of a bf16 matrix other than by a conversion}}
    memref.store %x, %c[%c0] : memref<16xf16>
    return
  }
}
