// Bad input gets a located diagnostic and a non-zero exit, never a crash.
// RUN: split-file %s %t
// RUN: not ejk-opt %t/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-UNKNOWN
// RUN: not ejk-opt %t/malformed.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-MALFORMED
// RUN: not ejk-opt %t/bad-config.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-CONFIG
// RUN: not ejk-opt %t/wrong-shape.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-SHAPE
// RUN: not ejk-opt %t/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-MISSING
// RUN: not ejk-opt %t/missing-operand.mlir 2>&1 | FileCheck %s --check-prefix=CHECK-OPERAND

// CHECK-UNKNOWN: unknown-op.mlir:2:8: error: custom op 'ejk.flash_attn' is unknown
// CHECK-MALFORMED: malformed.mlir:2:{{[0-9]+}}: error: expected ','
// CHECK-CONFIG: bad-config.mlir:2:{{[0-9]+}}: error: expected '='
// CHECK-SHAPE: wrong-shape.mlir:2:8: error: 'ejk.flash_attention' op expects 'value' dim 2 (num_kv_heads) to be 2 to match 'key' dim 2 (num_kv_heads), got 4
// CHECK-MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// CHECK-OPERAND: missing-operand.mlir:2:{{[0-9]+}}: error: use of undeclared SSA value name

//--- unknown-op.mlir
func.func @f(%q: tensor<1x4x2x8xf32>) {
  %o = ejk.flash_attn %q, %q, %q : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32>
  return
}
//--- malformed.mlir
func.func @f(%q: tensor<1x4x2x8xf32>) {
  %o = ejk.flash_attention %q %q, %q : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32>
  return
}
//--- bad-config.mlir
func.func @f(%q: tensor<1x4x2x8xf32>) {
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q 4>} : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32>
  return
}
//--- wrong-shape.mlir
func.func @f(%q: tensor<1x4x8x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x4x8xf32>) {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x4x8x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x4x8xf32> -> tensor<1x4x8x8xf32>
  return
}
//--- missing-operand.mlir
func.func @f(%q: tensor<1x4x2x8xf32>) {
  %o = ejk.flash_attention %q, %k, %q : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32>
  return
}
