// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan subgroup-size=32 vulkan-features=subgroup_basic,float16,int16,storage16" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s

// One thread per token (the heuristic: block_t = 64, the largest that fits
// the selection's workgroup memory), scalar loads widened from bf16.
// compress: one thread per head_dim column (40 of them). select: each
// thread's scores and sums are its slice (4 blocks) of two rows of
// workgroup memory, 2 * 64 * 4 f32 = 2048 bytes.

// CHECK-LABEL: func.func private @cmp_dispatch_0_compress
// CHECK-SAME: ejk.grid = array<i64: 4, 2, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 40, 1, 1>
// CHECK: gpu.thread_id x
// CHECK: memref.load %{{.*}} : memref<1x50x2x40xbf16>
// CHECK: arith.extf

// CHECK-LABEL: func.func private @cmp_dispatch_0_select
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 1>
// CHECK-SAME: ejk.shared_memory_bytes = 2048 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
// CHECK: memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: %[[T:.*]] = arith.addi %{{.*}}, %thread_id_x
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T]], %c50
// CHECK: scf.if %[[IN]] {
// CHECK: arith.muli %thread_id_x{{.*}}, %c4
// CHECK: math.fma
// CHECK: memref.store %{{.*}} : memref<1x50x2x2xi32>

// Attend: the per-slot key loops carry scalars (max, sum, 40 accumulators)
// under a guard.
// CHECK-LABEL: func.func private @cmp_dispatch_0(
// CHECK-SAME: ejk.grid = array<i64: 1, 2, 1>
// CHECK-SAME: ejk.workgroup_size = array<i64: 64, 1, 1>
// CHECK: gpu.thread_id x
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args
// CHECK: memref.load %{{.*}} : memref<1x50x2x2xi32>
// CHECK: scf.if
// CHECK: math.fma
// CHECK: math.exp
// CHECK: memref.store %{{.*}} : memref<1x50x4x40xbf16>
func.func @cmp(%q: tensor<1x50x4x40xbf16>, %k: tensor<1x50x2x40xbf16>, %v: tensor<1x50x2x40xbf16>, %gc: tensor<1x50x4xbf16>) -> tensor<1x50x4x40xbf16> {
  %o = ejk.native_sparse_attention %q, %k, %v g_cmp(%gc : tensor<1x50x4xbf16>) {block_size = 16 : i64, block_counts = 2 : i64}
      : tensor<1x50x4x40xbf16>, tensor<1x50x2x40xbf16>, tensor<1x50x2x40xbf16> -> tensor<1x50x4x40xbf16>
  return %o : tensor<1x50x4x40xbf16>
}

// -----

// 4096 tokens in blocks of 16 (256 blocks): 64 threads would need 128 KiB
// of workgroup memory; the heuristic takes 16 (2 * 16 * 256 * 4 = 32 KiB).
// CHECK-LABEL: func.func private @long_dispatch_0_select
// CHECK-SAME: ejk.shared_memory_bytes = 32768 : i64
// CHECK-SAME: ejk.workgroup_size = array<i64: 16, 1, 1>
func.func @long(%q: tensor<1x4096x2x16xf32>, %k: tensor<1x4096x1x16xf32>, %gc: tensor<1x4096x2xf32>) -> tensor<1x4096x2x16xf32> {
  %o = ejk.native_sparse_attention %q, %k, %k g_cmp(%gc : tensor<1x4096x2xf32>) {block_size = 16 : i64, block_counts = 4 : i64}
      : tensor<1x4096x2x16xf32>, tensor<1x4096x1x16xf32>, tensor<1x4096x1x16xf32> -> tensor<1x4096x2x16xf32>
  return %o : tensor<1x4096x2x16xf32>
}
