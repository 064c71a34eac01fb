// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,int16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" | FileCheck %s --check-prefix=CONFIG
// The chunk-parallel delta rule on cooperative matrices (`cooperative` = 1:
// the outputs' products, DeltaCoopOutputs.cpp; 2: the state pass's,
// DeltaCoopState.cpp). lavapipe has no cooperative matrices: these kernels
// are checked numerically on the GPU only (bench/vulkan/delta.py's
// chk_coop* cases).

// The heuristic takes the state pass and the outputs on matrices
// (`cooperative = 2`, faster on an H200: docs/ops/delta.md), the outputs
// in 16-byte words where the device has 16-bit integers (the norms by
// shuffles, the states transposed).
// CONFIG-LABEL: func.func @heuristic
// CONFIG: config = #ejk.config<block_v = 32, chunk_parallel = 1, chunk_size = 64, cooperative = 2>
// CHECK-LABEL: func.func private @heuristic_dispatch_0_state(
// CHECK: gpu.subgroup_mma_compute
// CHECK-LABEL: func.func private @heuristic_dispatch_0(
// CHECK: builtin.unrealized_conversion_cast %arg9 : memref<8x2x64x64xf16> to memref<8192xvector<4xi32>>
// CHECK: gpu.shuffle xor
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 8 : index, transpose} : memref<8192xvector<4xi32>>
// CHECK: gpu.subgroup_mma_compute
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

// `cooperative = 2`, K = V = 128, block_v 32: the state pass and the
// outputs on matrices. The prepare writes Kd in f16 (%arg7) and W in f32
// (%arg6, which its solve reads back) and in f16 (%arg11); the state pass
// writes the states (%arg9) and the new values (%arg12) in f16 for the
// outputs.
// CHECK-LABEL: func.func private @state_dispatch_0_prepare(
// CHECK-SAME: %arg7: memref<8x2x64x128xf16>
// CHECK-SAME: %arg11: memref<8x2x64x128xf16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: memref.store %{{.*}}, %arg7[{{.*}}] : memref<8x2x64x128xf16>
// CHECK: memref.store %{{.*}}, %arg6[{{.*}}] : memref<8x2x64x128xf32>
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: memref.store %{{.*}}, %arg11[{{.*}}] : memref<8x2x64x128xf16>
// The state pass: W and Kd read as 16-byte words straight into matrices;
// shared memory: the f16 state (128 rows of 32 + 8 halves), the f16 new
// values (64 rows) and 8 subgroups' 16x16 f32 stages: 10240 + 5120 + 8192
// bytes.
// CHECK-LABEL: func.func private @state_dispatch_0_state(
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 2>, ejk.shared_memory_bytes = 23552 : i64
// CHECK: %[[W:.*]] = builtin.unrealized_conversion_cast %arg11 : memref<8x2x64x128xf16> to memref<16384xvector<4xi32>>
// CHECK: %[[KD:.*]] = builtin.unrealized_conversion_cast %arg7 : memref<8x2x64x128xf16> to memref<16384xvector<4xi32>>
// CHECK: %[[SH:.*]] = memref.alloc() : memref<5120xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[NH:.*]] = memref.alloc() : memref<2560xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[STAGE:.*]] = memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
// The first chunk's operands before the loop: a subgroup's new-value tile
// takes 8 W tiles (rows 128 halves = 16 words apart) and U's tile (an f32
// accumulator); its 2 state tiles take 4 Kd^T tiles each (Kd read
// column-major).
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix %[[W]][%{{.*}}] {leadDimension = 16 : index} : memref<16384xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %arg8[{{.*}}] {leadDimension = 128 : index} : memref<8x2x64x128xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix %[[KD]][%{{.*}}] {leadDimension = 16 : index, transpose} : memref<16384xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// The chunks in order; the loop carries the 2 state tiles and the next
// chunk's 8 W tiles, U tile and 8 Kd^T tiles.
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf16, "AOp">,
// CHECK: %[[DECAY:.*]] = math.exp
// Publish: S as f16 through the stage to shared memory, then (after the
// barrier) copied to the states temporary by all threads.
// CHECK-NOT: memref<8x2x128x128xf32>
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[STAGE]][%{{.*}}] {leadDimension = 16 : index}
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: memref.store %{{.*}}, %[[SH]]
// CHECK: gpu.barrier
// CHECK: %[[SV:.*]] = memref.load %[[SH]]
// CHECK: memref.store %[[SV]], %arg9[{{.*}}] : memref<8x2x128x128xf16>
// N = U - W S.
// CHECK: gpu.subgroup_mma_load_matrix %[[SH]][%{{.*}}] {leadDimension = 40 : index} : memref<5120xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_elementwise  subf
// The next chunk's W once W S is done.
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix %[[W]]
// N as f16 to shared memory and the new values' temporary (not over U);
// then the next chunk's U.
// CHECK-NOT: gpu.subgroup_mma_store_matrix %{{.*}}, %arg8
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: memref.store %{{.*}}, %[[NH]]
// CHECK: gpu.subgroup_mma_load_matrix %arg8
// CHECK: gpu.barrier
// CHECK: %[[NV:.*]] = memref.load %[[NH]]
// CHECK: memref.store %[[NV]], %arg12[{{.*}}] : memref<8x2x64x128xf16>
// S = exp(B_last) S + Kd^T N; then the next chunk's Kd.
// CHECK: %[[FACTOR:.*]] = gpu.subgroup_mma_constant_matrix %[[DECAY]]
// CHECK: gpu.subgroup_mma_elementwise  mulf %{{.*}}, %[[FACTOR]]
// CHECK: gpu.subgroup_mma_load_matrix %[[NH]][%{{.*}}] {leadDimension = 40 : index} : memref<2560xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: gpu.subgroup_mma_compute
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix %[[KD]][%{{.*}}] {{{.*}}transpose}
// CHECK: scf.yield
// The outputs in 16-byte words (DeltaWordOutputs.cpp): a V block of 128
// (8 chunk slots x 2 heads x 1); q, k (%arg1 twice here), N and the
// output seen as words; the q and k stages (64 rows of 17 words), each
// subgroup's 16x16 f32 stage as words, the D table [64, 16] and the
// gates: 2 x 17408 + 8192 + 4096 + 256 bytes. Every thread's q, k and N
// words are loaded first; a row's sum of squares over its 16 lanes (xor
// shuffles 8, 4, 2, 1), q and k normalized, stored as f16 words.
// CHECK-LABEL: func.func private @state_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 8, 2, 1>, ejk.shared_memory_bytes = 47360 : i64
// CHECK: %[[QW:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<2x256x2x128xf16> to memref<16384xvector<4xi32>>
// CHECK-NEXT: %[[KW:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<2x256x2x128xf16> to memref<16384xvector<4xi32>>
// CHECK-NEXT: %[[OW:.*]] = builtin.unrealized_conversion_cast %arg5 : memref<2x256x2x128xf16> to memref<16384xvector<4xi32>>
// CHECK-NEXT: %[[SW:.*]] = builtin.unrealized_conversion_cast %arg9 : memref<8x2x128x128xf16> to memref<32768xvector<4xi32>>
// CHECK-NEXT: %[[NW:.*]] = builtin.unrealized_conversion_cast %arg12 : memref<8x2x64x128xf16> to memref<16384xvector<4xi32>>
// CHECK: %[[QS:.*]] = memref.alloc() : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[KS:.*]] = memref.alloc() : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[TS:.*]] = memref.alloc() : memref<512xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[D:.*]] = memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.load %[[QW]][%{{.*}}] : memref<16384xvector<4xi32>>
// CHECK-COUNT-4: memref.load %[[KW]][%{{.*}}] : memref<16384xvector<4xi32>>
// CHECK-COUNT-4: memref.load %[[NW]][%{{.*}}] : memref<16384xvector<4xi32>>
// CHECK: memref.store %{{.*}}, %[[D]]
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: math.sqrt
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: vector.from_elements
// CHECK: memref.store %{{.*}}, %[[QS]][%{{.*}}] : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[KS]][%{{.*}}] : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// O = qn S: each S^T tile read once (column-major: the keys of a column
// contiguous), times the subgroup's 4 row tiles of q.
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix %[[SW]][%{{.*}}] {leadDimension = 16 : index, transpose} : memref<32768xvector<4xi32>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// The scores: k read column-major from its stage.
// CHECK: gpu.subgroup_mma_load_matrix %[[QS]][%{{.*}}] {leadDimension = 17 : index} : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[KS]][%{{.*}}] {leadDimension = 17 : index, transpose} : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.barrier
// P through the subgroup's stage as f16 words over the q stage (rows of 9
// words); O's rows times D; N's words over the k stage.
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[TS]][%{{.*}}] {leadDimension = 4 : index}
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[QS]]
// CHECK: %[[DM:.*]] = gpu.subgroup_mma_load_matrix %[[D]][%{{.*}}] {leadDimension = 16 : index} : memref<1024xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-NEXT: gpu.subgroup_mma_elementwise  mulf %{{.*}}, %[[DM]]
// CHECK: memref.store %{{.*}}, %[[KS]]
// CHECK: gpu.barrier
// O += P N over the step tiles at or left of the diagonal (1 + 2 + 3 + 4).
// CHECK-COUNT-10: gpu.subgroup_mma_load_matrix %[[QS]][%{{.*}}] {leadDimension = 9 : index}
// CHECK-NOT: gpu.subgroup_mma_load_matrix
// O leaves as words of the output.
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[TS]][%{{.*}}] {leadDimension = 4 : index}
// CHECK: memref.store %{{.*}}, %[[OW]][%{{.*}}] : memref<16384xvector<4xi32>>
// CHECK: return
func.func @state(%q: tensor<2x256x2x128xf16>, %v: tensor<2x256x2x128xf16>, %beta: tensor<2x256x2xf16>) -> tensor<2x256x2x128xf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<2x256x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<2x256x2x128xf16>, tensor<2x256x2x128xf16>, tensor<2x256x2x128xf16>, tensor<2x256x2xf16> -> tensor<2x256x2x128xf16>
  return %o : tensor<2x256x2x128xf16>
}

// -----

// `cooperative = 2` with K (128) != V (64): the state pass writes the
// states transposed ([slots, H, V, K], the keys of a column contiguous:
// stores at [slot, head, column, key]) for the outputs in words. V blocks
// of 64: subgroup g owns V tile g mod 4 and row tiles g / 4 and g / 4 + 2,
// so the P tiles above the diagonal that its P N may read are zeroed
// first; P (rows of 9 words) at 2 + 4 step tiles.
// CHECK-LABEL: func.func private @words_dispatch_0_state(
// CHECK: memref.store %{{.*}}, %arg9[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x2x64x128xf16>
// CHECK-LABEL: func.func private @words_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 2, 2, 1>, ejk.shared_memory_bytes = 47360 : i64
// CHECK: %[[SW:.*]] = builtin.unrealized_conversion_cast %arg9 : memref<2x2x64x128xf16> to memref<4096xvector<4xi32>>
// CHECK: %[[QS:.*]] = memref.alloc() : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: gpu.subgroup_mma_load_matrix %[[SW]][%{{.*}}] {leadDimension = 16 : index, transpose}
// CHECK: gpu.barrier
// CHECK: arith.cmpi sgt
// CHECK-NEXT: scf.if
// CHECK: memref.store %{{.*}}, %[[QS]]
// CHECK: gpu.barrier
// CHECK-COUNT-6: gpu.subgroup_mma_load_matrix %[[QS]][%{{.*}}] {leadDimension = 9 : index} : memref<1088xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NOT: gpu.subgroup_mma_load_matrix
// CHECK: return
func.func @words(%q: tensor<1x128x2x128xf16>, %v: tensor<1x128x2x64xf16>, %beta: tensor<1x128x2xf16>) -> tensor<1x128x2x64xf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<1x128x2x128xf16>, tensor<1x128x2x128xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x64xf16>
  return %o : tensor<1x128x2x64xf16>
}

// -----

// `cooperative = 2` at K = 256: the outputs' stages of q and k (2 x 64 rows
// of 264 halves) do not fit 48 KiB, so the outputs stay SIMT (f32 states
// and new values), the state pass on matrices.
// CHECK-LABEL: func.func private @wide_dispatch_0_state(
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %arg9[{{.*}}] {leadDimension = 64 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<2x2x256x64xf32>
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %arg8[{{.*}}] {leadDimension = 64 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<2x2x64x64xf32>
// CHECK-LABEL: func.func private @wide_dispatch_0(
// CHECK-NOT: gpu.subgroup_mma
// CHECK: return
func.func @wide(%q: tensor<1x128x2x256xf16>, %v: tensor<1x128x2x64xf16>, %beta: tensor<1x128x2xf16>) -> tensor<1x128x2x64xf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x128x2xf16>) {config = #ejk.config<block_v = 32, chunk_size = 64, chunk_parallel = 1, cooperative = 2>} : tensor<1x128x2x256xf16>, tensor<1x128x2x256xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2xf16> -> tensor<1x128x2x64xf16>
  return %o : tensor<1x128x2x64xf16>
}
