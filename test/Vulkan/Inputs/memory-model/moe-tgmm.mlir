func.func @main(%lhs: tensor<300x64xf16>, %rhs: tensor<300x48xf16>, %sizes: tensor<5xi32>) -> tensor<5x64x48xf32> {
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes
      : tensor<300x64xf16>, tensor<300x48xf16>, tensor<5xi32> -> tensor<5x64x48xf32>
  return %out : tensor<5x64x48xf32>
}
