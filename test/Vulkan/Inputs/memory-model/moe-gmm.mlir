func.func @main(%lhs: tensor<300x64xf16>, %rhs: tensor<5x64x48xf16>, %sizes: tensor<5xi32>) -> tensor<300x48xf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes
      : tensor<300x64xf16>, tensor<5x64x48xf16>, tensor<5xi32> -> tensor<300x48xf16>
  return %out : tensor<300x48xf16>
}
