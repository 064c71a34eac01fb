// An op that parses and verifies but has no kernel for the target: the
// tiling driver names the op and the target, on both targets.
// RUN: not ejk-opt %s -ejk-select-configs -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not ejk-opt %s -ejk-select-configs=target=vulkan -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=VULKAN

// CPU: error: 'ejk.lightning_attention' op has no CPU kernel in this version of ejk; it can be parsed, verified and evaluated with the reference, not compiled
// VULKAN: error: 'ejk.lightning_attention' op has no Vulkan kernel in this version of ejk
func.func @lightning(%q: tensor<2x100x4x64xf32>, %k: tensor<2x100x4x64xf32>, %v: tensor<2x100x4x32xf32>, %slopes: tensor<4xf32>) -> tensor<2x100x4x32xf32> {
  %o = ejk.lightning_attention %q, %k, %v, %slopes : tensor<2x100x4x64xf32>, tensor<2x100x4x64xf32>, tensor<2x100x4x32xf32>, tensor<4xf32> -> tensor<2x100x4x32xf32>
  return %o : tensor<2x100x4x32xf32>
}
