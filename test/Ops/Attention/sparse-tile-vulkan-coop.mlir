// Block-sparse attention on the cooperative-matrix kernel: the key-block
// loop walks the live-block list (its count bounds the loop, its entries
// give each block and the block loaded ahead), on a device with NVIDIA's
// matrix layout (register softmax) and 48 KiB of shared memory; the
// shared-memory softmax elsewhere; the portable kernel where the mask's
// blocks do not hold 16-row tiles or the device has no cooperative matrices.
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle,cooperative_matrix_nv_layout subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=STAGE
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches | FileCheck %s --check-prefix=PORTABLE

// gsparse's shape in small: d128, 128 x 128 mask blocks per head, not
// causal. The heuristic takes dense flash attention's 128 x 64 blocks of 8
// subgroups (one K/V buffer at d128). The grid's 4 jobs are one group of
// the job order (orderLiveBlockJobs: 16 bytes of keys, 16 of the order);
// the kernel builds its own list (no list dispatch): up to 4 key blocks of
// 64, 16 bytes of entries and 16 of flags, beside the 36352 bytes of its
// stages.
// CHECK-NOT: live_blocks
// CHECK-LABEL: func.func private @gsparse_dispatch_0(
// CHECK-SAME: %[[MASK:arg[0-9]+]]: memref<1x2x2x2xi1>, %{{.*}}: memref<1x256x2x128xf16>)
// CHECK-SAME: ejk.grid = array<i64: 2, 2, 1>
// CHECK-SAME: ejk.requires = ["cooperative_matrix_nv_layout"]
// CHECK-SAME: ejk.shared_memory_bytes = 36416 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// The job order: thread t < 4 counts job t's live blocks from its mask row
// (two columns) and stores its key; then ranks its key among the four and
// stores its job at that rank; the workgroup runs the job at its own
// position in the group.
// CHECK: %[[KEYS:.*]] = memref.alloc() : memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: %[[ORDER:.*]] = memref.alloc() : memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: %[[TID0:thread_id_x[_0-9]*]] = gpu.thread_id x
// CHECK: %[[COUNTING:.*]] = arith.cmpi ult, %[[TID0]], %c4{{.*}} : index
// CHECK: scf.if %[[COUNTING]] {
// CHECK: memref.load %[[MASK]][%c0{{.*}}, %{{.*}}, %{{.*}}, %c0{{.*}}]
// CHECK: memref.load %[[MASK]][%c0{{.*}}, %{{.*}}, %{{.*}}, %c1{{.*}}]
// CHECK: memref.store %{{.*}}, %[[KEYS]][%[[TID0]]]
// CHECK: gpu.barrier
// CHECK: scf.if %[[COUNTING]] {
// CHECK: %[[MINE:.*]] = memref.load %[[KEYS]][%[[TID0]]]
// CHECK: %[[RANK:.*]] = scf.for
// CHECK: arith.cmpi ugt, %{{.*}}, %[[MINE]] : i32
// CHECK: memref.store %{{.*}}, %[[ORDER]][%[[RANK]]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[ORDER]]
// CHECK: %[[JOB:.*]] = arith.addi
// CHECK-NEXT: %[[QBLOCK:.*]] = arith.remui %[[JOB]], %c2{{.*}} : index
// CHECK-NEXT: %[[PAIR:.*]] = arith.divui %[[JOB]], %c2{{.*}} : index
// CHECK-NEXT: %[[HEAD:.*]] = arith.remui %[[PAIR]], %c2{{.*}} : index
// Q's rows (8 words a thread) are loaded before the list is built: their
// latency hides behind the mask reads.
// CHECK: %[[QWORDS:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<1x256x2x128xf16> to memref<8192xvector<4xi32>>
// CHECK-COUNT-8: memref.load %[[QWORDS]][%{{.*}}] : memref<8192xvector<4xi32>>
// That job's list: the first 4 threads each read one key block's mask
// entry at the job's head (the mask broadcasts over the batch) and store
// its flag.
// CHECK: %[[ENTRIES:.*]] = memref.alloc() : memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: %[[FLAGS:.*]] = memref.alloc() : memref<4xi32, #gpu.address_space<workgroup>>
// CHECK: arith.muli %[[QBLOCK]], %c128{{.*}} : index
// CHECK: %[[ACTIVE:.*]] = arith.cmpi ult, %[[TID:thread_id_x[_0-9]*]], %c4{{.*}} : index
// CHECK: memref.load %[[MASK]][%c0{{.*}}, %[[HEAD]], %{{.*}}, %{{.*}}] : memref<1x2x2x2xi1>
// CHECK: scf.if %[[ACTIVE]] {
// CHECK: memref.store %{{.*}}, %[[FLAGS]][%[[TID]]]
// CHECK: gpu.barrier
// Each thread sums the flags before its block (its position) and all of
// them (the count), in a fixed order.
// CHECK: %[[SUMS:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %c4{{.*}} step
// CHECK: memref.load %[[FLAGS]][%[[J]]]
// CHECK: arith.cmpi ult, %[[J]], %[[TID]] : index
// CHECK: %[[WRITES:.*]] = arith.andi %[[ACTIVE]], %{{.*}} : i1
// CHECK: %[[POSITION:.*]] = arith.addi %{{.*}}, %[[SUMS]]#0 : index
// CHECK: scf.if %[[WRITES]] {
// CHECK: memref.store %{{.*}}, %[[ENTRIES]][%[[POSITION]]]
// CHECK: %[[COUNT:.*]] = arith.addi %{{.*}}, %[[SUMS]]#1 : index
// CHECK-NEXT: gpu.barrier
// The count bounds the loop. Before Q is staged, the blocks of list
// positions 0 and 1 are read (a block past the last one, 4, where the list
// is shorter) and the first block's rows are loaded: seq_k holds whole key
// blocks, so the rows' address takes the block clamped to the last one, 3
// (a block past the last reads block 3, which no iteration computes), and
// no test per row.
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %[[COUNT]] : index
// CHECK: memref.load %[[ENTRIES]]
// CHECK: %[[E0:.*]] = arith.index_cast
// CHECK: %[[B0:.*]] = arith.select %[[IN0]], %[[E0]], %c4{{.*}} : index
// CHECK: %[[IN1:.*]] = arith.cmpi slt, %{{.*}}, %[[COUNT]] : index
// CHECK: memref.load %[[ENTRIES]]
// CHECK: %[[E1:.*]] = arith.index_cast
// CHECK: %[[B1:.*]] = arith.select %[[IN1]], %[[E1]], %c4{{.*}} : index
// CHECK: %[[C0:.*]] = arith.minsi %[[B0]], %c3{{.*}} : index
// CHECK-NEXT: arith.constant 64
// CHECK-NEXT: arith.muli %[[C0]], %c64{{.*}} : index
// CHECK: gpu.barrier
// The loop takes two list positions an iteration, [0, 2 * (count / 2)),
// and carries the blocks of positions i and i + 1 (pipelined: P of the
// previous position too).
// CHECK: %[[SPAN:.*]] = arith.subi %[[COUNT]], %[[LO:.*]] : index
// CHECK-NEXT: %[[PAIRS:.*]] = arith.divui %[[SPAN]], %[[TWO:.*]] : index
// CHECK-NEXT: %[[PAIRSPAN:.*]] = arith.muli %[[PAIRS]], %[[TWO]] : index
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[LO]], %[[PAIRSPAN]] : index
// CHECK-NEXT: %[[LOOP:.*]]:26 = scf.for %[[I:.*]] = %[[LO]] to %[[END]] step %[[TWO]] iter_args(
// CHECK-SAME: %[[CUR:arg[0-9]+]] = %[[B0]], %[[NEXT:arg[0-9]+]] = %[[B1]]) ->
// In the loop: stage the block, load the next block's K rows and this
// block's V rows ahead (pipelined; blocks clamped), then read the list
// entry of position i + 2 for the next position.
// CHECK: gpu.barrier
// CHECK: %[[CN:.*]] = arith.minsi %[[NEXT]], %c3{{.*}} : index
// CHECK-NEXT: arith.constant 64
// CHECK-NEXT: arith.muli %[[CN]], %c64{{.*}} : index
// CHECK: %[[CV:.*]] = arith.minsi %[[CUR]], %c3{{.*}} : index
// CHECK-NEXT: arith.constant 64
// CHECK-NEXT: arith.muli %[[CV]], %c64{{.*}} : index
// CHECK: %[[POS:.*]] = arith.addi %[[I]], %c2{{.*}} : index
// CHECK: arith.cmpi slt, %[[POS]], %[[COUNT]] : index
// CHECK: memref.load %[[ENTRIES]]
// CHECK: gpu.subgroup_mma_compute
// The first position of a pair may be the list's first: the previous
// block's P V (a zero P there) runs only past it, in a uniform branch.
// CHECK: %[[NOTFIRST:.*]] = arith.cmpi ne, %[[I]], %[[LO]] : index
// CHECK-NEXT: scf.if %[[NOTFIRST]] -> (!gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_compute
// The scores' keys start at this position's block.
// CHECK: arith.muli %[[CUR]], %c64{{.*}} : index
// CHECK: gpu.subgroup_mma_extract_thread_local
// CHECK: gpu.barrier
// The second position (i + 1): its block's rows, its list entry i + 3,
// and no test for the list's first position.
// CHECK: gpu.barrier
// CHECK: %[[POS3:.*]] = arith.addi %{{.*}}, %c2{{.*}} : index
// CHECK: arith.cmpi slt, %[[POS3]], %[[COUNT]] : index
// CHECK: memref.load %[[ENTRIES]]
// CHECK-NOT: arith.cmpi ne, %{{.*}}, %[[LO]] : index
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// The odd position of an odd count, in a branch.
// CHECK: %[[ODD:.*]] = arith.cmpi ult, %[[END]], %[[COUNT]] : index
// CHECK-NEXT: scf.if %[[ODD]]
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[LOOP]]#0,
// After the loop the output goes through the stage, as dense flash
// attention's: each subgroup's 8 O tiles as f16 accumulators into
// workgroup memory, a barrier, then the block's rows in 16-byte words (8 a
// thread; an empty list's sum is 0, its rows 0).
// CHECK-COUNT-8: gpu.subgroup_mma_store_matrix {{.*}} : !gpu.mma_matrix<16x16xf16, "COp">, memref<{{[0-9]+}}xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: memref.store %{{.*}} : memref<8192xvector<4xi32>>
// CHECK-NOT: live_blocks
// CHECK: ejk.dispatch @gsparse_dispatch_0(

// STAGE-LABEL: func.func private @gsparse_dispatch_0(
// STAGE-NOT: ejk.requires
// The job order's two barriers, then the list.
// STAGE: gpu.barrier
// STAGE: gpu.barrier
// STAGE: %[[LIST:.*]] = memref.alloc() : memref<{{[0-9]+}}xi32, #gpu.address_space<workgroup>>
// STAGE: memref.store %{{.*}}, %[[LIST]]
// STAGE: %[[COUNT:.*]] = arith.addi
// STAGE-NEXT: gpu.barrier
// STAGE: %[[SPAN:.*]] = arith.subi %[[COUNT]], %{{.*}} : index
// STAGE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// STAGE: memref.load %[[LIST]]
// STAGE: gpu.subgroup_mma_compute

// PORTABLE-LABEL: func.func private @gsparse_dispatch_0(
// PORTABLE-NOT: gpu.subgroup_mma_compute
// PORTABLE: memref.alloc() : memref<{{[0-9]+}}xi32, #gpu.address_space<workgroup>>
// PORTABLE: scf.for
// PORTABLE-NOT: gpu.subgroup_mma_compute
// PORTABLE: return
func.func @gsparse(%q: tensor<1x256x2x128xf16>, %k: tensor<1x256x2x128xf16>, %v: tensor<1x256x2x128xf16>, %bm: tensor<1x2x2x2xi1>) -> tensor<1x256x2x128xf16> {
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 128 : i64, causal = false}
      : tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x256x2x128xf16>, tensor<1x2x2x2xi1> -> tensor<1x256x2x128xf16>
  return %o : tensor<1x256x2x128xf16>
}

// -----

// d64 with 64 x 64 mask blocks, a per-batch mask and GQA: 64 x 64 blocks of
// two subgroups with two row tiles each; the list is per (batch, head):
// the mask is read at the batch and head of the workgroup's job (the job
// order's group holds the grid's 16 jobs: 2 query blocks, 4 heads, 2
// batches). Two K/V buffers need 256 threads: one here.
// CHECK-LABEL: func.func private @gqa_dispatch_0(
// CHECK-SAME: %[[MASK:arg[0-9]+]]: memref<2x4x2x2xi1>
// CHECK-SAME: ejk.grid = array<i64: 2, 4, 2>
// CHECK-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
// CHECK: %[[ORDER:.*]] = memref.alloc() : memref<16xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: memref.load %[[ORDER]]
// CHECK: %[[JOB:.*]] = arith.addi
// CHECK-NEXT: arith.remui %[[JOB]], %c2{{.*}} : index
// CHECK-NEXT: %[[PAIR:.*]] = arith.divui %[[JOB]], %c2{{.*}} : index
// CHECK-NEXT: %[[HEAD:.*]] = arith.remui %[[PAIR]], %c4{{.*}} : index
// CHECK-NEXT: %[[BATCH:.*]] = arith.divui %[[PAIR]], %c4{{.*}} : index
// CHECK: %[[LIST:.*]] = memref.alloc() : memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[MASK]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK: memref.load %[[LIST]]
// CHECK: scf.for
// CHECK: memref.load %[[LIST]]
// CHECK: gpu.subgroup_mma_compute
// CHECK: scf.yield
func.func @gqa(%q: tensor<2x128x4x64xf16>, %k: tensor<2x128x2x64xf16>, %v: tensor<2x128x2x64xf16>, %bm: tensor<2x4x2x2xi1>) -> (tensor<2x128x4x64xf16>, tensor<2x4x128xf32>) {
  %o, %lse = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 64 : i64, kv_block_size = 64 : i64, causal = false}
      : tensor<2x128x4x64xf16>, tensor<2x128x2x64xf16>, tensor<2x128x2x64xf16>, tensor<2x4x2x2xi1> -> tensor<2x128x4x64xf16>, tensor<2x4x128xf32>
  return %o, %lse : tensor<2x128x4x64xf16>, tensor<2x4x128xf32>
}

// -----

// Mask blocks of 8 rows hold no 16-row tile: the portable kernel, also on
// a cooperative-matrix device.
// CHECK-LABEL: func.func private @small_blocks_dispatch_0(
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK: return
func.func @small_blocks(%q: tensor<1x64x2x32xf16>, %k: tensor<1x64x2x32xf16>, %v: tensor<1x64x2x32xf16>, %bm: tensor<1x2x8x8xi1>) -> tensor<1x64x2x32xf16> {
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 8 : i64, kv_block_size = 8 : i64, causal = false}
      : tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x64x2x32xf16>, tensor<1x2x8x8xi1> -> tensor<1x64x2x32xf16>
  return %o : tensor<1x64x2x32xf16>
}

// -----

// d64 with 128 x 128 mask blocks: 128 x 64 blocks of 8 subgroups, two K/V
// buffers. The rows of the first two blocks (list positions 0 and 1) are
// both loaded before Q's barriers (the second's, loaded after them, held
// up the first iteration), each block clamped to the last one, 7. 38400 bytes of stages, 64 of the list's and 64
// of the job order's (8 jobs).
// CHECK-LABEL: func.func private @two_buffers_dispatch_0(
// CHECK-SAME: ejk.shared_memory_bytes = 38528 : i64
// CHECK: %[[B0:.*]] = arith.select %{{.*}}, %{{.*}}, %c8{{.*}} : index
// CHECK: %[[B1:.*]] = arith.select %{{.*}}, %{{.*}}, %c8{{.*}} : index
// CHECK: %[[C0:.*]] = arith.minsi %[[B0]], %c7{{.*}} : index
// CHECK-NEXT: arith.constant 64
// CHECK-NEXT: arith.muli %[[C0]], %c64{{.*}} : index
// CHECK-NOT: gpu.barrier
// CHECK: %[[C1:.*]] = arith.minsi %[[B1]], %c7{{.*}} : index
// CHECK-NEXT: arith.constant 64
// CHECK-NEXT: arith.muli %[[C1]], %c64{{.*}} : index
// CHECK: gpu.barrier
// CHECK: scf.for
func.func @two_buffers(%q: tensor<1x512x2x64xf16>, %k: tensor<1x512x2x64xf16>, %v: tensor<1x512x2x64xf16>, %bm: tensor<1x2x4x4xi1>) -> tensor<1x512x2x64xf16> {
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 128 : i64, causal = false}
      : tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>, tensor<1x2x4x4xi1> -> tensor<1x512x2x64xf16>
  return %o : tensor<1x512x2x64xf16>
}

// -----

// Causal d64 with 128 x 128 mask blocks: 128 x 128 blocks of 8 subgroups
// (one K/V buffer), the one place where block-sparse's heuristic leaves
// dense flash attention's rule (128 x 64 x 8; 91.4 us against 103.6 on an
// H200); and the listed blocks take dense attention's whole-block path: a
// key block (this list position's block times 128) wholly below seq_k and
// on or before the tile's first diagonal passes its raw scores on, the
// others are masked per element.
// CHECK-LABEL: func.func private @causal_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 38432 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[CUR:arg[0-9]+]] = %{{[0-9]+}}, %{{arg[0-9]+}} = %{{[0-9]+}}) -> (!gpu.mma_matrix
// CHECK: %[[START:.*]] = arith.muli %[[CUR]], %c128{{.*}} : index
// CHECK: %[[S0:.*]] = gpu.subgroup_mma_extract_thread_local
// CHECK: %[[END:.*]] = arith.addi %[[START]], %c128{{.*}} : index
// CHECK: %[[BELOW:.*]] = arith.cmpi sle, %[[END]], %c512{{.*}} : index
// CHECK: %[[DIAG:.*]] = arith.cmpi sle, %{{.*}}, %{{.*}} : index
// CHECK: %[[WHOLE:.*]] = arith.andi %[[BELOW]], %[[DIAG]] : i1
// CHECK: scf.if %[[WHOLE]] -> (f32,
// CHECK-NEXT: scf.yield %[[S0]],
// CHECK-NEXT: } else {
// CHECK: arith.select %{{.*}}, %[[S0]], %{{.*}} : f32
func.func @causal(%q: tensor<1x512x2x64xf16>, %k: tensor<1x512x2x64xf16>, %v: tensor<1x512x2x64xf16>, %bm: tensor<1x2x4x4xi1>) -> tensor<1x512x2x64xf16> {
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 128 : i64, causal = true}
      : tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>, tensor<1x2x4x4xi1> -> tensor<1x512x2x64xf16>
  return %o : tensor<1x512x2x64xf16>
}

// -----

// 262144 keys in blocks of 64: a list of 4096 entries (16 KiB) does not fit
// beside the 36352 bytes of stages in 48 KiB, so a list dispatch (one
// thread per list) builds it first and the kernel reads it.
// CHECK-LABEL: func.func private @long_keys_dispatch_0_live_blocks(
// CHECK-SAME: ejk.workgroup_size = array<i64: 1, 1, 1>
// CHECK-LABEL: func.func private @long_keys_dispatch_0(
// CHECK-SAME: %[[LIST:arg[0-9]+]]: memref<1x1x1x4097xi32>)
// CHECK-SAME: ejk.shared_memory_bytes = 36352 : i64
// CHECK: memref.load %[[LIST]]
// CHECK: scf.for
// CHECK: ejk.dispatch @long_keys_dispatch_0_live_blocks
// CHECK: ejk.dispatch @long_keys_dispatch_0(
func.func @long_keys(%q: tensor<1x128x1x128xf16>, %k: tensor<1x262144x1x128xf16>, %v: tensor<1x262144x1x128xf16>, %bm: tensor<1x1x1x2048xi1>) -> tensor<1x128x1x128xf16> {
  %o = ejk.block_sparse_attention %q, %k, %v, %bm {q_block_size = 128 : i64, kv_block_size = 128 : i64, causal = false}
      : tensor<1x128x1x128xf16>, tensor<1x262144x1x128xf16>, tensor<1x262144x1x128xf16>, tensor<1x1x1x2048xi1> -> tensor<1x128x1x128xf16>
  return %o : tensor<1x128x1x128xf16>
}
