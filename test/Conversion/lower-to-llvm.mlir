// RUN: ejk-opt %s -ejk-cpu-pipeline=vector-bits=512 | FileCheck %s
// RUN: ejk-opt %s -ejk-select-configs=vector-bits=512 -ejk-form-dispatches -ejk-tile-dispatches -ejk-prepare-cpu-kernels | FileCheck %s --check-prefix=PREPARE

// After ejk-prepare-cpu-kernels: no entry, workgroup ids are arguments.
// PREPARE-NOT: ejk.entry
// PREPARE-LABEL: func.func private @attn_dispatch_0_pack(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<1x40x2x32xf32>
// PREPARE-NOT: ejk.workgroup_id
// PREPARE-LABEL: func.func private @attn_dispatch_0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<1x33x4x32xf32>
// PREPARE-NOT: ejk.workgroup_id

// After the whole pipeline: LLVM dialect only, math expanded (no libm
// calls), and each dispatch is `void name(i64, i64, i64, ptr bindings)`
// that loads its buffer pointers and calls the internal body.
// CHECK-NOT: func.func
// CHECK-NOT: math.
// CHECK-NOT: llvm.call @expf
// CHECK-LABEL: llvm.func internal @attn_dispatch_0_pack.body(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-LABEL: llvm.func @attn_dispatch_0_pack(
// CHECK-SAME: %[[X:.*]]: i64, %[[Y:.*]]: i64, %[[Z:.*]]: i64, %[[B:.*]]: !llvm.ptr)
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[B]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[S3:.*]] = llvm.getelementptr %[[B]][3]
// CHECK: %[[P3:.*]] = llvm.load %[[S3]]
// CHECK: llvm.call @attn_dispatch_0_pack.body(%[[X]], %[[Y]], %[[Z]], %[[P0]], %{{.*}}, %{{.*}}, %[[P3]])
// CHECK-LABEL: llvm.func internal @attn_dispatch_0.body
// CHECK: llvm.fmul {{.*}} : vector<16xf32>
// CHECK: llvm.intr.fma({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK-LABEL: llvm.func @attn_dispatch_0(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr)
// CHECK: llvm.getelementptr %{{.*}}[6]
// CHECK: llvm.call @attn_dispatch_0.body
func.func @attn(%q: tensor<1x33x4x32xf32>, %k: tensor<1x40x2x32xf32>, %v: tensor<1x40x2x32xf32>) -> (tensor<1x33x4x32xf32>, tensor<1x4x33xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v {causal} : tensor<1x33x4x32xf32>, tensor<1x40x2x32xf32>, tensor<1x40x2x32xf32> -> tensor<1x33x4x32xf32>, tensor<1x4x33xf32>
  return %o, %lse : tensor<1x33x4x32xf32>, tensor<1x4x33xf32>
}
