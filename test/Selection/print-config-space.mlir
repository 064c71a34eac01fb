// RUN: ejk-opt %s -ejk-print-config-space -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-SMALL
// RUN: ejk-opt %s -ejk-print-config-space="full=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-FULL
// RUN: ejk-opt %s -ejk-print-config-space="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle shared-memory-bytes=49152" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-VK

// CHECK-SMALL: remark: problem key: ejk.flash_attention;q=1x1024x16x64xf32;k=1x1024x16x64xf32;v=1x1024x16x64xf32;bias=none;mask=none;segments=0;causal=0;softcap=0;dropout=0;lse=1
// CHECK-SMALL-NEXT: heuristic: #ejk.config<block_k = 128, block_q = 16>
// CHECK-SMALL-NEXT: 9 candidates:
// CHECK-SMALL-NEXT: #ejk.config<block_k = 64, block_q = 8>
// CHECK-SMALL: #ejk.config<block_k = 256, block_q = 32>
// CHECK-FULL: 30 candidates:
// Vulkan spaces hold only configs whose thread layout works out (block_q a
// multiple of the row groups) and that fit shared memory and registers.
// CHECK-VK: heuristic: #ejk.config<block_k = 64, block_q = 128, num_subgroups = 16>
// CHECK-VK-NEXT: 17 candidates:
// CHECK-VK-NOT: block_q = 8,
// CHECK-VK: #ejk.config<block_k = 64, block_q = 64, num_subgroups = 8>
func.func @fa_d64(%q: tensor<1x1024x16x64xf32>, %k: tensor<1x1024x16x64xf32>, %v: tensor<1x1024x16x64xf32>) -> (tensor<1x1024x16x64xf32>, tensor<1x16x1024xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %v : tensor<1x1024x16x64xf32>, tensor<1x1024x16x64xf32>, tensor<1x1024x16x64xf32> -> tensor<1x1024x16x64xf32>, tensor<1x16x1024xf32>
  return %o, %lse : tensor<1x1024x16x64xf32>, tensor<1x16x1024xf32>
}
