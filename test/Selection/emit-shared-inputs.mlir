// Problems of the same shapes draw the same inputs, and the candidate
// directory holds them once: the second problem's inputs name the first's
// files; a problem of other shapes gets its own.

// RUN: rm -rf %t && mkdir -p %t
// RUN: ejk-run --fingerprint-out %t/device.txt
// RUN: ejk-tune %s --emit-candidates %t/cand --fingerprint %t/device.txt | FileCheck %s --check-prefix=CHECK-EMIT
// CHECK-EMIT: wrote {{[0-9]+}} candidates of 3 problem(s)
// RUN: FileCheck %s --input-file=%t/cand/plan.json
// CHECK:      "inputs": [
// CHECK-NEXT:   "p0/input0.npy",
// CHECK-NEXT:   "p0/input1.npy",
// CHECK-NEXT:   "p0/input2.npy"
// CHECK:      "inputs": [
// CHECK-NEXT:   "p0/input0.npy",
// CHECK-NEXT:   "p0/input1.npy",
// CHECK-NEXT:   "p0/input2.npy"
// CHECK:      "inputs": [
// CHECK-NEXT:   "p2/input0.npy",
// CHECK-NEXT:   "p2/input1.npy",
// CHECK-NEXT:   "p2/input2.npy"
// RUN: ls %t/cand/p1 | FileCheck %s --check-prefix=CHECK-FILES
// CHECK-FILES-NOT: input
// CHECK-FILES: expected0.npy
// CHECK-FILES-NOT: input
// The runner reads the shared files for both problems.
// RUN: ejk-tune-runner %t/cand --runs 1 --warmup 0 | FileCheck %s --check-prefix=CHECK-RUN
// CHECK-RUN-COUNT-3: <- winner

func.func @plain(%q: tensor<1x16x1x16xf32>, %k: tensor<1x16x1x16xf32>, %v: tensor<1x16x1x16xf32>) -> tensor<1x16x1x16xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x16x1x16xf32>, tensor<1x16x1x16xf32>, tensor<1x16x1x16xf32> -> tensor<1x16x1x16xf32>
  return %o : tensor<1x16x1x16xf32>
}
func.func @causal(%q: tensor<1x16x1x16xf32>, %k: tensor<1x16x1x16xf32>, %v: tensor<1x16x1x16xf32>) -> tensor<1x16x1x16xf32> {
  %o = ejk.flash_attention %q, %k, %v {causal} : tensor<1x16x1x16xf32>, tensor<1x16x1x16xf32>, tensor<1x16x1x16xf32> -> tensor<1x16x1x16xf32>
  return %o : tensor<1x16x1x16xf32>
}
func.func @longer(%q: tensor<1x24x1x16xf32>, %k: tensor<1x24x1x16xf32>, %v: tensor<1x24x1x16xf32>) -> tensor<1x24x1x16xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x24x1x16xf32>, tensor<1x24x1x16xf32>, tensor<1x24x1x16xf32> -> tensor<1x24x1x16xf32>
  return %o : tensor<1x24x1x16xf32>
}
