// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle,cooperative_matrix_bf16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV
// The in-order cooperative kernel's form 2 (`chunk_parallel = 0,
// cooperative = 2`, lib/Ops/Linear/Vulkan/CoopInOrder.cpp): each subgroup
// converts its own score and state tiles to operands through its 16x16 part
// of the f32 stage behind subgroup barriers (spirv.ControlBarrier at
// subgroup scope), so a chunk holds three workgroup barriers: after the
// stages, after the scores and q S, after A V and the state update. The
// gla_gqa case of tile-vulkan-coop-in-order.mlir in this form: bf16, GQA,
// K = 64, V = 48 in blocks of 32, chunks of 32; the same grid, FLOPs and
// shared memory (form 2's f32 stage needs no C x C scores; here 12 tiles of
// 256 floats either way). lavapipe has no cooperative matrices: numerically
// checked on the GPU (bench/vulkan/linear.py's chk_inorder2_* cases).

// CHECK-LABEL: func.func private @form2_dispatch_0(
// CHECK-SAME: ejk.flops = 12787200 : i64, ejk.grid = array<i64: 2, 4, 2>, ejk.matrix_operands = "bf16", ejk.shared_memory_bytes = 34304 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// The output as 16-byte words (head_dim_v a multiple of 8).
// CHECK: %[[OW:.*]] = builtin.unrealized_conversion_cast %arg4 : memref<2x100x4x48xbf16> to memref<4800xvector<4xi32>>
// CHECK: %[[S:.*]] = memref.alloc() : memref<2560xf16, #gpu.address_space<workgroup>>
// CHECK: %[[A:.*]] = memref.alloc() : memref<1280xf16, #gpu.address_space<workgroup>>
// CHECK: %[[F:.*]] = memref.alloc() : memref<3072xf32, #gpu.address_space<workgroup>>
// A16 zeroed once (its tiles above the diagonal are never written), then
// the first S16 from the subgroup's tile, behind subgroup barriers only.
// CHECK: memref.store %cst{{.*}}, %[[A]]
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[F]][%{{.*}}] {leadDimension = 16 : index}
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// The chunk: stages, barrier 1.
// CHECK: gpu.barrier
// Q K^T on the score tiles' owners, then (F applied) into A16 through the
// subgroup's tile.
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[F]][%{{.*}}] {leadDimension = 16 : index}
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: arith.mulf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// D o (Q S16), barrier 2 (no A conversion round of the workgroup).
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix %[[S]]
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.barrier
// CHECK-NOT: memref.load %[[F]]
// O += A16 V; the state update; O tiles into the output region; the new
// state into S16 in the subgroup; barrier 3; the outputs written as words
// of 8 (bf16 bits two to a 32-bit lane, the first in the low half).
// CHECK: gpu.subgroup_mma_load_matrix %[[A]]
// CHECK: %[[DECAY:.*]] = gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_elementwise  mulf %{{.*}}, %[[DECAY]]
// CHECK: gpu.subgroup_mma_compute
// CHECK: %[[NEXT:[0-9]+]] = gpu.subgroup_mma_compute
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix %[[NEXT]], %[[F]][%{{.*}}] {leadDimension = 16 : index}
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.extui %{{.*}} : i16 to i32
// CHECK: arith.shli %{{.*}}, %c16_i32 : i32
// CHECK: arith.ori
// CHECK: %[[WORD:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: memref.store %[[WORD]], %[[OW]][%{{.*}}] : memref<4800xvector<4xi32>>
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield %[[NEXT]]

// After the Vulkan lowering: subgroup-scope control barriers beside the
// workgroup's.
// SPIRV-DAG: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// SPIRV-DAG: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
func.func @form2(%q: tensor<2x100x4x64xbf16>, %k: tensor<2x100x2x64xbf16>, %v: tensor<2x100x2x48xbf16>, %gg: tensor<4xf32>) -> tensor<2x100x4x48xbf16> {
  %o = ejk.gla %q, %k, %v g_gamma(%gg : tensor<4xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 2>} : tensor<2x100x4x64xbf16>, tensor<2x100x2x64xbf16>, tensor<2x100x2x48xbf16> -> tensor<2x100x4x48xbf16>
  return %o : tensor<2x100x4x48xbf16>
}

// -----

// K = 128, chunks of 32: the q stage (32 rows of 17 words) holds a 16x16
// f32 tile per subgroup (8 x 64 words), so each state tile becomes S16
// through it, free from the scores' barrier to the next chunk's stage, and
// is read back as 16-byte words, four floats a load (simple gla at fla's
// shape: 5.357 -> 4.871 ms bf16 on an H200, docs/ops/linear-vulkan.md). The case
// above (K = 64: 32 rows of 9 words, too few) keeps the f32 stage's tile.
// CHECK-LABEL: func.func private @words_dispatch_0(
// CHECK: %[[QW:.*]] = memref.alloc() : memref<544xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: %[[S16:.*]] = memref.alloc() : memref<5120xf16, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[QW]][%{{.*}}] {leadDimension = 4 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<544xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK-NEXT: arith.addi
// CHECK-NEXT: %[[W:.*]] = memref.load %[[QW]][%{{.*}}] : memref<544xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[F4:.*]] = vector.bitcast %[[W]] : vector<4xi32> to vector<4xf32>
// CHECK: vector.extract %[[F4]][0] : f32 from vector<4xf32>
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: arith.bitcast %{{.*}} : bf16 to f16
// CHECK-NEXT: memref.store %{{.*}}, %[[S16]][%{{.*}}] : memref<5120xf16, #gpu.address_space<workgroup>>
// CHECK: vector.extract %[[F4]][3] : f32 from vector<4xf32>
// The subgroup's second state tile the same way, then barrier 3.
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[QW]][%{{.*}}] {leadDimension = 4 : index}
// CHECK: vector.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: spirv.ControlBarrier <Subgroup>, <Subgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK-NEXT: gpu.barrier
func.func @words(%q: tensor<1x100x2x128xbf16>, %gg: tensor<2xf32>) -> tensor<1x100x2x128xbf16> {
  %o = ejk.gla %q, %q, %q g_gamma(%gg : tensor<2xf32>) {config = #ejk.config<block_v = 32, chunk_size = 32, cooperative = 2>} : tensor<1x100x2x128xbf16>, tensor<1x100x2x128xbf16>, tensor<1x100x2x128xbf16> -> tensor<1x100x2x128xbf16>
  return %o : tensor<1x100x2x128xbf16>
}
