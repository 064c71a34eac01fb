// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" | FileCheck %s --check-prefix=CONFIG
// The chunk-parallel delta rule on cooperative matrices (`cooperative` = 1:
// the outputs' products, DeltaCoopOutputs.cpp; 2: the state pass's too,
// DeltaCoopState.cpp). lavapipe has no cooperative matrices: these kernels
// are checked numerically on the GPU only (bench/vulkan/delta.py's
// chk_coop* cases).

// The heuristic keeps the SIMT kernel on a device with cooperative
// matrices: whole, neither form ran faster on an H200 (docs/ops/delta.md).
// CONFIG-LABEL: func.func @heuristic
// CONFIG: config = #ejk.config<block_v = 32, chunk_parallel = 1, chunk_size = 64>
// CHECK-LABEL: func.func private @heuristic_dispatch_0(
// CHECK-NOT: gpu.subgroup_mma
// CHECK: return
func.func @heuristic(%q: tensor<2x256x2x64xbf16>, %v: tensor<2x256x2x64xbf16>, %beta: tensor<2x256x2xbf16>) -> tensor<2x256x2x64xbf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<2x256x2xbf16>) : tensor<2x256x2x64xbf16>, tensor<2x256x2x64xbf16>, tensor<2x256x2x64xbf16>, tensor<2x256x2xbf16> -> tensor<2x256x2x64xbf16>
  return %o : tensor<2x256x2x64xbf16>
}

// -----

// `cooperative = 1`, bf16 inputs: the state pass stays SIMT.
// CONFIG-LABEL: func.func @outputs
// CONFIG: config = #ejk.config<block_v = 32, chunk_parallel = 1, chunk_size = 64, cooperative = 1>
// CHECK-LABEL: func.func private @outputs_dispatch_0_state
// CHECK-NOT: gpu.subgroup_mma
// The outputs: all of V (64 columns) per workgroup; an f16 stage of 8192
// (q normalized, q scaled and decayed, k in key tiles of 32, then S rows;
// later the new values), the f32 scores (also the subgroups' output
// stages), the f16 scores P, the per-head B and the inverse norms:
// 16384 + 16384 + 8192 + 256 + 512 bytes.
// CHECK-LABEL: func.func private @outputs_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 8, 2, 1>, ejk.shared_memory_bytes = 41728 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: %[[STAGE:.*]] = memref.alloc() : memref<8192xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[SCORES:.*]] = memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[P:.*]] = memref.alloc() : memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[NORMS:.*]] = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
// The inverse norms of q and k rows (one thread a row).
// CHECK: math.sqrt
// CHECK: memref.store %{{.*}}, %[[NORMS]][%thread_id_x]
// CHECK: math.sqrt
// CHECK: memref.store %{{.*}}, %[[NORMS]][%thread_id_x]
// CHECK: gpu.barrier
// Key tiles: 2 O tiles and 2 score tiles per subgroup; bf16 staged as f16.
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: memref.store %{{.*}}, %[[STAGE]]
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][%{{.*}}] {leadDimension = 32 : index} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][%{{.*}}] {leadDimension = 64 : index} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// The scores: k read column-major.
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][%{{.*}}] {leadDimension = 32 : index, transpose} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[SCORES]][%{{.*}}] {leadDimension = 64 : index}
// P in f32 (exp(min(B_t - B_s, 0)), s <= t), stored f16; O += P N.
// CHECK: arith.minnumf
// CHECK-NEXT: math.exp
// CHECK: arith.cmpi sle
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: gpu.subgroup_mma_load_matrix %[[P]][%{{.*}}] {leadDimension = 64 : index} : memref<4096xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][%{{.*}}] {leadDimension = 64 : index} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// O leaves through the subgroup's 16x16 f32 stage.
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[SCORES]][%{{.*}}] {leadDimension = 16 : index}
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @outputs(%q: tensor<2x256x2x64xbf16>, %v: tensor<2x256x2x64xbf16>, %beta: tensor<2x256x2xbf16>) -> tensor<2x256x2x64xbf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<2x256x2xbf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 1>} : tensor<2x256x2x64xbf16>, tensor<2x256x2x64xbf16>, tensor<2x256x2x64xbf16>, tensor<2x256x2xbf16> -> tensor<2x256x2x64xbf16>
  return %o : tensor<2x256x2x64xbf16>
}

// -----

// `cooperative = 2`, K = V = 128, block_v 32: the state pass on matrices.
// Its shared memory: the f32 state (128 x 32), the f32 W S tiles (64 x 32),
// the f16 state (later the new values) and the f16 W stage (later Kd):
// 16384 + 8192 + 8192 + 16384 bytes.
// CHECK-LABEL: func.func private @state_dispatch_0_state(
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 2>, ejk.shared_memory_bytes = 49152 : i64
// CHECK: %[[S:.*]] = memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[WS:.*]] = memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[S16:.*]] = memref.alloc() : memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[KEYS:.*]] = memref.alloc() : memref<8192xf16, #gpu.address_space<workgroup>>
// The chunks in order; S published, copied f16 and decayed in place.
// CHECK: scf.for
// CHECK: math.exp
// CHECK: %[[SV:.*]] = memref.load %[[S]][%thread_id_x]
// CHECK: arith.truncf %[[SV]] : f32 to f16
// CHECK-NEXT: memref.store %{{.*}}, %[[S16]][%thread_id_x]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%thread_id_x]
// W S: W tiles (rows 128 apart) times the f16 state.
// CHECK: gpu.subgroup_mma_load_matrix %[[KEYS]][%{{.*}}] {leadDimension = 128 : index} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[S16]][%{{.*}}] {leadDimension = 32 : index} : memref<4096xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[WS]][%{{.*}}] {leadDimension = 32 : index}
// N = U - W S.
// CHECK: memref.load %[[WS]]
// CHECK-NEXT: arith.subf
// S += Kd^T N: the accumulators loaded from S, Kd read column-major.
// CHECK: gpu.subgroup_mma_load_matrix %[[S]][%{{.*}}] {leadDimension = 32 : index} : memref<4096xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_load_matrix %[[KEYS]][%{{.*}}] {leadDimension = 128 : index, transpose} : memref<8192xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[S]][%{{.*}}] {leadDimension = 32 : index}
// CHECK-LABEL: func.func private @state_dispatch_0(
// CHECK: gpu.subgroup_mma_compute
func.func @state(%q: tensor<2x256x2x128xf16>, %v: tensor<2x256x2x128xf16>, %beta: tensor<2x256x2xf16>) -> tensor<2x256x2x128xf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<2x256x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<2x256x2x128xf16>, tensor<2x256x2x128xf16>, tensor<2x256x2x128xf16>, tensor<2x256x2xf16> -> tensor<2x256x2x128xf16>
  return %o : tensor<2x256x2x128xf16>
}
