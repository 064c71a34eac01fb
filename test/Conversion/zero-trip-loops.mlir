// RUN: ejk-opt %s -ejk-lower-to-spirv | FileCheck %s

// scf-to-spirv keeps the values a loop carries in a variable that only the
// loop body stores: a loop that runs zero times would yield undefined
// values (garbage on NVIDIA's driver). ejk-lower-to-spirv runs such loops
// under `lb < ub` and yields the initial values otherwise; a loop known to
// run (constant bounds, lb < ub) is left alone.

// CHECK-LABEL: spirv.func @k_dispatch_0()
// CHECK: %[[INIT:.*]] = spirv.Constant 1.500000e+00 : f32
// The guard on the run-time bounds [workgroup id, 4):
// CHECK: %[[RUNS:.*]] = spirv.SLessThan %{{.*}}, %{{.*}} : i32
// CHECK: spirv.mlir.selection {
// CHECK-NEXT: spirv.BranchConditional %[[RUNS]], ^bb1, ^bb2
// CHECK: spirv.mlir.loop {
// CHECK: spirv.mlir.merge
// The other branch stores the initial value as the result.
// CHECK: ^bb2:  // pred: ^bb0
// CHECK-NEXT: spirv.Store "Function" %{{.*}}, %[[INIT]] : f32
// The constant-bound loop [0, 4) runs unguarded.
// CHECK: spirv.mlir.loop {
// CHECK-NOT: spirv.mlir.selection
module attributes {ejk.target = {cooperative_matrix = false, kind = "vulkan", l1_bytes = 32768 : i64, l2_bytes = 1048576 : i64, max_workgroup_invocations = 1024 : i64, max_workgroup_size = array<i64: 1024, 1024, 64>, num_cores = 1 : i64, shared_memory_bytes = 32768 : i64, spirv_version = "1.3", subgroup_size = 8 : i64, vector_bits = 256 : i64, vulkan_features = ["subgroup_basic"]}} {
  func.func private @k_dispatch_0(%b: memref<2x64xf32>)
      attributes {ejk.dispatch, ejk.grid = array<i64: 2, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>} {
    %wg = ejk.workgroup_id 0
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %init = arith.constant 1.5 : f32
    %sum = scf.for %i = %wg to %c4 step %c1 iter_args(%acc = %init) -> (f32) {
      %n = arith.addf %acc, %acc : f32
      scf.yield %n : f32
    }
    %known = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %sum) -> (f32) {
      %n = arith.addf %acc, %init : f32
      scf.yield %n : f32
    }
    memref.store %known, %b[%wg, %t] : memref<2x64xf32>
    return
  }
  func.func @k(%b: memref<2x64xf32>) attributes {ejk.entry, ejk.num_inputs = 0 : i64} {
    ejk.dispatch @k_dispatch_0(%b) : memref<2x64xf32>
    return
  }
}
