// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV

// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=COOP

// flash_attention_grad on Vulkan (portable path), f16 GQA 4:1, causal,
// Sq = 100, Sk = 70, D = 64. The heuristic: dK/dV 16 x 32, dQ 32 x 32,
// 128 threads each.

// delta: 8 lanes per row (xor shuffles 4, 2, 1), 64 threads = 8 rows per
// workgroup: 13 x 8 heads x 2 batches.
// CHECK-LABEL: func.func private @grad_dispatch_0_delta(
// CHECK-SAME: ejk.grid = array<i64: 13, 8, 2>
// CHECK-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32

// dQ: a workgroup per 32 query rows of a query head (4 x 8 x 2); half a
// causal forward's FLOPs (2 * 2 * 8 * 100 * 70 * 128 / 2 / 2); shared
// memory: Q and dO rows (32 x 65 f32 each), dS (32 x 33), lse and D:
// 4 * (2 * 2080 + 1056 + 2 * 32) = 21120 bytes.
// CHECK-LABEL: func.func private @grad_dispatch_0_dq(
// CHECK-SAME: ejk.flops = 7168000
// CHECK-SAME: ejk.grid = array<i64: 4, 8, 2>
// CHECK-SAME: ejk.shared_memory_bytes = 21120
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK: memref.alloc() : memref<2080xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<2080xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<1056xf32, #gpu.address_space<workgroup>>
// The key-block loop carries the thread's 4 rows x 4 columns of dQ; S and
// dP take 8 values each (2 rows x 4 keys) over the head dim.
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: math.fma
// CHECK: gpu.barrier

// dK/dV: a workgroup per 32 keys of a KV head (3 x 2 x 2), the rest of
// 2.5 forwards; shared memory 4 * (2 * 1040 + 2 * 528 + 2 * 16) = 12672.
// CHECK-LABEL: func.func private @grad_dispatch_0(
// CHECK-SAME: ejk.flops = 28672000
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 2>
// CHECK-SAME: ejk.shared_memory_bytes = 12672
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// The group's 4 query heads, then the query blocks, carry 4 keys x (4 + 4)
// columns of dK and dV.
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: math.fma
// CHECK: gpu.barrier
// CHECK: arith.truncf {{.*}} : f32 to f16

// The entry runs delta, dK/dV and dQ on one f32 D temporary.
// CHECK-LABEL: func.func @grad(
// CHECK: %[[D:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x100xf32>
// CHECK: ejk.dispatch @grad_dispatch_0_delta(%{{.*}}, %{{.*}}, %[[D]])
// CHECK: ejk.dispatch @grad_dispatch_0(%{{.*}}, %[[D]])
// CHECK: ejk.dispatch @grad_dispatch_0_dq(%{{.*}}, %[[D]], %{{.*}})
// CHECK: memref.dealloc %[[D]]

// Cooperative matrices (f16, NVIDIA's layout): 64 x 64 blocks for both
// passes (clamped to 64 keys of 70 -> 2 key blocks), 4 subgroups of 32; one
// f16 stage of max(64, 64) x (72 + 72) elements (1152 16-byte words) and
// lse/D: 2 * 9216 + 8 * 64 = 18944 bytes. Both passes require the layout.
// COOP-LABEL: func.func private @grad_dispatch_0_dq(
// COOP-SAME: ejk.grid = array<i64: 2, 8, 2>
// COOP-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// COOP-SAME: ejk.shared_memory_bytes = 18944
// COOP-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// COOP: memref.alloc() : memref<1152xvector<4xi32>, #gpu.address_space<workgroup>>
// Per key tile: S = Q K^T (K^T by transposed loads) and dP = dO V^T, 4
// tiles each over D = 64, then dS rebuilt as an f16 A matrix and dQ += dS K.
// COOP: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 9 : index, transpose}
// COOP: gpu.subgroup_mma_compute
// COOP: gpu.subgroup_mma_extract_thread_local
// COOP: math.exp
// COOP: gpu.subgroup_mma_insert_thread_local {{.*}} -> !gpu.mma_matrix<16x16xf16, "AOp">
// COOP-LABEL: func.func private @grad_dispatch_0(
// COOP-SAME: ejk.grid = array<i64: 2, 2, 2>
// COOP-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// COOP-SAME: ejk.shared_memory_bytes = 18944
// One loop over (query head of the group, query block) carries the 4 + 4
// dK and dV accumulator tiles and the next step's Q and dO rows (64 rows x
// 8 words each over 128 threads: 4 + 4 words), then the block's 16-query
// tiles.
// COOP: scf.for {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
// COOP: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1
// COOP: gpu.subgroup_mma_compute

// All three lower to SPIR-V.
// SPIRV-COUNT-3: spirv.func

func.func @grad(%q: tensor<2x100x8x64xf16>, %k: tensor<2x70x2x64xf16>, %v: tensor<2x70x2x64xf16>, %o: tensor<2x100x8x64xf16>, %lse: tensor<2x8x100xf32>) -> (tensor<2x100x8x64xf16>, tensor<2x70x2x64xf16>, tensor<2x70x2x64xf16>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %o, %lse {causal}
      : tensor<2x100x8x64xf16>, tensor<2x70x2x64xf16>, tensor<2x70x2x64xf16>, tensor<2x100x8x64xf16>, tensor<2x100x8x64xf16>, tensor<2x8x100xf32>
      -> tensor<2x100x8x64xf16>, tensor<2x70x2x64xf16>, tensor<2x70x2x64xf16>
  return %dq, %dk, %dv : tensor<2x100x8x64xf16>, tensor<2x70x2x64xf16>, tensor<2x70x2x64xf16>
}
