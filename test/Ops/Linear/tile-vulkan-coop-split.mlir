// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" | FileCheck %s --check-prefix=CONFIG
// The split cooperative kernel (`chunk_parallel = 1, cooperative = 3`,
// lib/Ops/Linear/Vulkan/CoopSplit.cpp): a state pass walking each batch
// row's chunks with the state in f32 accumulators, writing the state before
// each chunk (transposed) to a temporary in the input's 16 bits, and the
// chunk-parallel outputs with q and K staged side by side (A later over
// the keys, V over the queries) and S read from global memory straight
// into matrices. bf16, GQA (4 heads on 2), K = V = 64, chunks of 64, state
// blocks of 32, initial and final states. lavapipe has no cooperative
// matrices: numerically checked on the GPU (bench/vulkan/linear.py's
// chk_split_* cases).

// The state pass: grid (V blocks x key blocks, heads, batch rows), a key
// block of 64 on 128 threads (4 subgroups of 2 state tiles).
// CHECK-LABEL: func.func private @split_dispatch_0_states(
// CHECK-SAME: %[[K:[a-z0-9]+]]: memref<2x256x2x64xbf16>
// CHECK-SAME: %[[T:[a-z0-9]+]]: memref<8x4x64x64xf16>)
// CHECK-SAME: ejk.grid = array<i64: 2, 4, 2>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 22528 : i64, ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK-DAG: %[[KW:.*]] = builtin.unrealized_conversion_cast %[[K]] : memref<2x256x2x64xbf16> to memref<8192xvector<4xi32>>
// CHECK-DAG: %[[TW:.*]] = builtin.unrealized_conversion_cast %[[T]] : memref<8x4x64x64xf16> to memref<16384xvector<4xi32>>
// CHECK-DAG: %[[KS:.*]] = memref.alloc() : memref<576xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[VS:.*]] = memref.alloc() : memref<320xvector<4xi32>, #gpu.address_space<workgroup>>
// The first chunk's key and value words before the loop; each chunk's
// loop step carries the next one's.
// CHECK: memref.load %[[KW]]
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[S:[a-z0-9]+]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[K0:[a-z0-9]+]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
// CHECK: memref.store %[[K0]], %[[KS]]
// CHECK-COUNT-2: memref.store %{{.*}}, %[[VS]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[NEXT:.*]] = memref.load %[[KW]]
// The state before the chunk, transposed through the subgroup's tile
// stage, out as one word a lane; subgroup barriers only.
// CHECK: gpu.subgroup_mma_store_matrix %[[S]], %{{.*}} {leadDimension = 4 : index, transpose} : !gpu.mma_matrix<16x16xf32, "COp">, memref<256xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: memref.store %{{.*}}, %[[TW]][%{{.*}}] : memref<16384xvector<4xi32>>
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// K^T column-major from the key stage (rows K + 8 = 72 elements = 9 words
// apart), once for the subgroup's two tiles, then the update and the
// chunk's second workgroup barrier.
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[KS]][%{{.*}}] {leadDimension = 9 : index, transpose} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NOT: gpu.subgroup_mma_load_matrix %[[KS]]
// CHECK: gpu.subgroup_mma_elementwise  mulf %[[S]]
// CHECK-COUNT-8: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield %{{.*}}, %[[NEXT]]
// The final state through the f32 stage.
// CHECK: memref.store %{{.*}} : memref<2x4x64x64xf32>

// The outputs: grid (chunk slots, heads, V blocks), three workgroup
// barriers.
// CHECK-LABEL: func.func private @split_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 8, 4, 1>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 29696 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: %[[QW:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<2x256x4x64xbf16> to memref<16384xvector<4xi32>>
// CHECK: %[[KW2:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<2x256x2x64xbf16> to memref<8192xvector<4xi32>>
// CHECK: %[[VW:.*]] = builtin.unrealized_conversion_cast %arg2 : memref<2x256x2x64xbf16> to memref<8192xvector<4xi32>>
// CHECK: %[[OW:.*]] = builtin.unrealized_conversion_cast %arg5 : memref<2x256x4x64xbf16> to memref<16384xvector<4xi32>>
// CHECK: %[[SW:.*]] = builtin.unrealized_conversion_cast %arg7 : memref<8x4x64x64xf16> to memref<16384xvector<4xi32>>
// The chunk's query, value and key words first; the queries and the keys
// staged side by side (rows 64 + 8 = 72 elements = 9 words apart), the F_0,
// F_1 and D_0 tables (3 x 256 floats) beside them.
// CHECK: memref.load %[[QW]]
// CHECK: %[[V0:.*]] = memref.load %[[VW]]
// CHECK: %[[K0:.*]] = memref.load %[[KW2]]
// CHECK: %[[TABLES:.*]] = memref.alloc() : memref<768xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[QV:.*]] = memref.alloc() : memref<576xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[KA:.*]] = memref.alloc() : memref<576xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[QV]]
// CHECK: memref.store %[[K0]], %[[KA]]
// CHECK: memref.store %{{.*}}, %[[TABLES]]
// CHECK: gpu.barrier
// Scores: q and K^T (column-major) from their stages, F_0 or F_1 and the
// tile's decay factor applied on the accumulator; no global K^T.
// CHECK-NOT: gpu.subgroup_mma_load_matrix %[[KW2]]
// CHECK: gpu.subgroup_mma_load_matrix %[[QV]][%{{.*}}] {leadDimension = 9 : index} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[KA]][%{{.*}}] {leadDimension = 9 : index, transpose} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[TABLES]]
// CHECK-NEXT: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_constant_matrix
// CHECK-NEXT: %[[SCORE:.*]] = gpu.subgroup_mma_elementwise  mulf
// The second round of score tiles (10 tiles on 8 subgroups) only where the
// subgroup owns one, its accumulator out of the branch.
// CHECK: %[[SCORE2:.*]] = scf.if %{{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">)
// q S: S^T from the temporary, column-major (K = 64 elements = 8 words
// apart); D_0 and the row tile's factor.
// CHECK: gpu.subgroup_mma_load_matrix %[[SW]][%{{.*}}] {leadDimension = 8 : index, transpose} : memref<16384xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[TABLES]][%c512]
// CHECK: gpu.subgroup_mma_elementwise  mulf
// After one barrier: the scores over the keys (through the subgroup's tile
// stage), the upper tiles zeroed, the values over the queries; then one
// more barrier.
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix %[[SCORE]]
// CHECK: memref.store %{{.*}}, %[[KA]]
// CHECK: gpu.subgroup_mma_store_matrix %[[SCORE2]]
// CHECK: memref.store %{{.*}}, %[[KA]]
// CHECK: memref.store %{{.*}}, %[[KA]]
// CHECK: memref.store %[[V0]], %[[QV]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// A V: the values from the queries' stage, A from the keys'.
// CHECK: gpu.subgroup_mma_load_matrix %[[QV]][%{{.*}}] {leadDimension = 9 : index} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[KA]][%{{.*}}] {leadDimension = 9 : index} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
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
// of 64, V blocks of 64 (2.860 ms against session 18's split 3.755 in one
// process on an H200, docs/ops/linear-vulkan.md); one state slot per
// chunk of each batch row. The state pass in blocks of 64 keys (2 V blocks
// x 2 key blocks) on 128 threads; the outputs stage the keys (46080
// bytes).
// CONFIG-LABEL: func.func @heuristic_pick
// CONFIG: config = #ejk.config<block_v = 64, chunk_parallel = 1, chunk_size = 64, cooperative = 3>
// CHECK-LABEL: func.func private @heuristic_pick_dispatch_0_states(
// CHECK-SAME: memref<4096x8x128x128xf16>
// CHECK-SAME: ejk.grid = array<i64: 4, 8, 16>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 26624 : i64, ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK-LABEL: func.func private @heuristic_pick_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 4096, 8, 1>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 46080 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
func.func @heuristic_pick(%q: tensor<16x16384x8x128xbf16>, %gg: tensor<8xf32>) -> tensor<16x16384x8x128xbf16> {
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<8xf32>) : tensor<16x16384x8x128xbf16>, tensor<16x16384x8x128xbf16>, tensor<16x16384x8x128xbf16> -> tensor<16x16384x8x128xbf16>
  return %o : tensor<16x16384x8x128xbf16>
}

// -----

// K = 256, V = 128, chunks of 48: the state pass in blocks of 64 keys on
// 128 threads (x = V block * 4 + key block; each block's first key 64 x
// its index); the outputs' keys do not fit beside the queries (61952
// bytes), so K^T comes from global memory (rows 2 x 256 elements = 64
// words apart) and A has its own stage (45056 bytes).
// CHECK-LABEL: func.func private @split_key_blocks_dispatch_0_states(
// CHECK-SAME: ejk.grid = array<i64: 8, 2, 1>, ejk.shared_memory_bytes = 22016 : i64, ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK: %[[X:.*]] = ejk.workgroup_id 0
// CHECK-NEXT: %[[KB:.*]] = arith.remui %[[X]], %c4 : index
// CHECK-NEXT: arith.muli %[[KB]], %c64 : index
// CHECK-NEXT: %[[VB:.*]] = arith.divui %[[X]], %c4 : index
// CHECK-NEXT: arith.muli %[[VB]], %c64 : index
// CHECK-LABEL: func.func private @split_key_blocks_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 2, 1>, ejk.shared_memory_bytes = 45056 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 64 : index, transpose} : memref<6144xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "BOp">
func.func @split_key_blocks(%q: tensor<1x96x2x256xf16>, %v: tensor<1x96x2x128xf16>, %gg: tensor<2xf32>) -> tensor<1x96x2x128xf16> {
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 64, chunk_size = 48, chunk_parallel = 1, cooperative = 3>} : tensor<1x96x2x256xf16>, tensor<1x96x2x256xf16>, tensor<1x96x2x128xf16> -> tensor<1x96x2x128xf16>
  return %o : tensor<1x96x2x128xf16>
}

// -----

// K = 32 (not a multiple of 64): the state pass keeps every key on 256
// threads (8 subgroups, each tile stage part 64 words); the outputs stage
// the keys.
// CHECK-LABEL: func.func private @split_every_key_dispatch_0_states(
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 1>, ejk.shared_memory_bytes = 23552 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: memref.alloc() : memref<512xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func private @split_every_key_dispatch_0(
// CHECK-SAME: ejk.shared_memory_bytes = 18432 : i64
// CHECK: memref.alloc() : memref<768xf32, #gpu.address_space<workgroup>>
func.func @split_every_key(%q: tensor<1x128x2x32xf16>, %v: tensor<1x128x2x64xf16>, %gg: tensor<2xf32>) -> tensor<1x128x2x64xf16> {
  %o = ejk.gla %q, %q, %v g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 64, chunk_size = 32, chunk_parallel = 1, cooperative = 3>} : tensor<1x128x2x32xf16>, tensor<1x128x2x32xf16>, tensor<1x128x2x64xf16> -> tensor<1x128x2x64xf16>
  return %o : tensor<1x128x2x64xf16>
}
