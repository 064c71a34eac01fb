// RUN: ejk-opt %s -split-input-file -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// ejk.recurrent and ejk.lightning_attention run on the gla kernel
// (lib/Ops/Linear/Cpu/Kernel.cpp); these check what they add to it.

// recurrent with only a value gate: no key gate scratch; the cumulative
// value gates (chunk + 1 rows), exp(D_last), then the strongest value decay
// picks the outputs: factored (A (v exp(-D)), plain rank-1 blocks) within
// e^-60, the exact ratios exp(min(D_t - D_s, 0)) beyond.
// CHECK-LABEL: func.func private @gv_only_dispatch_0
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 1>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<17x16xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// The value gates of the chunk, read from gv (%arg3), summed per step.
// CHECK: vector.load %arg3[{{.*}}] : memref<1x40x2x16xf32>, vector<8xf32>
// CHECK: scf.for
// CHECK: math.exp
// CHECK: arith.minnumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: %[[MIN:.*]] = vector.reduction <minnumf>, %{{.*}} : vector<8xf32> into f32
// CHECK: %[[FACTOR:.*]] = arith.cmpf oge, %[[MIN]], %{{.*}} : f32
// CHECK: scf.if %[[FACTOR]] {
// Factored: the rank-1 blocks have no exp.
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: math.exp
// CHECK: scf.yield
// CHECK: %[[EXACT:.*]] = arith.xori %[[FACTOR]], %true : i1
// CHECK: scf.if %[[EXACT]] {
// Exact: an exp of a ratio clamped at 0 per pair of steps and vector.
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.subf
// CHECK: arith.minnumf %{{.*}}, %cst{{.*}} : vector<8xf32>
// CHECK: math.exp
// CHECK: scf.yield
func.func @gv_only(%q: tensor<1x40x2x16xf32>, %k: tensor<1x40x2x16xf32>, %v: tensor<1x40x2x16xf32>, %gv: tensor<1x40x2x16xf32>) -> tensor<1x40x2x16xf32> {
  %o = ejk.recurrent %q, %k, %v gv(%gv : tensor<1x40x2x16xf32>) {config = #ejk.config<block_v = 16, chunk_size = 16>} : tensor<1x40x2x16xf32>, tensor<1x40x2x16xf32>, tensor<1x40x2x16xf32> -> tensor<1x40x2x16xf32>
  return %o : tensor<1x40x2x16xf32>
}

// -----

// lightning's layer form: no slopes buffer; the head's log decay is
// -(8 / 4) (1 - 1 / 4) h = -1.5 h, from the workgroup's head index.
// Four buffers: q, k, v and the output; no slopes.
// CHECK-LABEL: func.func private @layer_dispatch_0(%arg0: memref<1x40x4x16xf32>, %arg1: memref<1x40x4x16xf32>, %arg2: memref<1x40x4x16xf32>, %arg3: memref<1x40x4x16xf32>) attributes
// CHECK-DAG: %[[STEP:.*]] = arith.constant -1.500000e+00 : f32
// CHECK: %[[HEAD:.*]] = ejk.workgroup_id 1
// CHECK: %[[H32:.*]] = arith.index_cast %[[HEAD]] : index to i32
// CHECK: %[[HF:.*]] = arith.sitofp %[[H32]] : i32 to f32
// CHECK: arith.mulf %[[HF]], %[[STEP]] : f32
func.func @layer(%q: tensor<1x40x4x16xf32>, %v: tensor<1x40x4x16xf32>) -> tensor<1x40x4x16xf32> {
  %o = ejk.lightning_attention %q, %q, %v {layer_idx = 1 : i64, num_layers = 4 : i64, config = #ejk.config<block_v = 16, chunk_size = 16>} : tensor<1x40x4x16xf32>, tensor<1x40x4x16xf32>, tensor<1x40x4x16xf32> -> tensor<1x40x4x16xf32>
  return %o : tensor<1x40x4x16xf32>
}

// -----

// lightning's slopes form: the log decay is the negated slope of the head.
// CHECK-LABEL: func.func private @slopes_dispatch_0
// CHECK: %[[HEAD:.*]] = ejk.workgroup_id 1
// CHECK: %[[SLOPE:.*]] = memref.load %arg3[%[[HEAD]]] : memref<4xf32>
// CHECK: arith.negf %[[SLOPE]] : f32
func.func @slopes(%q: tensor<1x40x4x16xf32>, %v: tensor<1x40x4x16xf32>, %s: tensor<4xf32>) -> tensor<1x40x4x16xf32> {
  %o = ejk.lightning_attention %q, %q, %v slopes(%s : tensor<4xf32>) {config = #ejk.config<block_v = 16, chunk_size = 16>} : tensor<1x40x4x16xf32>, tensor<1x40x4x16xf32>, tensor<1x40x4x16xf32> -> tensor<1x40x4x16xf32>
  return %o : tensor<1x40x4x16xf32>
}

// -----

// A g_gamma per sequence is read at (sequence, head).
// CHECK-LABEL: func.func private @gamma_per_batch_dispatch_0
// CHECK: %[[HEAD:.*]] = ejk.workgroup_id 1
// CHECK: %[[SEQ:.*]] = ejk.workgroup_id 2
// CHECK: memref.load %arg3[%[[SEQ]], %[[HEAD]]] : memref<3x2xf32>
func.func @gamma_per_batch(%q: tensor<3x40x2x16xf32>, %v: tensor<3x40x2x16xf32>, %gg: tensor<3x2xf32>) -> tensor<3x40x2x16xf32> {
  %o = ejk.recurrent %q, %q, %v g_gamma(%gg : tensor<3x2xf32>) {config = #ejk.config<block_v = 16, chunk_size = 16>} : tensor<3x40x2x16xf32>, tensor<3x40x2x16xf32>, tensor<3x40x2x16xf32> -> tensor<3x40x2x16xf32>
  return %o : tensor<3x40x2x16xf32>
}
