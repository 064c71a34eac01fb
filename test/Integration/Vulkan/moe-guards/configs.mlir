// Explicit configs on a device without cooperative matrices (the portable
// path): num_stages = 1 is accepted and means what the default does; tiles
// that cover neither m, k nor n evenly; every input dtype. The cooperative
// path's configs (two stages, output tiles) need a device with matrices:
// bench/vulkan/moe.py's chk_* cases run them on the H100.
// REQUIRES: vulkan

// RUN: ejk-run %s --entry f32_one_stage --target vulkan --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry f16_ragged_tiles --target vulkan --random-inputs 2 --check | FileCheck %s
// RUN: ejk-run %s --entry bf16_transposed --target vulkan --random-inputs 3 --check | FileCheck %s
// RUN: ejk-run %s --entry tgmm_f16_one_stage --target vulkan --random-inputs 4 --check | FileCheck %s

// CHECK: result 0 ({{.*}}): {{.*}}: ok
// CHECK-NOT: FAILED

func.func @f32_one_stage(%lhs: tensor<97x40xf32>, %rhs: tensor<6x40x24xf32>, %sizes: tensor<6xi32>) -> tensor<97x24xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 32, block_n = 16, block_k = 16, num_subgroups = 2, num_stages = 1>}
      : tensor<97x40xf32>, tensor<6x40x24xf32>, tensor<6xi32> -> tensor<97x24xf32>
  return %out : tensor<97x24xf32>
}

func.func @f16_ragged_tiles(%lhs: tensor<131x72xf16>, %rhs: tensor<9x72x40xf16>, %sizes: tensor<9xi32>, %acc: tensor<131x40xf32>) -> tensor<131x40xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes existing_out(%acc : tensor<131x40xf32>) {config = #ejk.config<block_m = 64, block_n = 32, block_k = 32, num_subgroups = 4, num_stages = 1>}
      : tensor<131x72xf16>, tensor<9x72x40xf16>, tensor<9xi32> -> tensor<131x40xf32>
  return %out : tensor<131x40xf32>
}

func.func @bf16_transposed(%lhs: tensor<77x24xbf16>, %rhs: tensor<5x56x24xbf16>, %sizes: tensor<5xi32>) -> tensor<77x56xbf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs, config = #ejk.config<block_m = 16, block_n = 64, block_k = 16, num_subgroups = 4, num_stages = 1>}
      : tensor<77x24xbf16>, tensor<5x56x24xbf16>, tensor<5xi32> -> tensor<77x56xbf16>
  return %out : tensor<77x56xbf16>
}

func.func @tgmm_f16_one_stage(%lhs: tensor<90x40xf16>, %rhs: tensor<90x24xf16>, %sizes: tensor<7xi32>) -> tensor<7x40x24xf32> {
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes {config = #ejk.config<block_m = 16, block_n = 16, block_k = 32, num_subgroups = 2, num_stages = 1>}
      : tensor<90x40xf16>, tensor<90x24xf16>, tensor<7xi32> -> tensor<7x40x24xf32>
  return %out : tensor<7x40x24xf32>
}
