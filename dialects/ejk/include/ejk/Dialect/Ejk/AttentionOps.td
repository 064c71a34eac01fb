//===- AttentionOps.td - dense attention ops ---------------*- tablegen -*-===//
//
// The dense attention family: flash attention forward and backward,
// block-sparse attention, multi-head latent attention, ring attention.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_ATTENTIONOPS_TD
#define EJK_DIALECT_EJK_ATTENTIONOPS_TD

def Ejk_FlashAttentionOp : Ejk_Op<"flash_attention", [
    Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Ejk_TunableOpInterface>]> {
  let summary = "Fused scaled dot-product attention (FlashAttention forward)";
  let description = [{
    Computes softmax attention of `query` over `key`/`value` without
    materializing the score matrix.

    Layout (BSHD):
    - `query`: `[batch, seq_q, num_heads, head_dim]`, f32, f16 or bf16
    - `key`: `[batch, seq_k, num_kv_heads, head_dim]`, same element type
    - `value`: `[batch, seq_k, num_kv_heads, head_dim_v]`, same element type
    - `bias` (optional): `[batch | 1, num_heads | 1, seq_q, seq_k]`, float
    - `mask` (optional): `[batch | 1, num_heads | 1, seq_q, seq_k]`, i1,
      `true` = may attend
    - `q_segment_ids` / `kv_segment_ids` (optional, both or neither):
      `[batch, seq_q]` / `[batch, seq_k]`, i32; a query attends only to keys
      of the same segment
    - result `output`: `[batch, seq_q, num_heads, head_dim_v]`, the element
      type of `query`
    - result `lse` (optional): `[batch, num_heads, seq_q]`, f32, the natural
      log of the softmax denominator

    `num_heads` must be a multiple of `num_kv_heads` (GQA/MQA): query head
    `h` reads key/value head `h / (num_heads / num_kv_heads)`.

    Reference formula, for each batch `b`, head `h`, query `i`, with
    `off = seq_k - seq_q`:
    ```
    s_j = softmax_scale * dot(query[b,i,h], key[b,j,h'])
    s_j = cap * tanh(s_j / cap)                  if logits_soft_cap = cap
    s_j = s_j + bias[b,h,i,j]                    if bias
    allowed(j) = (!causal || j <= i + off)
              && (!sliding_window || (i + off - j <= left && j - (i + off) <= right))
              && mask[b,h,i,j] && q_segment_ids[b,i] == kv_segment_ids[b,j]
    lse_i   = log(sum_{allowed j} exp(s_j))
    p_j     = exp(s_j - lse_i)
    output[b,i,h] = sum_{allowed j} dropout(p_j) * value[b,j,h']
    ```
    `causal` is bottom-right aligned when `seq_q != seq_k` (as in
    FlashAttention-2). `softmax_scale` defaults to `1/sqrt(head_dim)`.
    Dropout keeps `p_j` scaled by `1/(1 - dropout_prob)` when the
    counter-based hash of `(dropout_seed, b, h, i, j)` (see
    `ejk/Support/DropoutHash.h`) says so and sets it to 0 otherwise; `lse`
    is computed before dropout. A row with no allowed key gives an output
    of 0 and `lse = -inf`, never NaN. Accumulation is in f32 for every
    element type.

    ```mlir
    %o, %lse = ejk.flash_attention %q, %k, %v {causal}
        : tensor<1x128x8x64xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16>
        -> tensor<1x128x8x64xf16>, tensor<1x8x128xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    Optional<AnyRankedTensor>:$bias,
    Optional<AnyRankedTensor>:$mask,
    Optional<AnyRankedTensor>:$q_segment_ids,
    Optional<AnyRankedTensor>:$kv_segment_ids,
    OptionalAttr<F32Attr>:$softmax_scale,
    UnitAttr:$causal,
    OptionalAttr<DenseI64ArrayAttr>:$sliding_window,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<F32Attr>:$dropout_prob,
    OptionalAttr<I64Attr>:$dropout_seed,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$lse
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`q_segment_ids` `(` $q_segment_ids^ `:` type($q_segment_ids) `)`)?
    (`kv_segment_ids` `(` $kv_segment_ids^ `:` type($kv_segment_ids) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, or `1/sqrt(head_dim)` when it is absent.
    float getEffectiveSoftmaxScale();
  }];
}

#endif // EJK_DIALECT_EJK_ATTENTIONOPS_TD
