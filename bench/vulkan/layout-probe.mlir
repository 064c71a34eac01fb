// Dumps how a Vulkan device lays out the elements of 16x16 cooperative
// matrices across a subgroup of 32: lane l's element i of the f32
// accumulator (output 0), the f16 A matrix (1) and the f16 B matrix (2)
// loaded from a row-major 16x16 tile holding 16 r + c (input 0,
// np.arange(256, dtype=np.float32)), at [l * 8 + i]. The register softmax
// of the attention kernel relies on what it prints for NVIDIA
// (docs/ops/attention-vulkan.md):
//
//   ejkc bench/vulkan/layout-probe.mlir --target vulkan //     --fingerprint bench/results/h200/device.fingerprint -o DIR --name probe
//   there: ejk-bench-run DIR/probe.json --input in.npy --output c.npy //     --output a.npy --output b.npy --runs 1 --warmup 0
module {
  func.func private @probe_dispatch_0(%in: memref<256xf32>, %oc: memref<256xf32>, %oa: memref<256xf32>, %ob: memref<256xf32>) attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>, ejk.workgroup_size = array<i64: 32, 1, 1>, ejk.requires = ["float16", "storage16", "cooperative_matrix"]} {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %sc = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
    %sa = memref.alloc() : memref<256xf16, #gpu.address_space<workgroup>>
    %j0 = arith.constant 0 : index
    %x0 = arith.addi %t, %j0 : index
    %v0 = memref.load %in[%x0] : memref<256xf32>
    memref.store %v0, %sc[%x0] : memref<256xf32, #gpu.address_space<workgroup>>
    %h0 = arith.truncf %v0 : f32 to f16
    memref.store %h0, %sa[%x0] : memref<256xf16, #gpu.address_space<workgroup>>
    %j1 = arith.constant 32 : index
    %x1 = arith.addi %t, %j1 : index
    %v1 = memref.load %in[%x1] : memref<256xf32>
    memref.store %v1, %sc[%x1] : memref<256xf32, #gpu.address_space<workgroup>>
    %h1 = arith.truncf %v1 : f32 to f16
    memref.store %h1, %sa[%x1] : memref<256xf16, #gpu.address_space<workgroup>>
    %j2 = arith.constant 64 : index
    %x2 = arith.addi %t, %j2 : index
    %v2 = memref.load %in[%x2] : memref<256xf32>
    memref.store %v2, %sc[%x2] : memref<256xf32, #gpu.address_space<workgroup>>
    %h2 = arith.truncf %v2 : f32 to f16
    memref.store %h2, %sa[%x2] : memref<256xf16, #gpu.address_space<workgroup>>
    %j3 = arith.constant 96 : index
    %x3 = arith.addi %t, %j3 : index
    %v3 = memref.load %in[%x3] : memref<256xf32>
    memref.store %v3, %sc[%x3] : memref<256xf32, #gpu.address_space<workgroup>>
    %h3 = arith.truncf %v3 : f32 to f16
    memref.store %h3, %sa[%x3] : memref<256xf16, #gpu.address_space<workgroup>>
    %j4 = arith.constant 128 : index
    %x4 = arith.addi %t, %j4 : index
    %v4 = memref.load %in[%x4] : memref<256xf32>
    memref.store %v4, %sc[%x4] : memref<256xf32, #gpu.address_space<workgroup>>
    %h4 = arith.truncf %v4 : f32 to f16
    memref.store %h4, %sa[%x4] : memref<256xf16, #gpu.address_space<workgroup>>
    %j5 = arith.constant 160 : index
    %x5 = arith.addi %t, %j5 : index
    %v5 = memref.load %in[%x5] : memref<256xf32>
    memref.store %v5, %sc[%x5] : memref<256xf32, #gpu.address_space<workgroup>>
    %h5 = arith.truncf %v5 : f32 to f16
    memref.store %h5, %sa[%x5] : memref<256xf16, #gpu.address_space<workgroup>>
    %j6 = arith.constant 192 : index
    %x6 = arith.addi %t, %j6 : index
    %v6 = memref.load %in[%x6] : memref<256xf32>
    memref.store %v6, %sc[%x6] : memref<256xf32, #gpu.address_space<workgroup>>
    %h6 = arith.truncf %v6 : f32 to f16
    memref.store %h6, %sa[%x6] : memref<256xf16, #gpu.address_space<workgroup>>
    %j7 = arith.constant 224 : index
    %x7 = arith.addi %t, %j7 : index
    %v7 = memref.load %in[%x7] : memref<256xf32>
    memref.store %v7, %sc[%x7] : memref<256xf32, #gpu.address_space<workgroup>>
    %h7 = arith.truncf %v7 : f32 to f16
    memref.store %h7, %sa[%x7] : memref<256xf16, #gpu.address_space<workgroup>>
    gpu.barrier
    %C = gpu.subgroup_mma_load_matrix %sc[%c0] {leadDimension = 16 : index} : memref<256xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
    %A = gpu.subgroup_mma_load_matrix %sa[%c0] {leadDimension = 16 : index} : memref<256xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %B = gpu.subgroup_mma_load_matrix %sa[%c0] {leadDimension = 16 : index} : memref<256xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %base = arith.muli %t, %c8 : index
    %i0 = arith.constant 0 : index
    %o0 = arith.addi %base, %i0 : index
    %ec0 = gpu.subgroup_mma_extract_thread_local %C[%i0] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    memref.store %ec0, %oc[%o0] : memref<256xf32>
    %ea0 = gpu.subgroup_mma_extract_thread_local %A[%i0] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    %fa0 = arith.extf %ea0 : f16 to f32
    memref.store %fa0, %oa[%o0] : memref<256xf32>
    %eb0 = gpu.subgroup_mma_extract_thread_local %B[%i0] : !gpu.mma_matrix<16x16xf16, "BOp"> -> f16
    %fb0 = arith.extf %eb0 : f16 to f32
    memref.store %fb0, %ob[%o0] : memref<256xf32>
    %i1 = arith.constant 1 : index
    %o1 = arith.addi %base, %i1 : index
    %ec1 = gpu.subgroup_mma_extract_thread_local %C[%i1] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    memref.store %ec1, %oc[%o1] : memref<256xf32>
    %ea1 = gpu.subgroup_mma_extract_thread_local %A[%i1] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    %fa1 = arith.extf %ea1 : f16 to f32
    memref.store %fa1, %oa[%o1] : memref<256xf32>
    %eb1 = gpu.subgroup_mma_extract_thread_local %B[%i1] : !gpu.mma_matrix<16x16xf16, "BOp"> -> f16
    %fb1 = arith.extf %eb1 : f16 to f32
    memref.store %fb1, %ob[%o1] : memref<256xf32>
    %i2 = arith.constant 2 : index
    %o2 = arith.addi %base, %i2 : index
    %ec2 = gpu.subgroup_mma_extract_thread_local %C[%i2] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    memref.store %ec2, %oc[%o2] : memref<256xf32>
    %ea2 = gpu.subgroup_mma_extract_thread_local %A[%i2] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    %fa2 = arith.extf %ea2 : f16 to f32
    memref.store %fa2, %oa[%o2] : memref<256xf32>
    %eb2 = gpu.subgroup_mma_extract_thread_local %B[%i2] : !gpu.mma_matrix<16x16xf16, "BOp"> -> f16
    %fb2 = arith.extf %eb2 : f16 to f32
    memref.store %fb2, %ob[%o2] : memref<256xf32>
    %i3 = arith.constant 3 : index
    %o3 = arith.addi %base, %i3 : index
    %ec3 = gpu.subgroup_mma_extract_thread_local %C[%i3] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    memref.store %ec3, %oc[%o3] : memref<256xf32>
    %ea3 = gpu.subgroup_mma_extract_thread_local %A[%i3] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    %fa3 = arith.extf %ea3 : f16 to f32
    memref.store %fa3, %oa[%o3] : memref<256xf32>
    %eb3 = gpu.subgroup_mma_extract_thread_local %B[%i3] : !gpu.mma_matrix<16x16xf16, "BOp"> -> f16
    %fb3 = arith.extf %eb3 : f16 to f32
    memref.store %fb3, %ob[%o3] : memref<256xf32>
    %i4 = arith.constant 4 : index
    %o4 = arith.addi %base, %i4 : index
    %ec4 = gpu.subgroup_mma_extract_thread_local %C[%i4] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    memref.store %ec4, %oc[%o4] : memref<256xf32>
    %ea4 = gpu.subgroup_mma_extract_thread_local %A[%i4] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    %fa4 = arith.extf %ea4 : f16 to f32
    memref.store %fa4, %oa[%o4] : memref<256xf32>
    %eb4 = gpu.subgroup_mma_extract_thread_local %B[%i4] : !gpu.mma_matrix<16x16xf16, "BOp"> -> f16
    %fb4 = arith.extf %eb4 : f16 to f32
    memref.store %fb4, %ob[%o4] : memref<256xf32>
    %i5 = arith.constant 5 : index
    %o5 = arith.addi %base, %i5 : index
    %ec5 = gpu.subgroup_mma_extract_thread_local %C[%i5] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    memref.store %ec5, %oc[%o5] : memref<256xf32>
    %ea5 = gpu.subgroup_mma_extract_thread_local %A[%i5] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    %fa5 = arith.extf %ea5 : f16 to f32
    memref.store %fa5, %oa[%o5] : memref<256xf32>
    %eb5 = gpu.subgroup_mma_extract_thread_local %B[%i5] : !gpu.mma_matrix<16x16xf16, "BOp"> -> f16
    %fb5 = arith.extf %eb5 : f16 to f32
    memref.store %fb5, %ob[%o5] : memref<256xf32>
    %i6 = arith.constant 6 : index
    %o6 = arith.addi %base, %i6 : index
    %ec6 = gpu.subgroup_mma_extract_thread_local %C[%i6] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    memref.store %ec6, %oc[%o6] : memref<256xf32>
    %ea6 = gpu.subgroup_mma_extract_thread_local %A[%i6] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    %fa6 = arith.extf %ea6 : f16 to f32
    memref.store %fa6, %oa[%o6] : memref<256xf32>
    %eb6 = gpu.subgroup_mma_extract_thread_local %B[%i6] : !gpu.mma_matrix<16x16xf16, "BOp"> -> f16
    %fb6 = arith.extf %eb6 : f16 to f32
    memref.store %fb6, %ob[%o6] : memref<256xf32>
    %i7 = arith.constant 7 : index
    %o7 = arith.addi %base, %i7 : index
    %ec7 = gpu.subgroup_mma_extract_thread_local %C[%i7] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    memref.store %ec7, %oc[%o7] : memref<256xf32>
    %ea7 = gpu.subgroup_mma_extract_thread_local %A[%i7] : !gpu.mma_matrix<16x16xf16, "AOp"> -> f16
    %fa7 = arith.extf %ea7 : f16 to f32
    memref.store %fa7, %oa[%o7] : memref<256xf32>
    %eb7 = gpu.subgroup_mma_extract_thread_local %B[%i7] : !gpu.mma_matrix<16x16xf16, "BOp"> -> f16
    %fb7 = arith.extf %eb7 : f16 to f32
    memref.store %fb7, %ob[%o7] : memref<256xf32>
    return
  }
  func.func @probe(%in: memref<256xf32>, %oc: memref<256xf32>, %oa: memref<256xf32>, %ob: memref<256xf32>) attributes {ejk.entry, ejk.num_inputs = 1 : i64} {
    ejk.dispatch @probe_dispatch_0(%in, %oc, %oa, %ob) : memref<256xf32>, memref<256xf32>, memref<256xf32>, memref<256xf32>
    return
  }
}
