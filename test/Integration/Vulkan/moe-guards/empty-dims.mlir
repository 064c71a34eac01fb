// Degenerate grouped matmuls and mean pooling: no local groups, no groups at
// all, k = 0 and no rows, with and without existing_out (a fill or a copy
// of existing_out: the ops' other operands have no elements to bind).
// REQUIRES: vulkan

// RUN: ejk-run %s --entry no_local --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry no_groups --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry no_groups_acc --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry tgmm_no_rows --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry k0 --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry k0_acc --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry pool_no_seqs --target vulkan --random-inputs 1 --check | FileCheck %s

// CHECK: result 0 ({{.*}}): {{.*}}: ok
// CHECK-NOT: FAILED

func.func @no_local(%lhs: tensor<20x8xf32>, %rhs: tensor<0x8x16xf32>, %sizes: tensor<4xi32>, %off: tensor<1xi32>, %acc: tensor<20x16xf32>) -> tensor<20x16xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%off : tensor<1xi32>) existing_out(%acc : tensor<20x16xf32>) : tensor<20x8xf32>, tensor<0x8x16xf32>, tensor<4xi32> -> tensor<20x16xf32>
  return %out : tensor<20x16xf32>
}

func.func @no_groups(%lhs: tensor<20x8xf32>, %rhs: tensor<0x8x16xf32>, %sizes: tensor<0xi32>) -> tensor<20x16xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<20x8xf32>, tensor<0x8x16xf32>, tensor<0xi32> -> tensor<20x16xf32>
  return %out : tensor<20x16xf32>
}

func.func @no_groups_acc(%lhs: tensor<20x8xf16>, %rhs: tensor<0x16x8xf16>, %sizes: tensor<0xi32>, %acc: tensor<20x16xf32>) -> tensor<20x16xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes existing_out(%acc : tensor<20x16xf32>) {transpose_rhs} : tensor<20x8xf16>, tensor<0x16x8xf16>, tensor<0xi32> -> tensor<20x16xf32>
  return %out : tensor<20x16xf32>
}

func.func @tgmm_no_rows(%lhs: tensor<0x8xf32>, %rhs: tensor<0x16xf32>, %sizes: tensor<3xi32>, %acc: tensor<3x8x16xf32>) -> tensor<3x8x16xf32> {
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes existing_out(%acc : tensor<3x8x16xf32>) : tensor<0x8xf32>, tensor<0x16xf32>, tensor<3xi32> -> tensor<3x8x16xf32>
  return %out : tensor<3x8x16xf32>
}

func.func @k0(%lhs: tensor<20x0xbf16>, %rhs: tensor<2x0x16xbf16>, %sizes: tensor<2xi32>) -> tensor<20x16xbf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<20x0xbf16>, tensor<2x0x16xbf16>, tensor<2xi32> -> tensor<20x16xbf16>
  return %out : tensor<20x16xbf16>
}

func.func @k0_acc(%lhs: tensor<20x0xf32>, %rhs: tensor<2x0x16xf32>, %sizes: tensor<2xi32>, %acc: tensor<20x16xf32>) -> tensor<20x16xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes existing_out(%acc : tensor<20x16xf32>) : tensor<20x0xf32>, tensor<2x0x16xf32>, tensor<2xi32> -> tensor<20x16xf32>
  return %out : tensor<20x16xf32>
}

func.func @pool_no_seqs(%dy: tensor<0x8xf32>, %cu: tensor<1xi32>) -> tensor<10x8xf32> {
  %dx = ejk.mean_pooling_grad %dy cu_seqlens(%cu : tensor<1xi32>) : tensor<0x8xf32> -> tensor<10x8xf32>
  return %dx : tensor<10x8xf32>
}
