// RUN: ejk-opt %s -split-input-file -ejk-prepare-vulkan-kernels | FileCheck %s --check-prefix=PREPARE
// RUN: ejk-opt %s -split-input-file -ejk-lower-to-spirv | FileCheck %s

// A tile body using every part of the contract: workgroup id, thread id,
// bf16 / f16 / i1 loads, math, workgroup memory and a barrier, scf.for with
// iter_args, a subgroup shuffle, and a bf16 store.

// PREPARE: module attributes {{{.*}}gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, Float16, Int16, StorageBuffer16BitAccess, GroupNonUniform, GroupNonUniformShuffle], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage]>, api=Vulkan, #spirv.resource_limits<max_compute_shared_memory_size = 32768, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024 : i32, 1024 : i32, 64 : i32], subgroup_size = 8>>}
// PREPARE-NOT: func.func
// PREPARE-LABEL: gpu.module @k_dispatch_0
// Each argument is bound explicitly at (set 0, binding = its index).
// PREPARE: gpu.func @k_dispatch_0(%{{.*}}: memref<2x64xbf16> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %{{.*}}: memref<2x64xf16> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>}, %{{.*}}: memref<2x64xi1> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 2)>}, %{{.*}}: memref<2x64xf32> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 3)>}, %{{.*}}: memref<2x64xbf16> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 4)>}) kernel
// PREPARE-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
// PREPARE: gpu.block_id x
// PREPARE-NOT: ejk.workgroup_id
// PREPARE: gpu.return

// CHECK-NOT: func.func
// CHECK-LABEL: spirv.module @__spv__k_dispatch_0 Logical GLSL450 requires #spirv.vce<v1.3,
// CHECK-SAME: GroupNonUniformShuffle
// CHECK-DAG: spirv.GlobalVariable @{{__workgroup_mem__[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32>)>, Workgroup>
// bf16 buffers hold i16 bit patterns; i1 is a byte, packed into i32 words
// when the target has no 8-bit storage.
// CHECK-DAG: spirv.GlobalVariable @k_dispatch_0_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<128 x i16, stride=2> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @k_dispatch_0_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<128 x f16, stride=2> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @k_dispatch_0_arg_2 bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.array<32 x i32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @k_dispatch_0_arg_4 bind(0, 4) : !spirv.ptr<!spirv.struct<(!spirv.array<128 x i16, stride=2> [0])>, StorageBuffer>
// CHECK-LABEL: spirv.func @k_dispatch_0()
// CHECK: spirv.Load "Input" %{{.*}} : vector<3xi32>
// bf16 load: the bits shifted into the top half of an f32.
// CHECK: %[[BITS:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i16
// CHECK: %[[WIDE:.*]] = spirv.UConvert %[[BITS]] : i16 to i32
// CHECK: %[[SHIFTED:.*]] = spirv.ShiftLeftLogical %[[WIDE]], %{{.*}} : i32, i32
// CHECK: %[[F:.*]] = spirv.Bitcast %[[SHIFTED]] : i32 to f32
// CHECK: %[[H:.*]] = spirv.Load "StorageBuffer" %{{.*}} : f16
// CHECK: spirv.FConvert %[[H]] : f16 to f32
// CHECK: spirv.GL.Exp %[[F]] : f32
// CHECK: spirv.Select
// CHECK: spirv.Store "Workgroup"
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.mlir.loop
// CHECK: spirv.Load "Workgroup"
// CHECK: spirv.mlir.merge
// CHECK: spirv.GroupNonUniformShuffleXor <Subgroup>
// CHECK: spirv.GL.Log
// CHECK: spirv.GL.Tanh
// CHECK: spirv.GL.Fma
// CHECK: spirv.GL.Exp2
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} : f32
// bf16 store: round to nearest even, NaN kept a NaN.
// CHECK: spirv.FUnordNotEqual
// CHECK: spirv.ShiftRightLogical
// CHECK: spirv.IAdd
// CHECK: spirv.Select %{{.*}}, %{{.*}}, %{{.*}} : i1, i16
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} : i16
// CHECK: spirv.EntryPoint "GLCompute" @k_dispatch_0
// CHECK: spirv.ExecutionMode @k_dispatch_0 "LocalSize", 64, 1, 1
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @k_dispatch_0(%a: memref<2x64xbf16>, %h: memref<2x64xf16>, %m: memref<2x64xi1>, %b: memref<2x64xf32>, %c: memref<2x64xbf16>)
      attributes {ejk.dispatch, ejk.grid = array<i64: 2, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>, ejk.shared_memory_bytes = 256 : i64, ejk.requires = ["subgroup_shuffle"]} {
    %wg = ejk.workgroup_id 0
    %t = gpu.thread_id x
    %x = memref.load %a[%wg, %t] : memref<2x64xbf16>
    %f = arith.extf %x : bf16 to f32
    %hx = memref.load %h[%wg, %t] : memref<2x64xf16>
    %hf = arith.extf %hx : f16 to f32
    %e = math.exp %f : f32
    %mk = memref.load %m[%wg, %t] : memref<2x64xi1>
    %s = arith.select %mk, %e, %hf : f32
    %w = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %s, %w[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %j = arith.addi %t, %i : index
      %c63 = arith.constant 63 : index
      %jj = arith.andi %j, %c63 : index
      %v = memref.load %w[%jj] : memref<64xf32, #gpu.address_space<workgroup>>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    %c1i = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %sh, %ok = gpu.shuffle xor %sum, %c1i, %c8 : f32
    %l = math.log %e : f32
    %th = math.tanh %l : f32
    %fm = math.fma %sh, %th, %f : f32
    %e2 = math.exp2 %fm : f32
    memref.store %e2, %b[%wg, %t] : memref<2x64xf32>
    %tb = arith.truncf %e2 : f32 to bf16
    memref.store %tb, %c[%wg, %t] : memref<2x64xbf16>
    return
  }
  func.func @k(%a: memref<2x64xbf16>, %h: memref<2x64xf16>, %m: memref<2x64xi1>, %b: memref<2x64xf32>, %c: memref<2x64xbf16>) attributes {ejk.entry, ejk.num_inputs = 3 : i64} {
    ejk.dispatch @k_dispatch_0(%a, %h, %m, %b, %c) : memref<2x64xbf16>, memref<2x64xf16>, memref<2x64xi1>, memref<2x64xf32>, memref<2x64xbf16>
    return
  }
}

// -----

// Cooperative matrices: f16 tiles from workgroup memory and from a storage
// buffer, f32 accumulation in scf.for iter_args, an elementwise op, a store.

// CHECK-LABEL: spirv.module @__spv__mm_dispatch_0 Logical GLSL450 requires #spirv.vce<v1.6,
// CHECK-SAME: CooperativeMatrixKHR
// CHECK-SAME: SPV_KHR_cooperative_matrix
// CHECK: spirv.GlobalVariable @{{__workgroup_mem__[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<512 x f16>)>, Workgroup>
// CHECK: spirv.CompositeConstruct %{{.*}} : (f32) -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: spirv.mlir.loop
// CHECK: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// CHECK: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
// CHECK: spirv.KHR.CooperativeMatrixMulAdd %{{.*}}, %{{.*}}, %{{.*}} : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: spirv.FAdd %{{.*}}, %{{.*}} : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// CHECK: spirv.KHR.CooperativeMatrixStore %{{.*}}, %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, i32
// CHECK: spirv.ExecutionMode @mm_dispatch_0 "LocalSize", 32, 1, 1
module attributes {ejk.target = {cooperative_matrix = true, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 49152 : i64, spirv_version = "1.6", subgroup_size = 32 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "int8", "storage16", "storage8", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @mm_dispatch_0(%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf32>)
      attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.requires = ["float16", "storage16", "cooperative_matrix"]} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %t = gpu.thread_id x
    %sa = memref.alloc() : memref<16x32xf16, #gpu.address_space<workgroup>>
    %c32 = arith.constant 32 : index
    %c1 = arith.constant 1 : index
    scf.for %r = %c0 to %c16 step %c1 {
      %v = memref.load %a[%r, %t] : memref<16x32xf16>
      memref.store %v, %sa[%r, %t] : memref<16x32xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %zero = arith.constant 0.0 : f32
    %acc0 = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%acc1 = %acc0) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %A = gpu.subgroup_mma_load_matrix %sa[%c0, %k] {leadDimension = 32 : index} : memref<16x32xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %B = gpu.subgroup_mma_load_matrix %b[%k, %c0] {leadDimension = 16 : index} : memref<32x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %D = gpu.subgroup_mma_compute %A, %B, %acc1 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %D : !gpu.mma_matrix<16x16xf32, "COp">
    }
    %E = gpu.subgroup_mma_elementwise addf %acc, %acc : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %E, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    return
  }
}

// -----

// The words of a buffer view's 16-byte load taken apart: f16 through a
// vector<2xi32> -> vector<4xf16> bitcast of half the words, bf16 by moving
// a half into the high bits of an f32, f32 by a bitcast of one word.
// PREPARE-LABEL: gpu.func @words_dispatch_0
// PREPARE-SAME: %{{.*}}: memref<8xvector<4xi32>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %{{.*}}: memref<8xvector<4xi32>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>}
// PREPARE: vector.extract_strided_slice
// PREPARE: vector.bitcast
// PREPARE: vector.extract
// CHECK-LABEL: spirv.module @__spv__words_dispatch_0
// CHECK-DAG: spirv.GlobalVariable @words_dispatch_0_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f16, stride=2> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @words_dispatch_0_arg_3 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<8 x vector<4xi32>, stride=16> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @words_dispatch_0_arg_4 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<8 x vector<4xi32>, stride=16> [0])>, StorageBuffer>
// CHECK-LABEL: spirv.func @words_dispatch_0()
// CHECK: %[[W:.*]] = spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// CHECK: %[[PAIR:.*]] = spirv.VectorShuffle [2 : i32, 3 : i32] %[[W]], %[[W]] : vector<4xi32>, vector<4xi32> -> vector<2xi32>
// CHECK: %[[H:.*]] = spirv.Bitcast %[[PAIR]] : vector<2xi32> to vector<4xf16>
// CHECK: %[[E:.*]] = spirv.CompositeExtract %[[H]][1 : i32] : vector<4xf16>
// CHECK: spirv.FConvert %[[E]] : f16 to f32
// CHECK: %[[B:.*]] = spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// CHECK: %[[BW:.*]] = spirv.CompositeExtract %[[B]][3 : i32] : vector<4xi32>
// CHECK: %[[LO:.*]] = spirv.ShiftLeftLogical %[[BW]], %{{.*}} : i32, i32
// CHECK: spirv.Bitcast %[[LO]] : i32 to f32
// CHECK: %[[HI:.*]] = spirv.BitwiseAnd %[[BW]], %{{.*}} : i32
// CHECK: spirv.Bitcast %[[HI]] : i32 to f32
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["float16", "int16", "storage16", "subgroup_basic", "subgroup_shuffle"]}} {
  func.func private @words_dispatch_0(%h: memref<64xf16>, %bf: memref<4x16xbf16>, %o: memref<8x3xf32>)
      attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 8, 1, 1>} {
    %hv = builtin.unrealized_conversion_cast %h : memref<64xf16> to memref<8xvector<4xi32>>
    %bv = builtin.unrealized_conversion_cast %bf : memref<4x16xbf16> to memref<8xvector<4xi32>>
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %w = memref.load %hv[%t] : memref<8xvector<4xi32>>
    %pair = vector.extract_strided_slice %w {offsets = [2], sizes = [2], strides = [1]} : vector<4xi32> to vector<2xi32>
    %halves = vector.bitcast %pair : vector<2xi32> to vector<4xf16>
    %x = vector.extract %halves[1] : f16 from vector<4xf16>
    %xf = arith.extf %x : f16 to f32
    memref.store %xf, %o[%t, %c0] : memref<8x3xf32>
    %b = memref.load %bv[%t] : memref<8xvector<4xi32>>
    %bw = vector.extract %b[3] : i32 from vector<4xi32>
    %c16 = arith.constant 16 : i32
    %mask = arith.constant -65536 : i32
    %lo = arith.shli %bw, %c16 : i32
    %lof = arith.bitcast %lo : i32 to f32
    %hi = arith.andi %bw, %mask : i32
    %hif = arith.bitcast %hi : i32 to f32
    memref.store %lof, %o[%t, %c1] : memref<8x3xf32>
    memref.store %hif, %o[%t, %c2] : memref<8x3xf32>
    return
  }
  func.func @words(%h: memref<64xf16>, %bf: memref<4x16xbf16>, %o: memref<8x3xf32>) attributes {ejk.entry, ejk.num_inputs = 2 : i64} {
    ejk.dispatch @words_dispatch_0(%h, %bf, %o) : memref<64xf16>, memref<4x16xbf16>, memref<8x3xf32>
    return
  }
}
