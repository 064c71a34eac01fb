func.func @main(%q: tensor<2x50x6x64xf16>, %k: tensor<2x50x2x64xf16>, %v: tensor<2x50x2x64xf16>, %o: tensor<2x50x6x64xf16>, %do: tensor<2x50x6x64xf16>, %lse: tensor<2x6x50xf32>) -> (tensor<2x50x6x64xf16>, tensor<2x50x2x64xf16>, tensor<2x50x2x64xf16>) {
  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse
      : tensor<2x50x6x64xf16>, tensor<2x50x2x64xf16>, tensor<2x50x2x64xf16>, tensor<2x50x6x64xf16>, tensor<2x50x6x64xf16>, tensor<2x6x50xf32> -> tensor<2x50x6x64xf16>, tensor<2x50x2x64xf16>, tensor<2x50x2x64xf16>
  return %dq, %dk, %dv : tensor<2x50x6x64xf16>, tensor<2x50x2x64xf16>, tensor<2x50x2x64xf16>
}
