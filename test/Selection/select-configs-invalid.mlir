// RUN: ejk-opt %s -split-input-file -ejk-select-configs -verify-diagnostics
// RUN: not ejk-opt %s -split-input-file -ejk-select-configs="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: ejk-select-configs: unknown target 'tpu', expected 'cpu' or 'vulkan'

func.func @missing_block(%q: tensor<1x64x8x64xf32>, %k: tensor<1x64x8x64xf32>, %v: tensor<1x64x8x64xf32>) -> tensor<1x64x8x64xf32> {
  // expected-error @+1 {{config #ejk.config<block_q = 8> from the override tier is invalid for this target: config needs 'block_q' and 'block_k'}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 8>} : tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32> -> tensor<1x64x8x64xf32>
  return %o : tensor<1x64x8x64xf32>
}

// -----

func.func @subgroups_on_cpu(%q: tensor<1x64x8x64xf32>, %k: tensor<1x64x8x64xf32>, %v: tensor<1x64x8x64xf32>) -> tensor<1x64x8x64xf32> {
  // expected-error @+1 {{'num_subgroups' applies to Vulkan targets only}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 8, block_k = 8, num_subgroups = 2>} : tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32> -> tensor<1x64x8x64xf32>
  return %o : tensor<1x64x8x64xf32>
}

// -----

func.func @too_big_for_l2(%q: tensor<1x4096x8x256xf32>, %k: tensor<1x4096x8x256xf32>, %v: tensor<1x4096x8x256xf32>) -> tensor<1x4096x8x256xf32> {
  // expected-error @+1 {{working set of 5242880 bytes exceeds the 1048576-byte L2 cache}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 512, block_k = 1024>} : tensor<1x4096x8x256xf32>, tensor<1x4096x8x256xf32>, tensor<1x4096x8x256xf32> -> tensor<1x4096x8x256xf32>
  return %o : tensor<1x4096x8x256xf32>
}
