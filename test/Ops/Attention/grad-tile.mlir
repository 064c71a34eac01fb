// RUN: ejk-opt %s -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// flash_attention_grad on the CPU: GQA 8:2, f16, causal; the dK/dV pass
// takes block_q = 32 x block_k = 64, the dQ pass dq_block_q = 16 x
// dq_block_k = 32 from the config.

// D = rowsum(dO * O), one workgroup per head and batch; it also writes the
// rows the dK/dV pass streams, dO and scale * Q in f32 per head, over
// seq_q padded to block_q (100 -> 128), zero past seq_q.
// CHECK-LABEL: func.func private @grad_dispatch_0_delta
// CHECK-SAME: (%{{.*}}: memref<2x100x8x64xf16>, %{{.*}}: memref<2x100x8x64xf16>, %{{.*}}: memref<2x100x8x64xf16>, %{{.*}}: memref<2x8x100xf32>, %[[QR:.*]]: memref<2x8x128x64xf32>, %[[DOR:.*]]: memref<2x8x128x64xf32>)
// CHECK-SAME: ejk.grid = array<i64: 1, 8, 2>
// CHECK: scf.for %{{.*}} = %c0 to %c100 step %c1 {
// CHECK: vector.fma
// CHECK: vector.store %{{.*}}, %[[DOR]]
// CHECK: vector.reduction <add>
// CHECK: arith.mulf
// CHECK: vector.store %{{.*}}, %[[QR]]
// CHECK: scf.for %{{.*}} = %c100 to %c128 step %c1 {
// CHECK: vector.store %{{.*}}, %[[QR]]
// CHECK: vector.store %{{.*}}, %[[DOR]]

// The pack: K^T and V^T in pack blocks of gcd(64, 32) = 32 keys over
// seq_k padded to lcm(64, 32) (130 -> 192: 6 blocks), K rows (and V rows);
// the grid covers 192 / 64 key chunks x 2 kv heads x 2 batches.
// CHECK-LABEL: func.func private @grad_dispatch_0_pack
// CHECK-SAME: (%{{.*}}: memref<2x130x2x64xf16>, %{{.*}}: memref<2x130x2x64xf16>, %{{.*}}: memref<2x2x6x64x32xf32>, %{{.*}}: memref<2x2x192x64xf32>, %{{.*}}: memref<2x2x6x64x32xf32>, %{{.*}}: memref<2x2x192x64xf32>)
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 2>

// The dQ pass: grid [ceil(100 / 16) query blocks, 8 heads, 2 batches]; it
// records half a forward of FLOPs (the dQ matmul; 26624000 is the causal
// forward's).
// CHECK-LABEL: func.func private @grad_dispatch_0_dq
// CHECK-SAME: ejk.flops = 13312000 : i64
// CHECK-SAME: ejk.grid = array<i64: 7, 8, 2>
// Scratch: Qs, dO, S, dP, lse, D, and the dQ accumulator.
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
// Q widened from f16.
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// The key-block loop, bounded by the causal diagonal.
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// S = Qs K^T and dP = dO V^T: 4 rows x 2 vectors of 8 keys over head_dim.
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-COUNT-8: vector.fma
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// CHECK-COUNT-8: vector.fma
// P = exp(t - lse), dS = P (dP - D).
// CHECK: math.exp {{.*}} : vector<8xf32>
// dQ += dS K over the 32 keys of the block.
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args
// CHECK-COUNT-8: vector.fma
// dQ narrowed to f16.
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>

// The dK/dV pass: grid [ceil(130 / 64) key blocks, 2 kv heads, 2 batches];
// 2.5 forwards of FLOPs less the dQ pass's.
// It reads the rows packed by delta (no staging copies: the only tiles are
// S, dP, lse and D, then the dK and dV accumulators, 64 keys x 64).
// CHECK-LABEL: func.func private @grad_dispatch_0(
// CHECK-SAME: %[[PQ:[a-z0-9]+]]: memref<2x8x128x64xf32>, %[[PDO:[a-z0-9]+]]: memref<2x8x128x64xf32>)
// CHECK-SAME: ejk.flops = 53248000 : i64
// CHECK-SAME: ejk.grid = array<i64: 3, 2, 2>
// CHECK-NOT: memref<32x64xf16>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<32xf32>
// CHECK-NOT: memref.alloca() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
// The 4 query heads of the group, then the query blocks that may see the
// keys; S = Qs K^T broadcasts Qs from the packed rows.
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {
// CHECK: memref.load %[[PQ]]
// CHECK: memref.load %[[PDO]]
// CHECK: math.exp {{.*}} : vector<8xf32>
// dV += Pd^T dO and dK += dS^T Qs: 4 keys x 2 vectors over the 32 queries.
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args
// CHECK: vector.load %[[PDO]]
// CHECK-COUNT-8: vector.fma
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args
// CHECK: vector.load %[[PQ]]
// CHECK-COUNT-8: vector.fma
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>

// Every caller allocates D, the packed K/V and the packed rows, then runs
// delta, pack, dK/dV and dQ in that order.
// CHECK-LABEL: func.func @grad
// CHECK: %[[D:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x100xf32>
// CHECK: %[[KT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x6x64x32xf32>
// CHECK: %[[VR:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x192x64xf32>
// CHECK: %[[VT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x6x64x32xf32>
// CHECK: %[[KR:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x192x64xf32>
// CHECK: %[[QROWS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x128x64xf32>
// CHECK: %[[DOROWS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x128x64xf32>
// CHECK: ejk.dispatch @grad_dispatch_0_delta(%arg0, %arg3, %arg4, %[[D]], %[[QROWS]], %[[DOROWS]])
// CHECK: ejk.dispatch @grad_dispatch_0_pack(%arg1, %arg2, %[[KT]], %[[VR]], %[[VT]], %[[KR]])
// CHECK: ejk.dispatch @grad_dispatch_0(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %[[D]], %[[KT]], %[[VT]], %[[QROWS]], %[[DOROWS]])
// CHECK: ejk.dispatch @grad_dispatch_0_dq(%arg0, %arg4, %arg5, %[[D]], %[[KT]], %[[VT]], %[[KR]], %arg6)
// CHECK: memref.dealloc %[[D]]

func.func @grad(%q: tensor<2x100x8x64xf16>, %k: tensor<2x130x2x64xf16>, %v: tensor<2x130x2x64xf16>, %o: tensor<2x100x8x64xf16>, %do: tensor<2x100x8x64xf16>, %lse: tensor<2x8x100xf32>) -> (tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {causal, config = #ejk.config<block_q = 32, block_k = 64, dq_block_q = 16, dq_block_k = 32>}
      : tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16>, tensor<2x100x8x64xf16>, tensor<2x100x8x64xf16>, tensor<2x8x100xf32>
      -> tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16>
  return %dq, %dk, %dv : tensor<2x100x8x64xf16>, tensor<2x130x2x64xf16>, tensor<2x130x2x64xf16>
}
