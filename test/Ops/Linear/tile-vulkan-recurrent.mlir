// RUN: ejk-opt %s -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s
// ejk.recurrent on the Vulkan gla kernel (lib/Ops/Linear/Vulkan/Kernel.cpp):
// a key gate gk and a value gate gv. Chunks of 8 steps, 16 columns of 16
// key lanes: 256 threads; shared memory holds q, k, exp(gk) ([8, 16] each),
// v, o and exp(gv) ([8, 16] each): 6 x 128 floats.
// CHECK-LABEL: func.func private @gv_gk_dispatch_0
// CHECK-SAME: ejk.shared_memory_bytes = 3072 : i64, ejk.workgroup_size = array<i64: 256, 1, 1>
// CHECK-COUNT-6: memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
// Stage: exp(gk) (%arg3) beside the keys, exp(gv) (%arg4) beside the values.
// CHECK: %[[GK:.*]] = memref.load %arg3[{{.*}}] : memref<1x40x2x16xf32>
// CHECK: math.exp %[[GK]] : f32
// CHECK: %[[GV:.*]] = memref.load %arg4[{{.*}}] : memref<1x40x2x16xf32>
// CHECK: math.exp %[[GV]] : f32
// CHECK: gpu.barrier
// Scan: the column's value decay times each entry's key decay, then
// S = decay * S + k v.
// CHECK: memref.load %{{.*}}[%[[VI:.*]]] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[VDECAY:.*]] = memref.load %{{.*}}[%[[VI]]] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: arith.mulf
// CHECK-NEXT: %[[KDECAY:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: %[[DECAY:.*]] = arith.mulf %[[KDECAY]], %[[VDECAY]] : f32
// CHECK: math.fma %[[DECAY]], %{{.*}}, %{{.*}} : f32
func.func @gv_gk(%q: tensor<1x40x2x16xf32>, %k: tensor<1x40x2x16xf32>, %v: tensor<1x40x2x16xf32>, %gk: tensor<1x40x2x16xf32>, %gv: tensor<1x40x2x16xf32>) -> tensor<1x40x2x16xf32> {
  %o = ejk.recurrent %q, %k, %v gk(%gk : tensor<1x40x2x16xf32>) gv(%gv : tensor<1x40x2x16xf32>) {config = #ejk.config<block_v = 16, chunk_size = 8>} : tensor<1x40x2x16xf32>, tensor<1x40x2x16xf32>, tensor<1x40x2x16xf32> -> tensor<1x40x2x16xf32>
  return %o : tensor<1x40x2x16xf32>
}
