// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,int16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// Tiling of ejk.paged_attention for Vulkan (lib/Ops/Paged/Vulkan,
// docs/ops/paged-vulkan.md): flash-decoding, one workgroup per (split, KV
// head x head chunk, sequence) reading each token once for all the query
// heads of its KV head.

// The heuristic: head_dim 128 gives teams of 16 lanes (8 elements each),
// 8 subgroups of 32 = 256 threads = 16 teams, two tokens a team and step =
// block_k 32; the 4 (KV head, sequence) pairs take 256 / 4 -> 32 splits,
// cut to the 96 / 32 = 3 steps of the longest sequence. Grid: 3 splits x
// 2 KV heads x 2 sequences. The 8 subgroups merge 4 heads through
// workgroup memory: 8 * 4 * (128 + 2) * 4 = 16640 bytes.

// The combine: one workgroup per (query head, sequence), one thread per
// element of the head dim; the splits' log-sums give their weights.
// CHECK-LABEL: func.func private @heuristic_dispatch_0_combine
// CHECK-SAME: memref<2x8x3x128xf32>, %{{.*}}: memref<2x8x3xf32>
// CHECK-SAME: ejk.grid = array<i64: 8, 2, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 128, 1, 1>
// CHECK: scf.for {{.*}} to %c3 {{.*}} -> (f32)
// CHECK: arith.maxnumf
// CHECK: scf.for {{.*}} to %c3 {{.*}} -> (f32)
// CHECK: math.exp
// CHECK: scf.for {{.*}} to %c3 {{.*}} -> (f32)
// CHECK: memref.load %{{.*}} : memref<2x8x3x128xf32>
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}} : memref<2x8x128xf16>
// CHECK: math.log
// CHECK: memref.store %{{.*}} : memref<2x8xf32>

// CHECK-LABEL: func.func private @heuristic_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 2>
// CHECK-SAME: ejk.shared_memory_bytes = 16640 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 256, 1, 1>
// The length is clamped to the table's 96 tokens.
// CHECK: memref.load %{{.*}} : memref<2xi32>
// CHECK: arith.minsi %{{.*}}, %c96
// The queries, pre-scaled, in registers: 4 heads x 8 elements.
// CHECK-COUNT-32: memref.load %{{.*}} : memref<2x8x128xf16>
// A lane's 8 elements are contiguous and one 16-byte load: the caches
// are viewed as vector<4xi32> words (the view's ops are top-level, for
// ejk-prepare-vulkan-kernels).
// CHECK: %[[KW:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<24x2x16x128xf16> to memref<12288xvector<4xi32>>
// CHECK: %[[VW:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<24x2x16x128xf16> to memref<12288xvector<4xi32>>
// The token loop runs under a guard, carrying (max, sum) of 4 heads and
// 4 x 8 accumulators; a step reads two tokens per team, each from its
// page (clamped into the cache): its row of K and of V, one vector load
// each, split into f16 by two vector<2xi32> -> vector<4xf16> bitcasts.
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: scf.for {{.*}} step %c32 iter_args
// CHECK-NOT: memref<24x2x16x128xf16>
// CHECK: memref.load %{{.*}} : memref<2x6xi32>
// CHECK: arith.minsi %{{.*}}, %c23
// CHECK: arith.maxsi %{{.*}}, %c0
// CHECK: memref.load %[[KW]][%{{.*}}] : memref<12288xvector<4xi32>>
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [2], strides = [1]} : vector<4xi32> to vector<2xi32>
// CHECK: vector.bitcast %{{.*}} : vector<2xi32> to vector<4xf16>
// CHECK-COUNT-4: vector.extract %{{.*}} : f16 from vector<4xf16>
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [2], sizes = [2], strides = [1]} : vector<4xi32> to vector<2xi32>
// CHECK: vector.bitcast %{{.*}} : vector<2xi32> to vector<4xf16>
// CHECK-COUNT-4: vector.extract %{{.*}} : f16 from vector<4xf16>
// CHECK: memref.load %[[VW]][%{{.*}}] : memref<12288xvector<4xi32>>
// CHECK-NOT: memref<24x2x16x128xf16>
// CHECK: memref.load %{{.*}} : memref<2x6xi32>
// CHECK: memref.load %[[KW]][%{{.*}}] : memref<12288xvector<4xi32>>
// CHECK: memref.load %[[VW]][%{{.*}}] : memref<12288xvector<4xi32>>
// CHECK-NOT: memref<24x2x16x128xf16>
// Per head and token: a dot of 8 elements, summed over the team of 16
// lanes; then one exponential per token and one for the rescale.
// CHECK-COUNT-7: math.fma
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32
// CHECK-COUNT-7: math.fma
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32
// CHECK-COUNT-3: math.exp
// CHECK-NOT: math.exp
// CHECK-COUNT-16: math.fma
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// The teams of a subgroup merge with shuffles, the subgroups through
// workgroup memory, then every thread writes elements of the partial
// output ([B, H, splits, D]) and the lane of element 0 the log-sum.
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32
// CHECK: memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} to %c512 step %c256
// CHECK: memref.store %{{.*}} : memref<2x8x3x128xf32>
// CHECK: memref.store %{{.*}} : memref<2x8x3xf32>

// Every caller allocates the temporaries and runs both dispatches.
// CHECK-LABEL: func.func @heuristic
// CHECK: %[[O:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x3x128xf32>
// CHECK: %[[LSE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x3xf32>
// CHECK: ejk.dispatch @heuristic_dispatch_0({{.*}}, %[[O]], %[[LSE]])
// CHECK: ejk.dispatch @heuristic_dispatch_0_combine(%[[O]], %[[LSE]], %arg5, %arg6)
func.func @heuristic(%q: tensor<2x8x128xf16>, %kc: tensor<24x2x16x128xf16>, %vc: tensor<24x2x16x128xf16>, %lens: tensor<2xi32>, %tables: tensor<2x6xi32>) -> (tensor<2x8x128xf16>, tensor<2x8xf32>) {
  %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables
      : tensor<2x8x128xf16>, tensor<24x2x16x128xf16>, tensor<24x2x16x128xf16>, tensor<2xi32>, tensor<2x6xi32> -> tensor<2x8x128xf16>, tensor<2x8xf32>
  return %o, %lse : tensor<2x8x128xf16>, tensor<2x8xf32>
}

// -----

// block_k 16 over one subgroup: 4 teams of 8 lanes, 4 tokens a team and
// step (token t0 + 8 u + team). Token-major pages are indexed [page, slot,
// KV head, d]; the window starts the range at length - 20; the soft cap
// applies to each score; with 4 tokens a step the max is taken over the
// step and each head takes 5 exponentials (4 tokens and the rescale).
// CHECK-LABEL: func.func private @splits_dispatch_0_combine
// CHECK-SAME: ejk.grid = array<i64: 4, 3, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
// CHECK-LABEL: func.func private @splits_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 3>
// CHECK-SAME: ejk.shared_memory_bytes = 0 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 32, 1, 1>
// CHECK: arith.subi %{{.*}}, %c20
// A lane's 8 bf16 elements are one 16-byte word of the token-major row
// ((page * 16 + slot) * 2 + KV head) * 8 + lane, each bf16 moved into the
// high half of an f32.
// CHECK: %[[KW:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<32x16x2x64xbf16> to memref<8192xvector<4xi32>>
// CHECK: scf.for {{.*}} step %c16 iter_args
// CHECK: %[[PAGE:.*]] = arith.maxsi %{{.*}}, %c0
// CHECK: %[[PS:.*]] = arith.muli %[[PAGE]], %c16
// CHECK: %[[ROW:.*]] = arith.addi %[[PS]], %{{.*}}
// CHECK: arith.muli %[[ROW]], %c2
// CHECK: %[[W:.*]] = memref.load %[[KW]][%{{.*}}] : memref<8192xvector<4xi32>>
// CHECK: %[[W0:.*]] = vector.extract %[[W]][0] : i32 from vector<4xi32>
// CHECK: %[[LO:.*]] = arith.shli %[[W0]], %c16_i32
// CHECK: %[[HI:.*]] = arith.andi %[[W0]], %c-65536_i32
// CHECK: arith.bitcast %[[LO]] : i32 to f32
// CHECK: arith.bitcast %[[HI]] : i32 to f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: math.tanh
// CHECK-COUNT-5: math.exp
// CHECK: scf.yield
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<3x4x4x64xf32>
func.func @splits(%q: tensor<3x4x64xf32>, %kc: tensor<32x16x2x64xbf16>, %vc: tensor<32x16x2x64xbf16>, %lens: tensor<3xi32>, %tables: tensor<3x8xi32>) -> (tensor<3x4x64xf32>, tensor<3x4xf32>) {
  %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables {kv_layout = "token_major", sliding_window = 20 : i64, logits_soft_cap = 5.0 : f32, config = #ejk.config<block_k = 16, num_splits = 4, num_subgroups = 1>}
      : tensor<3x4x64xf32>, tensor<32x16x2x64xbf16>, tensor<32x16x2x64xbf16>, tensor<3xi32>, tensor<3x8xi32> -> tensor<3x4x64xf32>, tensor<3x4xf32>
  return %o, %lse : tensor<3x4x64xf32>, tensor<3x4xf32>
}

// -----

// 11 query heads per KV head: two chunks of 6 (at most 8 heads, 64
// elements of state a lane), the grid's y = 1 KV head x 2 chunks; the
// twelfth head of the second chunk computes on the eleventh and writes
// nothing. One split writes the output directly.
// CHECK-LABEL: func.func private @uneven_group_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 3168 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
// CHECK: %[[Y:.*]] = ejk.workgroup_id 1
// CHECK: arith.divui %[[Y]], %c2
// CHECK: arith.remui %[[Y]], %c2
// CHECK: arith.minsi %{{.*}}, %c10
// CHECK: scf.for {{.*}} step %c8 iter_args
// CHECK: gpu.barrier
// CHECK: arith.cmpi slt, %{{.*}}, %c11
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<1x11x64xf32>
// CHECK-NOT: ejk.dispatch @uneven_group_dispatch_0_combine
func.func @uneven_group(%q: tensor<1x11x64xf32>, %kc: tensor<16x1x16x64xf32>, %vc: tensor<16x1x16x64xf32>, %lens: tensor<1xi32>, %tables: tensor<1x4xi32>) -> tensor<1x11x64xf32> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 8, num_subgroups = 2>}
      : tensor<1x11x64xf32>, tensor<16x1x16x64xf32>, tensor<16x1x16x64xf32>, tensor<1xi32>, tensor<1x4xi32> -> tensor<1x11x64xf32>
  return %o : tensor<1x11x64xf32>
}

// -----

// head_dim 80: teams of 8 lanes leave 10 f16 elements to a lane, not whole
// 16-byte vectors: no view, scalar loads of the interleaved elements
// lane + 8 j (coalesced over the team).
// CHECK-LABEL: func.func private @scalar_loads_dispatch_0(
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK-NOT: vector.
// CHECK: scf.for
// CHECK-NOT: vector.
// CHECK-COUNT-10: memref.load %{{.*}} : memref<8x1x16x80xf16>
// CHECK-NOT: vector.
// CHECK-COUNT-10: memref.load %{{.*}} : memref<8x1x16x80xf16>
// CHECK-NOT: vector.
// CHECK: scf.yield
func.func @scalar_loads(%q: tensor<1x4x80xf16>, %kc: tensor<8x1x16x80xf16>, %vc: tensor<8x1x16x80xf16>, %lens: tensor<1xi32>, %tables: tensor<1x8xi32>) -> tensor<1x4x80xf16> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables {config = #ejk.config<block_k = 4, num_subgroups = 1>}
      : tensor<1x4x80xf16>, tensor<8x1x16x80xf16>, tensor<8x1x16x80xf16>, tensor<1xi32>, tensor<1x8xi32> -> tensor<1x4x80xf16>
  return %o : tensor<1x4x80xf16>
}
