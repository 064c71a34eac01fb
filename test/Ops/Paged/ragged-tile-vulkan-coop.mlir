// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// Tiling of the ragged ops' prefill rows on cooperative matrices
// (lib/Ops/Paged/Vulkan/PrefillKernel.cpp, docs/ops/paged-vulkan.md,
// "Prefill rows"). The heuristic for head_dim 64, G = 4: blocks of 16
// tokens x 4 heads = 64 rows (4 subgroups of 32 lanes, one 16-row tile
// each), 32 keys a step; workgroup memory: the Q/K/V stage max(64, 2 x 32)
// x 72 f16 + scores 64 x 36 f32 + P 64 x 40 f16 + row factors 64 x 20 f32
// = 28672 bytes.

// A ragged batch: the decode dispatch, then the prefill dispatch. Its grid:
// ceil(40 / 16) + min(5 sequences, 40 / 2) = 8 blocks x 2 KV heads.
// CHECK-LABEL: func.func private @mixed_dispatch_0_prefill
// CHECK-SAME: ejk.grid = array<i64: 8, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 28672
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// The views and stages are top-level.
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : memref<40x8x64xf16> to memref<2560xvector<4xi32>>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : memref<40x16x2x64xf16> to memref<10240xvector<4xi32>>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : memref<40x16x2x64xf16> to memref<10240xvector<4xi32>>
// CHECK: memref.alloc() : memref<576xvector<4xi32>, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<2304xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<2560xf16, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<1280xf32, #gpu.address_space<workgroup>>
// The scan of cu_q_lens finds the block (sequences of two or more queries
// hold ceil(q_len / 16) blocks); a workgroup past the last one does nothing.
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (index, index, index, index, index, index)
// CHECK: memref.load %{{.*}} : memref<6xi32>
// CHECK: arith.cmpi sge, %{{.*}}, %c2 : index
// CHECK: scf.if
// Q is staged once and kept as 4 A matrices (head_dim 64 / 16).
// CHECK: memref.load %{{.*}} : memref<2560xvector<4xi32>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 9 : index} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.barrier
// The key loop: steps of 32 carrying 4 O tiles, (m, l) and the next
// step's K and V words (16-byte loads from the page of each key).
// CHECK: scf.for %{{.*}} step %c32 iter_args
// CHECK-SAME: !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<5x8xi32>
// CHECK: memref.load %{{.*}} : memref<10240xvector<4xi32>>
// CHECK: memref.load %{{.*}} : memref<10240xvector<4xi32>>
// S = Q K^T: K^T tiles from the stage, 2 key tiles x 4 products.
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 9 : index, transpose}
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}} {leadDimension = 36 : index}
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 9 : index, transpose}
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}} {leadDimension = 36 : index}
// CHECK: gpu.barrier
// The softmax: two lanes a row, causal by position (key <= position).
// CHECK: arith.cmpi sle
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: math.exp
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.barrier
// O = O * alpha + P V.
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 20 : index} : memref<1280xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 40 : index} : memref<2560xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_elementwise  mulf
// CHECK: gpu.subgroup_mma_load_matrix %{{.*}} {leadDimension = 9 : index} : memref<576xvector<4xi32>, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: scf.yield
// The output, through the score stage.
// CHECK: gpu.subgroup_mma_store_matrix
// CHECK: memref.store %{{.*}} : memref<40x8x64xf16>

// The decode dispatch skips the rows of sequences with several queries.
// CHECK-LABEL: func.func private @mixed_dispatch_0(
// CHECK: scf.for
// CHECK: arith.cmpi sge, %{{.*}}, %c2 : index
// CHECK: %[[SKIP:.*]] = arith.andi
// CHECK: %[[DECODES:.*]] = arith.xori %[[SKIP]], %true
// CHECK: scf.if %[[DECODES]] {
// CHECK-LABEL: func.func @mixed(
// CHECK: ejk.dispatch @mixed_dispatch_0(
// CHECK-NEXT: ejk.dispatch @mixed_dispatch_0_prefill(

func.func @mixed(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %cu: tensor<6xi32>, %n: tensor<1xi32>) -> tensor<40x8x64xf16> {
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n
      : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32>, tensor<1xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}

// -----

// A prefill of 40 queries per sequence is prefill rows only: one dispatch,
// 3 blocks x 2 sequences x 2 KV heads; head-major pages; the window starts
// the key loop at the block's first position - 19.
// CHECK-LABEL: func.func private @prefill_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 6, 2, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK-NOT: scf.for {{.*}} step %c1 iter_args
// CHECK: arith.addi %{{.*}}, %c-19 : index
// CHECK: scf.for %{{.*}} step %c32 iter_args
// CHECK: memref.load %{{.*}} : memref<2x8xi32>
// CHECK: memref.store %{{.*}} : memref<2x40x8x64xf16>
// CHECK-LABEL: func.func @prefill(
// CHECK-NEXT: ejk.dispatch @prefill_dispatch_0(
// CHECK-NEXT: return

func.func @prefill(%q: tensor<2x40x8x64xf16>, %kc: tensor<16x2x16x64xf16>, %vc: tensor<16x2x16x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x8xi32>) -> tensor<2x40x8x64xf16> {
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables {kv_layout = "head_major", sliding_window = 20 : i64}
      : tensor<2x40x8x64xf16>, tensor<16x2x16x64xf16>, tensor<16x2x16x64xf16>, tensor<2xi32>, tensor<2x8xi32> -> tensor<2x40x8x64xf16>
  return %o : tensor<2x40x8x64xf16>
}

// -----

// unified_attention: ALiBi (slope x (key - context)) and the soft cap in
// the softmax, the sinks in the output factor.
// CHECK-LABEL: func.func private @unified_dispatch_0_prefill
// CHECK: scf.for %{{.*}} step %c32 iter_args
// CHECK: memref.load %{{.*}} : memref<8xf32>
// CHECK: arith.sitofp
// CHECK: math.tanh
// CHECK: arith.cmpi sle
// CHECK: scf.yield
// CHECK: memref.load %{{.*}} : memref<8xf32>
// CHECK: math.exp
// CHECK: gpu.subgroup_mma_store_matrix
// CHECK-LABEL: func.func @unified(
// CHECK: ejk.dispatch @unified_dispatch_0(
// CHECK-NEXT: ejk.dispatch @unified_dispatch_0_prefill(

func.func @unified(%q: tensor<40x8x64xf16>, %kc: tensor<40x16x2x64xf16>, %vc: tensor<40x16x2x64xf16>, %lens: tensor<5xi32>, %tables: tensor<5x8xi32>, %starts: tensor<6xi32>, %a: tensor<8xf32>, %s: tensor<8xf32>) -> tensor<40x8x64xf16> {
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts alibi(%a : tensor<8xf32>) sinks(%s : tensor<8xf32>) {logits_soft_cap = 30.0 : f32}
      : tensor<40x8x64xf16>, tensor<40x16x2x64xf16>, tensor<40x16x2x64xf16>, tensor<5xi32>, tensor<5x8xi32>, tensor<6xi32> -> tensor<40x8x64xf16>
  return %o : tensor<40x8x64xf16>
}
