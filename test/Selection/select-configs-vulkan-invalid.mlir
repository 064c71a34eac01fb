// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle cooperative-matrix=true shared-memory-bytes=16384" -verify-diagnostics

func.func @shared_memory(%q: tensor<1x64x8x128xf32>, %k: tensor<1x64x8x128xf32>, %v: tensor<1x64x8x128xf32>) -> tensor<1x64x8x128xf32> {
  // expected-error @+1 {{stages 46336 bytes of shared memory, the device has 16384}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 128, block_k = 64, num_subgroups = 16>} : tensor<1x64x8x128xf32>, tensor<1x64x8x128xf32>, tensor<1x64x8x128xf32> -> tensor<1x64x8x128xf32>
  return %o : tensor<1x64x8x128xf32>
}

// -----

func.func @invocations(%q: tensor<1x64x8x64xf32>, %k: tensor<1x64x8x64xf32>, %v: tensor<1x64x8x64xf32>) -> tensor<1x64x8x64xf32> {
  // expected-error @+1 {{64 subgroups of 32 exceed 1024 invocations per workgroup}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 64, block_k = 16, num_subgroups = 64>} : tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32> -> tensor<1x64x8x64xf32>
  return %o : tensor<1x64x8x64xf32>
}

// -----

func.func @row_groups(%q: tensor<1x64x8x64xf32>, %k: tensor<1x64x8x64xf32>, %v: tensor<1x64x8x64xf32>) -> tensor<1x64x8x64xf32> {
  // expected-error @+1 {{'block_q' (24) must be a multiple of the 32 row groups of 512 threads with 16 threads per row}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 24, block_k = 16, num_subgroups = 16>} : tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32>, tensor<1x64x8x64xf32> -> tensor<1x64x8x64xf32>
  return %o : tensor<1x64x8x64xf32>
}

// -----

func.func @accumulators(%q: tensor<1x64x8x128xf32>, %k: tensor<1x64x8x128xf32>, %v: tensor<1x64x8x128xf32>) -> tensor<1x64x8x128xf32> {
  // expected-error @+1 {{each thread would keep 160 accumulators (at most 96); use fewer rows or keys per thread}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 32, block_k = 32, num_subgroups = 1>} : tensor<1x64x8x128xf32>, tensor<1x64x8x128xf32>, tensor<1x64x8x128xf32> -> tensor<1x64x8x128xf32>
  return %o : tensor<1x64x8x128xf32>
}

// -----

func.func @coop_block_k(%q: tensor<1x64x8x64xf16>, %k: tensor<1x64x8x64xf16>, %v: tensor<1x64x8x64xf16>) -> tensor<1x64x8x64xf16> {
  // expected-error @+1 {{cooperative-matrix code needs 'block_k' to be a multiple of 16, got 8}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 64, block_k = 8, num_subgroups = 4>} : tensor<1x64x8x64xf16>, tensor<1x64x8x64xf16>, tensor<1x64x8x64xf16> -> tensor<1x64x8x64xf16>
  return %o : tensor<1x64x8x64xf16>
}

// -----

func.func @coop_block_q(%q: tensor<1x64x8x64xf16>, %k: tensor<1x64x8x64xf16>, %v: tensor<1x64x8x64xf16>) -> tensor<1x64x8x64xf16> {
  // expected-error @+1 {{cooperative-matrix code needs 'block_q' = 16 * 'num_subgroups' (64), got 32}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 32, block_k = 16, num_subgroups = 4>} : tensor<1x64x8x64xf16>, tensor<1x64x8x64xf16>, tensor<1x64x8x64xf16> -> tensor<1x64x8x64xf16>
  return %o : tensor<1x64x8x64xf16>
}

// -----

func.func @coop_shared_memory(%q: tensor<1x64x8x128xf16>, %k: tensor<1x64x8x128xf16>, %v: tensor<1x64x8x128xf16>) -> tensor<1x64x8x128xf16> {
  // expected-error @+1 {{stages 36864 bytes of shared memory, the device has 16384}}
  %o = ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 64, block_k = 32, num_subgroups = 4>} : tensor<1x64x8x128xf16>, tensor<1x64x8x128xf16>, tensor<1x64x8x128xf16> -> tensor<1x64x8x128xf16>
  return %o : tensor<1x64x8x128xf16>
}
