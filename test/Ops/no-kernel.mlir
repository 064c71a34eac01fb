// An op with no kernel of its own for the target: ejk.ring_attention is a
// program the runtime drives, compiled as the entries ejk-expand-entries
// writes (every op of the dialect now has a kernel or an expander; an op
// with neither gets "has no <target> kernel in this version of ejk").
// RUN: not ejk-opt %s -ejk-select-configs -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not ejk-opt %s -ejk-select-configs=target=vulkan -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s --check-prefix=VULKAN

// CPU: error: 'ejk.ring_attention' op is not one CPU kernel but a program the runtime drives: run ejk-expand-entries first (the ejkc and ejk-run pipelines do), which replaces its entry by the entries of each step
// VULKAN: error: 'ejk.ring_attention' op is not one Vulkan kernel but a program the runtime drives: run ejk-expand-entries first
func.func @ring(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x2x64xf32>, %v: tensor<2x16x2x64xf32>) -> tensor<2x16x8x64xf32> {
  %o = ejk.ring_attention %q, %k, %v {ring_size = 4 : i64} : tensor<2x16x8x64xf32>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32> -> tensor<2x16x8x64xf32>
  return %o : tensor<2x16x8x64xf32>
}
