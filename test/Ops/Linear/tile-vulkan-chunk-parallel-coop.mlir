// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" | FileCheck %s --check-prefix=CONFIG
// Vulkan's chunk-parallel gla kernel on cooperative matrices (`cooperative`
// = 1: the outputs' products, CoopOutputs.cpp; 2: the update's too,
// CoopUpdate.cpp). lavapipe has no cooperative matrices: these kernels are
// checked numerically on the GPU only (bench/vulkan/linear.py's chk cases).

// `cooperative = 1` on a device with cooperative matrices, f16 inputs:
// chunks of 64, V = 128 per workgroup, the outputs on matrices: the
// heuristic's pick on such a device (the case `heuristic_pick` below;
// measured faster whole on an H200, docs/ops/linear-vulkan.md).
// CONFIG-LABEL: func.func @heuristic
// CONFIG: config = #ejk.config<block_v = 128, chunk_parallel = 1, chunk_size = 64, cooperative = 1>
// The update stays SIMT; the states temporary is f16 (the scan sums in
// f32).
// CHECK-LABEL: func.func private @heuristic_dispatch_0_update
// CHECK-NOT: gpu.subgroup_mma
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: memref.store %{{.*}}, %arg5[{{.*}}] : memref<16x4x128x128xf16>
// CHECK-LABEL: func.func private @heuristic_dispatch_0_scan
// CHECK-NOT: gpu.subgroup_mma
// CHECK: memref.load %arg5[{{.*}}] : memref<16x4x128x128xf16>
// CHECK: arith.extf
// The outputs: 256 threads (8 subgroups); an f16 stage of 8192 (q, k in key
// tiles of 32, then S rows, then the chunk's values), the f32 scores
// (64 x 64, also the subgroups' output stages), the f16 scores A and the
// decay bound's partials: 16384 + 16384 + 8192 + 32 bytes.
// CHECK-LABEL: func.func private @heuristic_dispatch_0(
// CHECK-SAME: ejk.shared_memory_bytes = 40992 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK-DAG: arith.constant 5.000000e-01 : f32
// CHECK-DAG: arith.constant 1.600000e+01 : f32
// CHECK: %[[STAGE:.*]] = memref.alloc() : memref<8192xf16, #gpu.address_space<workgroup>>
// CHECK: %[[SCORES:.*]] = memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: %[[A:.*]] = memref.alloc() : memref<4096xf16, #gpu.address_space<workgroup>>
// The chunk's strongest decay within 16 (f16's range for the factors
// exp(+-(B - B_last / 2))): 4 O tiles and 2 score tiles per subgroup over
// 4 key tiles, S rows read from the f16 states. First r = B_last / 2 and
// exp(r) of each key go to the scores' stage (free until the key pass
// ends); the stages read them there: r for the q and k factors, exp(r)
// for S' = exp(r) S (no exp per state element).
// CHECK: scf.if %{{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">)
// CHECK: memref.store %{{.*}}, %[[SCORES]][%thread_id_x] : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.addi %thread_id_x, %c128 : index
// CHECK-NEXT: math.exp
// CHECK-NEXT: memref.store %{{.*}}, %[[SCORES]][%{{.*}}] : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">)
// CHECK: memref.load %[[SCORES]][%{{.*}}] : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load %arg5[{{.*}}] : memref<16x4x128x128xf16>
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.addi %{{.*}}, %c128 : index
// CHECK-NEXT: memref.load %[[SCORES]][%{{.*}}] : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.mulf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.barrier
// q S: (q exp(B - r)) [64 x 32 stage] times (exp(r) S) [32 x 128 stage].
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][{{.*}}] {leadDimension = 32 : index} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][{{.*}}] {leadDimension = 128 : index} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// The scores: the key stage read column-major as (k exp(r - B))^T.
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][{{.*}}] {leadDimension = 32 : index, transpose} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[SCORES]][{{.*}}] {leadDimension = 64 : index}
// Past the bound: q exp(B) S on matrices (4 O tiles, no key stage), then
// the exact scores, 16 per thread over the 128 keys.
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">)
// CHECK-NOT: transpose
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: math.exp
// A V: the masked f16 scores [64 x 64] times the staged values [64 x 128].
// CHECK: gpu.subgroup_mma_load_matrix %[[A]][{{.*}}] {leadDimension = 64 : index} : memref<4096xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][{{.*}}] {leadDimension = 128 : index} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// O leaves through each subgroup's 16 x 16 stage, narrowed to f16.
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[SCORES]][{{.*}}] {leadDimension = 16 : index}
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %arg4[{{.*}}] : memref<1x1000x4x128xf16>
func.func @heuristic(%q: tensor<1x1000x4x128xf16>, %g: tensor<1x1000x4x128xf16>) -> tensor<1x1000x4x128xf16> {
  %o = ejk.gla %q, %q, %q g(%g : tensor<1x1000x4x128xf16>) {config = #ejk.config<block_v = 128, chunk_parallel = 1, chunk_size = 64, cooperative = 1>} : tensor<1x1000x4x128xf16>, tensor<1x1000x4x128xf16>, tensor<1x1000x4x128xf16> -> tensor<1x1000x4x128xf16>
  return %o : tensor<1x1000x4x128xf16>
}

// -----

// `cooperative = 2` with a constant decay (g_gamma), bf16 inputs: the
// update's k^T v on matrices too, into an f16 states temporary; the scan
// widens it; the outputs scale the scores by exp(gamma (t - s)) (exact for
// any gamma: no factored/exact branch).
// CONFIG-LABEL: func.func @update
// CONFIG: config = #ejk.config<block_v = 64, chunk_parallel = 1, chunk_size = 64, cooperative = 2>
// CHECK-LABEL: func.func private @update_dispatch_0_update
// CHECK-SAME: memref<16x4x64x64xf16>
// CHECK-SAME: ejk.shared_memory_bytes = 16384 : i64
// The gated keys [32 steps x 64] read column-major as (k exp(B_last - B))^T
// (A operand), the values [32 x 64] (B operand).
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}}[{{.*}}] {leadDimension = 64 : index, transpose} : memref<2048xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}}[{{.*}}] {leadDimension = 64 : index} : memref<2048xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %{{.*}}[{{.*}}] {leadDimension = 16 : index}
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %arg5[{{.*}}] : memref<16x4x64x64xf16>
// CHECK-LABEL: func.func private @update_dispatch_0_scan
// CHECK: memref.load %arg5[{{.*}}] : memref<16x4x64x64xf16>
// CHECK: arith.extf
// CHECK-LABEL: func.func private @update_dispatch_0(
// CHECK-NOT: scf.if %{{.*}} -> (!gpu.mma_matrix
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 32 : index, transpose}
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}} {leadDimension = 64 : index}
// CHECK: math.exp
// CHECK: gpu.subgroup_mma_compute
func.func @update(%q: tensor<1x1000x4x64xbf16>, %gamma: tensor<4xf32>) -> tensor<1x1000x4x64xbf16> {
  %o = ejk.gla %q, %q, %q g_gamma(%gamma : tensor<4xf32>) {config = #ejk.config<block_v = 64, chunk_parallel = 1, chunk_size = 64, cooperative = 2>} : tensor<1x1000x4x64xbf16>, tensor<1x1000x4x64xbf16>, tensor<1x1000x4x64xbf16> -> tensor<1x1000x4x64xbf16>
  return %o : tensor<1x1000x4x64xbf16>
}

// -----

// No config: on a device with cooperative matrices the heuristic takes
// `cooperative = 1` for 16-bit inputs (bf16 too: converted to f16 when
// staged, the gates applied in f32).
// CONFIG-LABEL: func.func @heuristic_pick
// CONFIG: config = #ejk.config<block_v = 128, chunk_parallel = 1, chunk_size = 64, cooperative = 1>
func.func @heuristic_pick(%q: tensor<1x1000x4x128xbf16>, %g: tensor<1x1000x4x128xbf16>) -> tensor<1x1000x4x128xbf16> {
  %o = ejk.gla %q, %q, %q g(%g : tensor<1x1000x4x128xbf16>) : tensor<1x1000x4x128xbf16>, tensor<1x1000x4x128xbf16>, tensor<1x1000x4x128xbf16> -> tensor<1x1000x4x128xbf16>
  return %o : tensor<1x1000x4x128xbf16>
}
