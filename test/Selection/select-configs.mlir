// RUN: ejk-opt %s -split-input-file -ejk-select-configs | FileCheck %s --check-prefix=CHECK-CPU
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle" | FileCheck %s --check-prefix=CHECK-VK
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle cooperative-matrix=true shared-memory-bytes=49152" | FileCheck %s --check-prefix=CHECK-COOP
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-EXPLAIN

// The heuristic tier answers for an op without a config.
// CHECK-CPU-LABEL: func.func @heuristic
// CHECK-CPU: ejk.flash_attention {{.*}}config = #ejk.config<block_k = 64, block_q = 16>
// CHECK-VK-LABEL: func.func @heuristic
// CHECK-VK: ejk.flash_attention {{.*}}config = #ejk.config<block_k = 32, block_q = 128, num_subgroups = 16>
// CHECK-COOP-LABEL: func.func @heuristic
// CHECK-COOP: ejk.flash_attention {{.*}}config = #ejk.config<block_k = 16, block_q = 64, num_subgroups = 4>
// CHECK-EXPLAIN: remark: config #ejk.config<block_k = 64, block_q = 16> from the heuristic tier for ejk.flash_attention;q=1x2048x16x128xf16;k=1x2048x16x128xf16;v=1x2048x16x128xf16;bias=none;mask=none;segments=0;causal=1;softcap=0;dropout=0;lse=0
func.func @heuristic(%q: tensor<1x2048x16x128xf16>, %k: tensor<1x2048x16x128xf16>, %v: tensor<1x2048x16x128xf16>) -> tensor<1x2048x16x128xf16> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16>, tensor<1x2048x16x128xf16> -> tensor<1x2048x16x128xf16>
  return %o : tensor<1x2048x16x128xf16>
}

// -----

// Short sequences clamp the blocks to the problem.
// CHECK-CPU-LABEL: func.func @decode
// CHECK-CPU: ejk.flash_attention {{.*}}config = #ejk.config<block_k = 8, block_q = 1>
func.func @decode(%q: tensor<1x1x8x64xf32>, %k: tensor<1x7x8x64xf32>, %v: tensor<1x7x8x64xf32>) -> tensor<1x1x8x64xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x1x8x64xf32>, tensor<1x7x8x64xf32>, tensor<1x7x8x64xf32> -> tensor<1x1x8x64xf32>
  return %o : tensor<1x1x8x64xf32>
}

// -----

// The override tier keeps a config that is already on the op.
// CHECK-CPU-LABEL: func.func @override
// CHECK-CPU: ejk.flash_attention {{.*}}config = #ejk.config<block_k = 32, block_q = 8>
// CHECK-EXPLAIN: remark: config #ejk.config<block_k = 32, block_q = 8> from the override tier
func.func @override(%q: tensor<1x64x8x64xf32>, %k: tensor<1x64x8x64xf32>, %v: tensor<1x64x8x64xf32>) -> tensor<1x64x8x64xf32> {
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 8, block_k = 32>} : tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32> -> tensor<1x64x8x64xf32>
  return %o : tensor<1x64x8x64xf32>
}
