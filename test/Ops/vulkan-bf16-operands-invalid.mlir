// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs="policy=heuristics target=vulkan vulkan-features=float16,storage16,subgroup_shuffle" -ejk-form-dispatches -ejk-tile-dispatches

// bf16 tensors on a Vulkan device without 'int16', whatever the family
// (verifyVulkanBufferTypes, run after each family's rules: TunableModel.h).
// Vulkan kernels read bf16 buffers as 16-bit integers; where a family's
// rules checked only its main inputs, a bf16 bias, sinks or state-space
// input was refused by ejk-prepare-vulkan-kernels in its dispatch's name
// ("dispatch 'sinks_only_dispatch_0' argument 6 is a bf16 buffer ...").

// f16 queries and caches, bf16 sinks.
func.func @sinks_only(%q: tensor<8x4x32xf16>, %kc: tensor<8x1x4x32xf16>, %vc: tensor<8x1x4x32xf16>,
                      %lens: tensor<2xi32>, %tables: tensor<2x4xi32>, %starts: tensor<3xi32>,
                      %aux: tensor<4xbf16>) -> tensor<8x4x32xf16> {
  // expected-error-re @+1 {{'ejk.unified_attention' op config #ejk.config<{{.*}}> from the heuristic tier is invalid for this target: operand 6 (tensor<4xbf16>) is bf16: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts sinks(%aux : tensor<4xbf16>)
      : tensor<8x4x32xf16>, tensor<8x1x4x32xf16>, tensor<8x1x4x32xf16>, tensor<2xi32>, tensor<2x4xi32>,
        tensor<3xi32> -> tensor<8x4x32xf16>
  return %o : tensor<8x4x32xf16>
}

// -----

// f32 attention with a bf16 bias.
func.func @bias(%q: tensor<1x20x2x32xf32>, %bias: tensor<1x1x20x20xbf16>) -> tensor<1x20x2x32xf32> {
  // expected-error-re @+1 {{'ejk.flash_attention' op config #ejk.config<{{.*}}> from the heuristic tier is invalid for this target: operand 3 (tensor<1x1x20x20xbf16>) is bf16: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %o = ejk.flash_attention %q, %q, %q bias(%bias : tensor<1x1x20x20xbf16>) : tensor<1x20x2x32xf32>, tensor<1x20x2x32xf32>, tensor<1x20x2x32xf32> -> tensor<1x20x2x32xf32>
  return %o : tensor<1x20x2x32xf32>
}

// -----

// A bf16 selective scan (the state-space rules check no element type).
func.func @scan(%u: tensor<2x16x8xbf16>, %delta: tensor<2x16x8xbf16>, %A: tensor<8x4xf32>, %B: tensor<2x16x2x4xbf16>, %C: tensor<2x16x2x4xbf16>) -> tensor<2x16x8xbf16> {
  // expected-error-re @+1 {{'ejk.selective_scan' op config #ejk.config<{{.*}}> from the heuristic tier is invalid for this target: operand 0 (tensor<2x16x8xbf16>) is bf16: bf16 buffers, read as 16-bit integers, need the device feature 'int16'}}
  %y = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<2x16x8xbf16>, tensor<2x16x8xbf16>, tensor<8x4xf32>, tensor<2x16x2x4xbf16>, tensor<2x16x2x4xbf16> -> tensor<2x16x8xbf16>
  return %y : tensor<2x16x8xbf16>
}

// -----

// No output elements: no dispatch binds anything, nothing to refuse.
func.func @empty(%u: tensor<0x16x8xbf16>, %delta: tensor<0x16x8xbf16>, %A: tensor<8x4xf32>, %B: tensor<0x16x2x4xbf16>, %C: tensor<0x16x2x4xbf16>) -> tensor<0x16x8xbf16> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C : tensor<0x16x8xbf16>, tensor<0x16x8xbf16>, tensor<8x4xf32>, tensor<0x16x2x4xbf16>, tensor<0x16x2x4xbf16> -> tensor<0x16x8xbf16>
  return %y : tensor<0x16x8xbf16>
}
