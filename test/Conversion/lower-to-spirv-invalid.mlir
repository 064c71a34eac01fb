// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-prepare-vulkan-kernels

// A dispatch without a workgroup size.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' has no 'ejk.workgroup_size' (array<i64: x, y, z>); the Vulkan lowering needs its workgroup size}}
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>} {

    return
  }
}

// -----

// A malformed workgroup size.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' has a malformed 'ejk.workgroup_size' array<i64: 64, 0>; expected 3 sizes >= 1}}
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 0>} {

    return
  }
}

// -----

// A workgroup beyond the limit along z.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' workgroup size array<i64: 1, 1, 128> exceeds the target's maximum 64 along dimension 2}}
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 1, 1, 128>} {

    return
  }
}

// -----

// Too many invocations.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' has 2048 invocations per workgroup, more than the target's 1024}}
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 1024, 2, 1>} {

    return
  }
}

// -----

// No grid.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' has no 'ejk.grid' of 3 sizes}}
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.workgroup_size = array<i64: 64, 1, 1>} {

    return
  }
}

// -----

// A dynamic buffer.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' argument 0 has type 'memref<?xf32>'; Vulkan dispatch arguments are static identity-layout memrefs in the default memory space of f32, f16, bf16, i32, i64, i8 or i1}}
  func.func private @d(%a: memref<?xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {

    return
  }
}

// -----

// A feature the target lacks, asked for by the tiling pass.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' requires device feature "int8", which the Vulkan target lacks}}
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>, ejk.requires = ["int8"]} {

    return
  }
}

// -----

// An op outside the contract.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'vector.load' op is not supported in a Vulkan dispatch (expected arith, math, scf, memref load/store/alloc, gpu ids, barrier, subgroup barrier, shuffle, subgroup MMA ops, vector views of arguments, vector.extract, vector.from_elements, vector.extract_strided_slice or vector.bitcast)}}
    %v = vector.load %a[%c0] : memref<64xf32>, vector<4xf32>
    return
  }
}

// -----

// A spirv.ControlBarrier is admitted at subgroup scope only (the in-order
// cooperative gla kernel's form 2); the workgroup's barrier is gpu.barrier.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
    // expected-error @+1 {{'spirv.ControlBarrier' op in a Vulkan dispatch must be a subgroup barrier (subgroup execution and memory scope; gpu.barrier is the workgroup's)}}
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    return
  }
}

// -----

// A shuffle on a target without subgroup shuffles.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_vote"]}} {
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %x = arith.constant 1.0 : f32
    %o = arith.constant 1 : i32
    %w = arith.constant 8 : i32
    // expected-error @+1 {{'gpu.shuffle' op needs device feature 'subgroup_shuffle', which the Vulkan target lacks}}
    %s, %ok = gpu.shuffle xor %x, %o, %w : f32
    return
  }
}

// -----

// A shuffle narrower than the target's subgroup (a kernel written for
// subgroups of 8 compiled for 32): SPIR-V's shuffles span the subgroup.
// (It failed to legalize 'gpu.shuffle', without saying why.)
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %x = arith.constant 1.0 : f32
    %o = arith.constant 1 : i32
    %w = arith.constant 8 : i32
    // expected-error @+1 {{'gpu.shuffle' op has width 8, but the Vulkan target's subgroup size is 32: SPIR-V shuffles span the whole subgroup, so the width must be the subgroup size}}
    %s, %ok = gpu.shuffle xor %x, %o, %w : f32
    return
  }
}

// -----

// A shuffle whose width is not a constant.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xi32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %x = arith.constant 1.0 : f32
    %o = arith.constant 1 : i32
    %c0 = arith.constant 0 : index
    %w = memref.load %a[%c0] : memref<64xi32>
    // expected-error @+1 {{'gpu.shuffle' op has a width that is not a constant: SPIR-V shuffles span the whole subgroup, so the width must be the Vulkan target's subgroup size (32)}}
    %s, %ok = gpu.shuffle xor %x, %o, %w : f32
    return
  }
}

// -----

// A subgroup reduction without subgroup arithmetic.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %x = arith.constant 1.0 : f32
    // expected-error @+1 {{'gpu.subgroup_reduce' op needs device feature 'subgroup_arithmetic', which the Vulkan target lacks}}
    %s = gpu.subgroup_reduce add %x : (f32) -> f32
    return
  }
}

// -----

// Cooperative matrices on a target without them.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<256xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'gpu.subgroup_mma_load_matrix' op needs cooperative matrices (VK_KHR_cooperative_matrix 16x16x16 f16*f16+f32=f32), which the Vulkan target lacks}}
    %m = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 16 : index} : memref<256xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    return
  }
}

// -----

// Cooperative matrices on a target of SPIR-V 1.3: MLIR's SPIR-V dialect
// takes the KHR matrix ops from 1.6 on (this failed to legalize, unsaid why).
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<256xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'gpu.subgroup_mma_load_matrix' op needs cooperative matrices, which the SPIR-V dialect takes from SPIR-V 1.6 on; the Vulkan target has SPIR-V 1.3 (a device with VK_KHR_cooperative_matrix and Vulkan 1.3 has 1.6: spirv-version=1.6)}}
    %m = gpu.subgroup_mma_load_matrix %a[%c0] {leadDimension = 16 : index} : memref<256xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    return
  }
}

// -----

// A buffer of 2^31 elements: SPIR-V kernels index with 32-bit integers (its
// extents failed to legalize as 'arith.constant', at <unknown>:0).
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' argument 1 ('memref<2x1073741824xi8>') has more than 2^31 - 1 elements, which Vulkan kernels cannot index: they index buffers with 32-bit integers}}
  func.func private @d(%a: memref<64xf32>, %b: memref<2x1073741824xi8>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    return
  }
}

// -----

// Allocations must be workgroup memory.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    // expected-error @+1 {{'memref.alloc' op in a Vulkan dispatch must allocate a static shape in #gpu.address_space<workgroup>, got 'memref<64xf32>'}}
    %m = memref.alloc() : memref<64xf32>
    return
  }
}

// -----

// Workgroup memory beyond the target's limit.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  // expected-error @+1 {{dispatch 'd' uses 65536 bytes of workgroup memory, more than the target's 32768}}
  func.func private @d(%a: memref<64xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %m = memref.alloc() : memref<16384xf32, #gpu.address_space<workgroup>>
    return
  }
}

// -----

// A CPU target.
// expected-error @+1 {{ejk-prepare-vulkan-kernels: the module's target is 'cpu'; compile with ejk-select-configs target=vulkan}}
module attributes {ejk.target = {cooperative_matrix = false, kind = "cpu", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, subgroup_size = 32 : i64, vector_bits = 256 : i64}} {
}

// -----

// No target at all.
// expected-error @+1 {{no 'ejk.target' attribute on the module; run ejk-select-configs first}}
module {
}

// -----

// A vector view of something other than a dispatch argument.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %s = memref.alloc() : memref<64xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'builtin.unrealized_conversion_cast' op in a Vulkan dispatch must view a dispatch argument as memref<N x vector<4xi32>> over the same bytes: the operand is not an argument of the dispatch}}
    %v = builtin.unrealized_conversion_cast %s : memref<64xf16, #gpu.address_space<workgroup>> to memref<8xvector<4xi32>>
    return
  }
}

// -----

// A view of another element type.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    // expected-error @+1 {{the result type is not memref<N x vector<4xi32>>}}
    %v = builtin.unrealized_conversion_cast %a : memref<64xf16> to memref<16xvector<2xi32>>
    return
  }
}

// -----

// A view that does not cover the argument's bytes.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    // expected-error @+1 {{the view covers a different number of bytes than the argument}}
    %v = builtin.unrealized_conversion_cast %a : memref<64xf16> to memref<16xvector<4xi32>>
    return
  }
}

// -----

// A view with two results.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    // expected-error @+1 {{expected one operand and one result}}
    %v:2 = builtin.unrealized_conversion_cast %a : memref<64xf16> to memref<8xvector<4xi32>>, memref<8xvector<4xi32>>
    return
  }
}

// -----

// A bitcast to 8 components: no SPIR-V vector for Vulkan.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %v = builtin.unrealized_conversion_cast %a : memref<64xf16> to memref<8xvector<4xi32>>
    %c0 = arith.constant 0 : index
    %w = memref.load %v[%c0] : memref<8xvector<4xi32>>
    // expected-error @+1 {{'vector.bitcast' op in a Vulkan dispatch must take and make 1-D vectors of 2 to 4 elements (SPIR-V vectors), got 'vector<8xf16>'}}
    %h = vector.bitcast %w : vector<4xi32> to vector<8xf16>
    return
  }
}

// -----

// An extract at a dynamic position.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %v = builtin.unrealized_conversion_cast %a : memref<64xf16> to memref<8xvector<4xi32>>
    %c0 = arith.constant 0 : index
    %w = memref.load %v[%c0] : memref<8xvector<4xi32>>
    %t = gpu.thread_id x
    // expected-error @+1 {{'vector.extract' op in a Vulkan dispatch must extract at a static position}}
    %x = vector.extract %w[%t] : i32 from vector<4xi32>
    return
  }
}

// -----

// Other vector ops stay outside the contract.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @d(%a: memref<64xf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %x = arith.constant 1 : i32
    // expected-error @+1 {{'vector.broadcast' op is not supported in a Vulkan dispatch}}
    %v = vector.broadcast %x : i32 to vector<4xi32>
    return
  }
}

// -----

// A bf16 buffer on a device without 16-bit integers.
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "storage16", "subgroup_basic"]}} {
  // expected-error @+1 {{dispatch 'd' argument 1 is a bf16 buffer, which Vulkan kernels read as 16-bit integers: it needs device feature 'int16', which the Vulkan target lacks}}
  func.func private @d(%a: memref<64xf32>, %b: memref<64xbf16>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    return
  }
}
