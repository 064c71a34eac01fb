// RUN: ejk-opt %s -split-input-file -ejk-form-dispatches -verify-diagnostics

func.func @other_op(%q: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  // expected-error @+1 {{'arith.constant' op is not allowed in ejk entry 'other_op': entries contain only ejk ops}}
  %c = arith.constant 1.0 : f32
  %o = ejk.flash_attention %q, %q, %q : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}

// -----

func.func @returns_argument(%q: tensor<1x8x2x16xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  // expected-error @+1 {{returns argument 0 unchanged as result 1; ejk entries must compute every result}}
  return %o, %q : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}

// -----

func.func @returns_twice(%q: tensor<1x8x2x16xf32>) -> (tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>) {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  // expected-error @+1 {{returns the same value twice (result 1); return each computed value once}}
  return %o, %o : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>
}

// -----

// expected-error @+1 {{ejk entry 'scalar_arg' arguments must be statically shaped tensors, got 'f32'}}
func.func @scalar_arg(%q: tensor<1x8x2x16xf32>, %s: f32) -> tensor<1x8x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}

// -----

// expected-error @+1 {{ejk entry 'two_blocks' must have a single block}}
func.func @two_blocks(%q: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  cf.br ^bb1
^bb1:
  return %o : tensor<1x8x2x16xf32>
}

// -----

// 2^62 x 128 f32 elements: the byte size (and the element count) overflow
// int64; the product once wrapped to 0 and the op vanished as if empty.
// expected-error @+1 {{ejk entry argument of type 'tensor<4611686018427387904x4x2x16xf32>' has more than 2^63 bytes}}
func.func @huge(%q: tensor<4611686018427387904x4x2x16xf32>) -> tensor<4611686018427387904x4x2x16xf32> {
  %o = ejk.gla %q, %q, %q : tensor<4611686018427387904x4x2x16xf32>, tensor<4611686018427387904x4x2x16xf32>, tensor<4611686018427387904x4x2x16xf32> -> tensor<4611686018427387904x4x2x16xf32>
  return %o : tensor<4611686018427387904x4x2x16xf32>
}
