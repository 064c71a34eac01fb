// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" | FileCheck %s --check-prefix=CONFIG
// The split cooperative kernel (`chunk_parallel = 1, cooperative = 3`,
// lib/Ops/Linear/Vulkan/CoopSplit.cpp): a state pass walking each batch
// row's chunks with the state in f32 accumulators, writing the state before
// each chunk (transposed) to a temporary in the input's 16 bits, and the
// chunk-parallel
// outputs with K^T and S read from global memory straight into matrices, q
// and V through a stage. bf16, GQA (4 heads on 2), K = V = 64, chunks of 64, state
// blocks of 32, initial and final states. lavapipe has no cooperative
// matrices: numerically checked on the GPU (bench/vulkan/linear.py's
// chk_split_* cases).

// The state pass: grid (V blocks, heads, batch rows).
// CHECK-LABEL: func.func private @split_dispatch_0_states(
// CHECK-SAME: %[[K:[a-z0-9]+]]: memref<2x256x2x64xbf16>
// CHECK-SAME: %[[T:[a-z0-9]+]]: memref<8x4x64x64xf16>)
// CHECK-SAME: ejk.grid = array<i64: 2, 4, 2>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 30720 : i64
// CHECK-DAG: %[[KW:.*]] = builtin.unrealized_conversion_cast %[[K]] : memref<2x256x2x64xbf16> to memref<8192xvector<4xi32>>
// CHECK-DAG: %[[TW:.*]] = builtin.unrealized_conversion_cast %[[T]] : memref<8x4x64x64xf16> to memref<16384xvector<4xi32>>
// CHECK-DAG: %[[KS:.*]] = memref.alloc() : memref<576xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[VS:.*]] = memref.alloc() : memref<320xvector<4xi32>, #gpu.address_space<workgroup>>
// The first chunk's key and value words before the loop; each chunk's
// loop step carries the next one's.
// CHECK: memref.load %[[KW]]
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[S:.*]] = %{{.*}}, %[[K0:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (!gpu.mma_matrix<16x16xf32, "COp">, vector<4xi32>, vector<4xi32>, vector<4xi32>)
// CHECK: memref.store %[[K0]], %[[KS]]
// CHECK: memref.store %{{.*}}, %[[VS]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[NEXT:.*]] = memref.load %[[KW]]
// The state before the chunk, transposed through the subgroup's tile
// stage, out as one word a lane; subgroup barriers only.
// CHECK: gpu.subgroup_mma_store_matrix %[[S]], %{{.*}} {leadDimension = 4 : index, transpose} : !gpu.mma_matrix<16x16xf32, "COp">, memref<512xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: memref.store %{{.*}}, %[[TW]][%{{.*}}] : memref<16384xvector<4xi32>>
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// K^T column-major from the key stage (rows K + 8 = 72 elements = 9 words
// apart), then the update and the chunk's second workgroup barrier.
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[KS]][%{{.*}}] {leadDimension = 9 : index, transpose} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_elementwise  mulf %[[S]]
// CHECK-COUNT-4: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield %{{.*}}, %[[NEXT]]
// The final state through the f32 stage.
// CHECK: memref.store %{{.*}} : memref<2x4x64x64xf32>

// The outputs: grid (chunk slots, heads, V blocks), three workgroup
// barriers.
// CHECK-LABEL: func.func private @split_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 8, 4, 1>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 34816 : i64
// CHECK: %[[QW:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<2x256x4x64xbf16> to memref<16384xvector<4xi32>>
// CHECK: %[[KW2:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<2x256x2x64xbf16> to memref<8192xvector<4xi32>>
// CHECK: %[[VW:.*]] = builtin.unrealized_conversion_cast %arg2 : memref<2x256x2x64xbf16> to memref<8192xvector<4xi32>>
// CHECK: %[[OW:.*]] = builtin.unrealized_conversion_cast %arg5 : memref<2x256x4x64xbf16> to memref<16384xvector<4xi32>>
// CHECK: %[[SW:.*]] = builtin.unrealized_conversion_cast %arg7 : memref<8x4x64x64xf16> to memref<16384xvector<4xi32>>
// The chunk's query and value words first; the queries staged.
// CHECK: memref.load %[[QW]]
// CHECK: %[[V0:.*]] = memref.load %[[VW]]
// CHECK: memref.alloc() : memref<576xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[QV:.*]] = memref.alloc() : memref<576xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[QV]]
// CHECK: gpu.barrier
// Scores: q from its stage and K^T from global memory, F applied on the
// accumulator.
// CHECK: gpu.subgroup_mma_load_matrix %[[QV]][%{{.*}}] {leadDimension = 9 : index} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[KW2]][%{{.*}}] {leadDimension = 16 : index, transpose} : memref<8192xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: spirv.ControlBarrier <Subgroup>
// q S: S^T from the temporary, column-major (K = 64 elements = 8 words
// apart).
// CHECK: gpu.subgroup_mma_load_matrix %[[SW]][%{{.*}}] {leadDimension = 8 : index, transpose} : memref<16384xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_elementwise  mulf
// The values over the queries between two barriers.
// CHECK: gpu.barrier
// CHECK: memref.store %[[V0]], %[[QV]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// A V: the values from their stage.
// CHECK: gpu.subgroup_mma_load_matrix %[[QV]][%{{.*}}] {leadDimension = 9 : index} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: memref.store %{{.*}}, %[[OW]][%{{.*}}] : memref<16384xvector<4xi32>>
// CHECK: return

// The entry calls the state pass, then the outputs.
// CHECK-LABEL: func.func @split(
// CHECK: ejk.dispatch @split_dispatch_0_states
// CHECK: ejk.dispatch @split_dispatch_0(

// The bf16 operands are bf16 matrices in SPIR-V: K^T from the key stage;
// q from its stage, S^T from the storage buffer's 16-byte words.
// SPIRV-LABEL: spirv.func @split_dispatch_0_states
// SPIRV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <ColumnMajor> : !spirv.ptr<vector<4xi32>, Workgroup>, i32 -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd
// SPIRV-LABEL: spirv.func @split_dispatch_0(
// SPIRV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <RowMajor> : !spirv.ptr<vector<4xi32>, Workgroup>, i32 -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// SPIRV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <ColumnMajor> : !spirv.ptr<vector<4xi32>, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB>
func.func @split(%q: tensor<2x256x4x64xbf16>, %k: tensor<2x256x2x64xbf16>, %v: tensor<2x256x2x64xbf16>, %gg: tensor<4xf32>, %s0: tensor<2x4x64x64xf32>) -> (tensor<2x256x4x64xbf16>, tensor<2x4x64x64xf32>) {
  %o, %s = ejk.gla %q, %k, %v g_gamma(%gg : tensor<4xf32>) initial_state(%s0 : tensor<2x4x64x64xf32>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 3>} : tensor<2x256x4x64xbf16>, tensor<2x256x2x64xbf16>, tensor<2x256x2x64xbf16> -> tensor<2x256x4x64xbf16>, tensor<2x4x64x64xf32>
  return %o, %s : tensor<2x256x4x64xbf16>, tensor<2x4x64x64xf32>
}

// -----

// The heuristic's pick for fla's simple-gla shape (B16 T16384 H8 D128, a
// constant decay, bf16 with bf16 matrices, int16): the split form, chunks
// of 64, V blocks of 64 (3.760 ms against the in-order form 2's 4.855 in
// one process on an H200, docs/ops/linear-vulkan.md); one state slot per
// chunk of each batch row.
// CONFIG-LABEL: func.func @heuristic_pick
// CONFIG: config = #ejk.config<block_v = 64, chunk_parallel = 1, chunk_size = 64, cooperative = 3>
// CHECK-LABEL: func.func private @heuristic_pick_dispatch_0_states(
// CHECK-SAME: memref<4096x8x128x128xf16>
// CHECK-SAME: ejk.grid = array<i64: 2, 8, 16>, ejk.matrix_operands = "bf16"
// CHECK-LABEL: func.func private @heuristic_pick_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 4096, 8, 1>, ejk.matrix_operands = "bf16"
func.func @heuristic_pick(%q: tensor<16x16384x8x128xbf16>, %gg: tensor<8xf32>) -> tensor<16x16384x8x128xbf16> {
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<8xf32>) : tensor<16x16384x8x128xbf16>, tensor<16x16384x8x128xbf16>, tensor<16x16384x8x128xbf16> -> tensor<16x16384x8x128xbf16>
  return %o : tensor<16x16384x8x128xbf16>
}
