// An op that parses and verifies but has no kernel for the target: the
// tiling driver names the op and the target, on both targets.
// RUN: not ejk-opt %s -ejk-select-configs -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not ejk-opt %s -ejk-select-configs=target=vulkan -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=VULKAN

// CPU: error: 'ejk.ring_attention' op has no CPU kernel in this version of ejk; it can be parsed, verified and evaluated with the reference, not compiled
// VULKAN: error: 'ejk.ring_attention' op has no Vulkan kernel in this version of ejk
func.func @ring(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) -> tensor<2x16x8x64xf32> {
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return %o : tensor<2x16x8x64xf32>
}
