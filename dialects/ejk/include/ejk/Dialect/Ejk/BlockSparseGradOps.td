//===- BlockSparseGradOps.td - block-sparse backward ---------*- tablegen -*-===//
//
// The backward of ejk.block_sparse_attention (AttentionOps.td), in a file of
// its own: the attention family's ops, verified in AttentionOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_BLOCKSPARSEGRADOPS_TD
#define EJK_DIALECT_EJK_BLOCKSPARSEGRADOPS_TD

def Ejk_BlockSparseAttentionGradOp : Ejk_Op<"block_sparse_attention_grad", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Block-sparse attention backward: gradients of query, key "
                "and value over the live blocks";
  let description = [{
    Computes the gradients of `sum(output * d_output)` with respect to
    `query`, `key` and `value`, where `output` is the
    `ejk.block_sparse_attention` forward with the same operands and
    attributes. As `ejk.flash_attention_grad` (FlashAttention-2's backward),
    it recomputes the probabilities block by block from the forward's
    `lse`; like the forward, it visits only live blocks: the dK/dV pass
    iterates, per key block, the query blocks that see it (the transposed
    live-block lists), the dQ pass the live key blocks of each query block.
    Both lists are built by a running count (no atomics), so the order of
    accumulation, and the results, are the same run after run.

    Layout (BSHD):
    - `query`, `key`, `value`, `block_mask`, `bias`, `mask`,
      `q_segment_ids`, `kv_segment_ids`: as for `ejk.block_sparse_attention`
    - `output`: `[batch, seq_q, num_heads, head_dim_v]`, the element type of
      `query`: the forward's `output`
    - `d_output`: `[batch, seq_q, num_heads, head_dim_v]`, the element type
      of `query`: the gradient flowing into `output`
    - `lse`: `[batch, num_heads, seq_q]`, f32: the forward's `lse`
    - results `d_query`, `d_key`, `d_value`: the shapes and element types of
      `query`, `key` and `value`

    Attributes are those of `ejk.block_sparse_attention` (`q_block_size`,
    `kv_block_size`, `causal` with default `true`, `sliding_window`,
    `chunk_size`, `mask_alignment`, `softmax_scale`, `logits_soft_cap`),
    with the same meaning; they must be the ones the forward ran with.

    Reference formula: `allowed(j)` is the forward's (block mask, causal,
    window, chunk, token mask, segments); `s_ij` the logit before the soft
    cap and bias, `t_ij` after them:
    ```
    p_ij  = exp(t_ij - lse[b,h,i])               0 when j is not allowed
    dp_ij = dot(d_output[b,i,h], value[b,j,h'])
    D_i   = dot(d_output[b,i,h], output[b,i,h])
    ds_ij = p_ij * (dp_ij - D_i) * (1 - (tanh(s_ij / cap))^2 if capped)
    d_query[b,i,h]  = softmax_scale * sum_j ds_ij * key[b,j,h']
    d_key[b,j,h']   = softmax_scale * sum_{h in group(h')} sum_i ds_ij * query[b,i,h]
    d_value[b,j,h'] = sum_{h in group(h')} sum_i p_ij * d_output[b,i,h]
    ```
    Rows with `lse = -inf` (no allowed key) contribute nothing; keys that no
    row sees get zero gradients. Accumulation is in f32.

    As ejKernel's `blocksparse_attention` custom VJP, only `query`, `key`
    and `value` get gradients (none for `bias`); ejKernel's XLA path, which
    has no custom VJP, differentiates its dense masked attention, which
    gives the same gradients (test/Conformance).

    ```mlir
    %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse, %blocks
        {q_block_size = 64 : i64, kv_block_size = 64 : i64}
        : tensor<1x256x8x64xf32>, tensor<1x256x8x64xf32>, tensor<1x256x8x64xf32>,
          tensor<1x256x8x64xf32>, tensor<1x256x8x64xf32>, tensor<1x8x256xf32>,
          tensor<1x1x4x4xi1>
        -> tensor<1x256x8x64xf32>, tensor<1x256x8x64xf32>, tensor<1x256x8x64xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$output,
    AnyRankedTensor:$d_output,
    AnyRankedTensor:$lse,
    Optional<AnyRankedTensor>:$block_mask,
    Optional<AnyRankedTensor>:$bias,
    Optional<AnyRankedTensor>:$mask,
    Optional<AnyRankedTensor>:$q_segment_ids,
    Optional<AnyRankedTensor>:$kv_segment_ids,
    I64Attr:$q_block_size,
    I64Attr:$kv_block_size,
    OptionalAttr<F32Attr>:$softmax_scale,
    DefaultValuedAttr<BoolAttr, "true">:$causal,
    OptionalAttr<DenseI64ArrayAttr>:$sliding_window,
    OptionalAttr<I64Attr>:$chunk_size,
    OptionalAttr<StrAttr>:$mask_alignment,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$d_query,
    AnyRankedTensor:$d_key,
    AnyRankedTensor:$d_value
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $output `,` $d_output `,` $lse
    (`,` $block_mask^)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`q_segment_ids` `(` $q_segment_ids^ `:` type($q_segment_ids) `)`)?
    (`kv_segment_ids` `(` $kv_segment_ids^ `:` type($kv_segment_ids) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    type($output) `,` type($d_output) `,` type($lse)
    (`,` type($block_mask)^)?
    `->` type($d_query) `,` type($d_key) `,` type($d_value)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts (flash_attention_grad's).
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, or `1/sqrt(head_dim)` when it is absent.
    float getEffectiveSoftmaxScale();
    /// Whether `mask_alignment = "bottom_right"` (top-left otherwise).
    bool isBottomRightAligned() {
      return getMaskAlignment() == ::llvm::StringRef("bottom_right");
    }
    /// `sliding_window` as [left, right]; one size `w` means [w, w].
    std::optional<std::array<int64_t, 2>> getWindowBounds() {
      std::optional<::llvm::ArrayRef<int64_t>> w = getSlidingWindow();
      if (!w || w->empty())
        return std::nullopt;
      return std::array<int64_t, 2>{w->front(), w->back()};
    }
  }];
}

#endif // EJK_DIALECT_EJK_BLOCKSPARSEGRADOPS_TD
