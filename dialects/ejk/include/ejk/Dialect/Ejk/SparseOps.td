//===- SparseOps.td - learned-sparsity attention ops ------*- tablegen -*-===//
//
// Attention whose sparsity is chosen from the data: DeepSeek's native sparse
// attention (NSA). Verifiers in dialects/ejk/lib/SparseOps.cpp; kernels in
// lib/Ops/Sparse.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_SPARSEOPS_TD
#define EJK_DIALECT_EJK_SPARSEOPS_TD

def Ejk_NativeSparseAttentionOp : Ejk_Op<"native_sparse_attention", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "DeepSeek's native sparse attention (NSA), as ejKernel's";
  let description = [{
    Native sparse attention (Yuan et al., 2025) as ejKernel's public
    `native_sparse_attention` computes it: a compression branch over
    mean-pooled key/value blocks, whose attention probabilities choose the
    top-k key blocks each token attends to at full resolution (the
    selection branch), and, as an ejk extension, NSA's sliding-window
    branch; the branches are summed with per-token, per-head gates.

    Layout (BSHD, self-attention: keys and queries share positions):
    - `query`: `[batch, seq_len, num_heads, head_dim]`, f32, f16 or bf16
    - `key`, `value`: `[batch, seq_len, num_kv_heads, head_dim]`, same
      element type
    - `g_cmp`, `g_slc`, `g_swa` (optional): `[batch, seq_len, num_heads]`,
      the element type of `query`
    - `block_indices` (optional): i32, per token
      `[batch, seq_len, num_kv_heads, S]` or per query block
      `[batch, num_kv_heads, num_blocks, S]` (token `t` reads row
      `t / block_size`); the per-token layout is taken when both match, as
      ejKernel does
    - result `output`: `[batch, seq_len, num_heads, head_dim]`, the element
      type of `query`

    `num_heads` must be a multiple of `num_kv_heads`; query head `h` reads
    key/value head `h' = h / G`, `G = num_heads / num_kv_heads`, and the G
    heads of a group share one selection. With `bs = block_size`,
    `NB = ceil(seq_len / bs)`, `scale = softmax_scale` (default
    `1/sqrt(head_dim)`), for each batch `b`, token `t`, head `h`:
    ```
    kc[c], vc[c] = sum of key/value rows c*bs .. c*bs+bs-1 of head h' / bs
                   (rows past seq_len count as 0: the last block's mean
                   divides by bs)
    -- compression branch (when g_cmp is given)
    done     = (t + 1) / bs                      completed blocks
    s_c      = scale * dot(query[b,t,h], kc[c])
    lse      = log(sum_{c < done} exp(s_c))      (0 when done = 0)
    o_cmp    = sum_{c < done} exp(s_c - lse) vc[c]   (0 when done = 0)
    -- selection (when g_cmp is given)
    qb       = t / bs
    p_c      = sum over the G heads of the group of
               (c == qb ? 1 : exp(s_c - lse))      for c <= qb
    key_c    = p_c + f32(c) * 1e-8 (in f32)        for c <= qb
    sel      = the min(block_counts, NB) blocks of largest key_c, largest
               first, equal keys in increasing c; slots past qb + 1 blocks
               are -1
    -- or, without g_cmp, sel = block_indices[b, t, h', :] (per token) or
       block_indices[b, h', qb, :] (per block); slot i is used only when
       i < block_counts and 0 <= sel[i] < NB
    -- selection branch: every key j of every used slot's block with j <= t
       (a block listed twice counts twice)
    o_slc    = softmax over those keys of scale * dot(query, key[j]),
               applied to value[j]                 (0 when there is none)
    -- sliding-window branch (when window_size = w > 0)
    o_swa    = softmax attention over the keys t - w < j <= t
    output   = o_slc * g_slc + o_cmp * g_cmp + o_swa * g_swa
    ```
    where an absent `g_slc` or `g_swa` counts as 1 and an absent `g_cmp`
    drops the compression branch (then `block_indices` is required).
    Accumulation is in f32; the selection is deterministic (no atomics,
    ties broken by block index), so runs are bit-reproducible.

    Differences from ejKernel (docs/ops/native-sparse.md): ejKernel has no
    sliding-window branch (`window_size`, `g_swa` follow NSA's paper and
    flash-linear-attention's `parallel_nsa`); ejKernel takes its
    `block_size` from the kernel config (64 by its heuristic, 128 possible
    under autotuning) where ejk makes it an attribute; ejKernel ignores
    `block_indices` with a warning when `g_cmp` is given, ejk rejects the
    pair; ejKernel's per-token `block_counts` arrays and `cu_seqlens` have no
    counterpart here; a token whose used slots hold no key (possible only
    with caller-given `block_indices`) gets `o_slc = 0` here and a uniform
    average of the gathered rows in ejKernel (its -1e9 mask); with f16/bf16
    inputs ejKernel selects from scores rounded to the input type, ejk from
    f32 scores, so near-ties may select differently.

    ```mlir
    %o = ejk.native_sparse_attention %q, %k, %v
        g_cmp(%gc : tensor<1x4096x16xbf16>) g_slc(%gs : tensor<1x4096x16xbf16>)
        {block_size = 64 : i64, block_counts = 16 : i64}
        : tensor<1x4096x16x128xbf16>, tensor<1x4096x4x128xbf16>,
          tensor<1x4096x4x128xbf16> -> tensor<1x4096x16x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    Optional<AnyRankedTensor>:$g_cmp,
    Optional<AnyRankedTensor>:$g_slc,
    Optional<AnyRankedTensor>:$g_swa,
    Optional<AnyRankedTensor>:$block_indices,
    DefaultValuedAttr<I64Attr, "64">:$block_size,
    DefaultValuedAttr<I64Attr, "16">:$block_counts,
    OptionalAttr<F32Attr>:$softmax_scale,
    DefaultValuedAttr<I64Attr, "0">:$window_size,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`g_cmp` `(` $g_cmp^ `:` type($g_cmp) `)`)?
    (`g_slc` `(` $g_slc^ `:` type($g_slc) `)`)?
    (`g_swa` `(` $g_swa^ `:` type($g_swa) `)`)?
    (`block_indices` `(` $block_indices^ `:` type($block_indices) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, or `1/sqrt(head_dim)` when it is absent.
    float getEffectiveSoftmaxScale();
    /// Whether `block_indices` is given per token ([batch, seq_len,
    /// num_kv_heads, S]) rather than per query block.
    bool hasPerTokenBlockIndices();
  }];
}

#endif // EJK_DIALECT_EJK_SPARSEOPS_TD
