// Extreme attribute and config values must be handled exactly or rejected
// with a clear error, never overflow into a wrong mask, a hang or unbounded
// memory. A sliding window wider than the sequences equals no window.
// RUN: ejk-run %s --entry window_2_40 --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry window_int64_max --random-inputs 2 --check | FileCheck %s
// RUN: ejk-run %s --entry window_2_40 --random-inputs 1 --output %t.wide.npy
// RUN: ejk-run %s --entry no_window --random-inputs 1 --output %t.none.npy
// RUN: cmp %t.wide.npy %t.none.npy

// CHECK-NOT: FAILED
// CHECK: result 0 ({{.*}}): {{.*}}: ok

func.func @window_2_40(%q: tensor<1x33x2x16xf32>) -> tensor<1x33x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q {sliding_window = array<i64: 1099511627776, 1099511627776>} : tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32> -> tensor<1x33x2x16xf32>
  return %o : tensor<1x33x2x16xf32>
}

func.func @no_window(%q: tensor<1x33x2x16xf32>) -> tensor<1x33x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32> -> tensor<1x33x2x16xf32>
  return %o : tensor<1x33x2x16xf32>
}

func.func @window_int64_max(%q: tensor<1x33x2x16xf32>) -> tensor<1x33x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q {causal, sliding_window = array<i64: 9223372036854775807, 0>} : tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32>, tensor<1x33x2x16xf32> -> tensor<1x33x2x16xf32>
  return %o : tensor<1x33x2x16xf32>
}
