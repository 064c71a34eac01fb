//===- AttentionOps.td - dense attention ops ---------------*- tablegen -*-===//
//
// The dense attention family: flash attention forward and backward,
// block-sparse attention, multi-head latent attention, ring attention.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_ATTENTIONOPS_TD
#define EJK_DIALECT_EJK_ATTENTIONOPS_TD

def Ejk_FlashAttentionOp : Ejk_Op<"flash_attention", [
    Pure, AttrSizedOperandSegments]> {
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
    - `softmax_aux` (optional): `[num_heads, num_sinks]` or `[num_sinks]`,
      f32: attention sinks, extra logits in every row's softmax denominator
      that carry no value (ejKernel's `softmax_aux`; `[num_sinks]` is
      shared by all heads)
    - `padding_mask` (optional): `[batch, seq]`, i1, `true` = a real token,
      with `seq = seq_q = seq_k`: ejKernel's 2-D `attention_mask` (its
      `MaskInfo.from_attention_mask`), which masks padded keys and padded
      queries alike
    - `cum_seqlens_q` / `cum_seqlens_k` (optional, each alone or both):
      `[batch + 1]`, i32: variable-length batches as ejKernel's
      `flash_attention` takes them: sequence `b` has
      `len_q[b] = cum_seqlens_q[b+1] - cum_seqlens_q[b]` queries (clamped
      to `[0, seq_q]`; `seq_q` without `cum_seqlens_q`) at rows
      `[0, len_q[b])` of batch row `b` of the padded `query`, and likewise
      `len_k[b]` keys in `key`/`value`
    - result `output`: `[batch, seq_q, num_heads, head_dim_v]`, the element
      type of `query`
    - result `lse` (optional): `[batch, num_heads, seq_q]`, f32, the natural
      log of the softmax denominator (the sinks included)

    `num_heads` must be a multiple of `num_kv_heads` (GQA/MQA): query head
    `h` reads key/value head `h / (num_heads / num_kv_heads)`.

    Reference formula, for each batch `b`, head `h`, query `i`, with
    `off = 0` (`mask_alignment = "top_left"`, the default) or
    `off = len_k[b] - len_q[b]` (`mask_alignment = "bottom_right"`;
    `seq_k - seq_q` without `cum_seqlens`):
    ```
    s_j = softmax_scale * dot(query[b,i,h], key[b,j,h'])
    s_j = cap * tanh(s_j / cap)                  if logits_soft_cap = cap
    s_j = s_j + bias[b,h,i,j]                    if bias
    allowed(j) = (!causal || j <= i + off)
              && (!sliding_window || (i + off - j <= left && j - (i + off) <= right))
              && mask[b,h,i,j] && q_segment_ids[b,i] == kv_segment_ids[b,j]
              && padding_mask[b,i] && padding_mask[b,j]
              && i < len_q[b] && j < len_k[b]
    m_i     = max(max_{allowed j} s_j, max_n softmax_aux[h,n])
    l_i     = sum_{allowed j} exp(s_j - m_i) + sum_n exp(softmax_aux[h,n] - m_i)
    lse_i   = m_i + log(l_i)
    p_j     = exp(s_j - lse_i)
    output[b,i,h] = sum_{allowed j} dropout(p_j) * value[b,j,h']
    ```
    With `normalize_output = false` (ejKernel's option, for callers that
    combine partial results themselves) the output is not divided by the
    denominator: `output[b,i,h] = sum_{allowed j} dropout(exp(s_j - m_i))
    * value[b,j,h']`, relative to the row's largest logit `m_i` (sinks
    included), as ejKernel's XLA path computes it; `lse` is unchanged.
    `mask_alignment` places the causal diagonal and the window's centre
    when `seq_q != seq_k`: `"top_left"` (the default, as ejKernel's
    `flash_attention`: query `i` sits on key `i`) or `"bottom_right"` (as
    FlashAttention-2: the last query sits on the last key; use it for decode
    or chunked prefill against a longer cache, where the queries are the
    newest tokens). With `seq_q == seq_k` both are the same.
    `sliding_window = array<i64: left, right>` keeps the keys within `left`
    before and `right` after the diagonal; `array<i64: w>` is the symmetric
    window `[w, w]` (ejKernel's int form). `softmax_scale` defaults to
    `1/sqrt(head_dim)`.
    Dropout keeps `p_j` scaled by `1/(1 - dropout_prob)` when the
    counter-based hash of `(dropout_seed, b, h, i, j)` (see
    `ejk/Support/DropoutHash.h`) says so and sets it to 0 otherwise; `lse`
    is computed before dropout. A row with no allowed key gives an output
    of 0 and `lse = -inf` (with sinks: the log-sum-exp of its sinks), never
    NaN; rows past `len_q[b]` and padded rows are such rows. Accumulation
    is in f32 for every element type.

    Differences from ejKernel's `flash_attention` (its XLA path; measured
    by test/Conformance, docs/conformance.md):
    - a row with no allowed key averages every value there (its mask is
      `finfo.min`, not `-inf`) and is 0 here; with sinks both give 0;
    - with a soft cap and a bias ejKernel caps the sum, `cap(s + bias)`,
      ejk adds the bias after the cap, `cap(s) + bias`;
    - sinks: ejKernel's XLA path adds them to the denominator once per key
      chunk of `kv_blocksize` keys (twice over 256 keys in chunks of 128),
      ejk once, as its docstring and FlashAttention's sinks define them;
      its XLA wrapper's type check takes `[num_sinks]` only, ejk also the
      per-head `[num_heads, num_sinks]` that its docstring names;
    - `cum_seqlens_q`/`_k`: ejKernel's XLA path reads no lengths (it
      requires an `attention_mask` that says them); ejk applies them as
      lengths, and with `mask_alignment = "bottom_right"` anchors the causal
      diagonal per sequence at `len_k[b] - len_q[b]`, as FlashAttention-2's
      varlen kernels and ejKernel's Triton path do;
    - `padding_mask` is ejKernel's 2-D `attention_mask` (through
      `MaskInfo`); the 4-D one is `mask`. A negative segment id masks a
      token in ejKernel and is an ordinary id here.

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
    Optional<AnyRankedTensor>:$softmax_aux,
    Optional<AnyRankedTensor>:$padding_mask,
    Optional<AnyRankedTensor>:$cum_seqlens_q,
    Optional<AnyRankedTensor>:$cum_seqlens_k,
    OptionalAttr<F32Attr>:$softmax_scale,
    UnitAttr:$causal,
    OptionalAttr<DenseI64ArrayAttr>:$sliding_window,
    OptionalAttr<StrAttr>:$mask_alignment,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<F32Attr>:$dropout_prob,
    OptionalAttr<I64Attr>:$dropout_seed,
    DefaultValuedAttr<BoolAttr, "true">:$normalize_output,
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
    (`softmax_aux` `(` $softmax_aux^ `:` type($softmax_aux) `)`)?
    (`padding_mask` `(` $padding_mask^ `:` type($padding_mask) `)`)?
    (`cum_seqlens_q` `(` $cum_seqlens_q^ `:` type($cum_seqlens_q) `)`)?
    (`cum_seqlens_k` `(` $cum_seqlens_k^ `:` type($cum_seqlens_k) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
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

def Ejk_FlashAttentionGradOp : Ejk_Op<"flash_attention_grad", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "FlashAttention backward: gradients of query, key and value";
  let description = [{
    Computes the gradients of `sum(output * d_output)` with respect to
    `query`, `key` and `value`, where `output` is the `ejk.flash_attention`
    forward with the same operands and options. Like FlashAttention-2's
    backward, it recomputes the probabilities block by block from `lse`
    instead of storing them.

    Layout (BSHD):
    - `query`, `key`, `value`, `bias`, `mask`, `q_segment_ids`,
      `kv_segment_ids`: as for `ejk.flash_attention`
    - `output`: `[batch, seq_q, num_heads, head_dim_v]`, the element type of
      `query`: the forward's `output`
    - `d_output`: `[batch, seq_q, num_heads, head_dim_v]`, the element type
      of `query`: the gradient flowing into `output`
    - `lse`: `[batch, num_heads, seq_q]`, f32: the forward's `lse`
    - results `d_query`, `d_key`, `d_value`: the shapes and element types of
      `query`, `key` and `value`

    - `softmax_aux` (optional): the forward's attention sinks, as for
      `ejk.flash_attention`. The kernels take them from `lse` (which
      includes them: `p_ij = exp(t_ij - lse)` is the forward's probability
      and `D_i` is unchanged, since a sink carries no value); the reference
      evaluator, which recomputes the softmax from `query` and `key`, reads
      them here. No gradient of `softmax_aux` is computed (ejKernel's
      custom VJP returns none either).

    - `padding_mask`, `cum_seqlens_q` / `cum_seqlens_k` (optional): the
      forward's, as for `ejk.flash_attention` (same shapes, element types
      and meaning): a padded row or one at `i >= len_q[b]` gets a zero
      `d_query`, a padded key or one at `j >= len_k[b]` a zero `d_key` and
      `d_value`, and `mask_alignment = "bottom_right"` anchors the causal
      diagonal at `len_k[b] - len_q[b]` per sequence, as in the forward.

    Attributes are those of `ejk.flash_attention`, with the same meaning;
    they must be the ones the forward ran with (the same `dropout_seed`
    re-creates the same dropout mask). `normalize_output = false` is
    rejected: the gradient of the unnormalized output needs each row's
    largest logit `m_i`, which the forward does not return (only `lse`).

    Reference formula, for each batch `b`, head `h` (reading key/value head
    `h'`), query `i` and key `j`, with `s_ij` the forward's logits before
    the soft cap and bias (`softmax_scale * dot(query[b,i,h], key[b,j,h'])`),
    `t_ij` the logits after them, and `z_ij` the dropout factor (0 or
    `1/(1 - dropout_prob)`, 1 without dropout):
    ```
    p_ij  = exp(t_ij - lse[b,h,i])               0 when j is not allowed
    dp_ij = z_ij * dot(d_output[b,i,h], value[b,j,h'])
    D_i   = dot(d_output[b,i,h], output[b,i,h])
    dt_ij = p_ij * (dp_ij - D_i)
    ds_ij = dt_ij * (1 - (tanh(s_ij / cap))^2)   if logits_soft_cap = cap
    ds_ij = dt_ij                                otherwise
    d_query[b,i,h]  = softmax_scale * sum_j ds_ij * key[b,j,h']
    d_key[b,j,h']   = softmax_scale * sum_{h in group(h')} sum_i ds_ij * query[b,i,h]
    d_value[b,j,h'] = sum_{h in group(h')} sum_i z_ij * p_ij * d_output[b,i,h]
    ```
    `group(h')` is the `num_heads / num_kv_heads` query heads that read
    key/value head `h'` (GQA/MQA). Rows with `lse = -inf` (no allowed key)
    contribute nothing. Accumulation is in f32 for every element type.

    ```mlir
    %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse {causal}
        : tensor<1x128x8x64xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16>,
          tensor<1x128x8x64xf16>, tensor<1x128x8x64xf16>, tensor<1x8x128xf32>
        -> tensor<1x128x8x64xf16>, tensor<1x128x2x64xf16>, tensor<1x128x2x64xf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$output,
    AnyRankedTensor:$d_output,
    AnyRankedTensor:$lse,
    Optional<AnyRankedTensor>:$bias,
    Optional<AnyRankedTensor>:$mask,
    Optional<AnyRankedTensor>:$q_segment_ids,
    Optional<AnyRankedTensor>:$kv_segment_ids,
    Optional<AnyRankedTensor>:$softmax_aux,
    Optional<AnyRankedTensor>:$padding_mask,
    Optional<AnyRankedTensor>:$cum_seqlens_q,
    Optional<AnyRankedTensor>:$cum_seqlens_k,
    OptionalAttr<F32Attr>:$softmax_scale,
    UnitAttr:$causal,
    OptionalAttr<DenseI64ArrayAttr>:$sliding_window,
    OptionalAttr<StrAttr>:$mask_alignment,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<F32Attr>:$dropout_prob,
    OptionalAttr<I64Attr>:$dropout_seed,
    DefaultValuedAttr<BoolAttr, "true">:$normalize_output,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$d_query,
    AnyRankedTensor:$d_key,
    AnyRankedTensor:$d_value
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $output `,` $d_output `,` $lse
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`q_segment_ids` `(` $q_segment_ids^ `:` type($q_segment_ids) `)`)?
    (`kv_segment_ids` `(` $kv_segment_ids^ `:` type($kv_segment_ids) `)`)?
    (`softmax_aux` `(` $softmax_aux^ `:` type($softmax_aux) `)`)?
    (`padding_mask` `(` $padding_mask^ `:` type($padding_mask) `)`)?
    (`cum_seqlens_q` `(` $cum_seqlens_q^ `:` type($cum_seqlens_q) `)`)?
    (`cum_seqlens_k` `(` $cum_seqlens_k^ `:` type($cum_seqlens_k) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    type($output) `,` type($d_output) `,` type($lse)
    `->` type($d_query) `,` type($d_key) `,` type($d_value)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
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

def Ejk_BlockSparseAttentionOp : Ejk_Op<"block_sparse_attention", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Attention restricted to the live blocks of a block-level mask";
  let description = [{
    Softmax attention in which query block `qb` (`q_block_size` queries)
    attends to key block `kb` (`kv_block_size` keys) only where the block
    mask and the attribute masks leave the block live. The kernels build,
    per query block, a compacted list of its live key blocks (a running
    count over the blocks, no atomics: bit-reproducible) and visit only
    those, so the time scales with the number of live blocks and a dead
    block is never loaded (as ejKernel's block-sparse attention and the
    splash-attention kernels).

    Layout (BSHD):
    - `query`: `[batch, seq_q, num_heads, head_dim]`, f32, f16 or bf16
    - `key`: `[batch, seq_k, num_kv_heads, head_dim]`, same element type
    - `value`: `[batch, seq_k, num_kv_heads, head_dim_v]`, same element type
    - `block_mask` (optional): `[batch | 1, num_heads | 1, num_q_blocks,
      num_kv_blocks]`, i1, `true` = the block may attend, with
      `num_q_blocks = ceil(seq_q / q_block_size)` and
      `num_kv_blocks = ceil(seq_k / kv_block_size)`; the last block of each
      axis may be partial. Absent, every block is live and only the
      attribute masks below apply.
    - `bias` (optional): `[batch | 1, num_heads | 1, seq_q, seq_k]`, float
    - `mask` (optional): `[batch | 1, num_heads | 1, seq_q, seq_k]`, i1,
      `true` = may attend (ejKernel's `attention_mask`)
    - `q_segment_ids` / `kv_segment_ids` (optional, both or neither):
      `[batch, seq_q]` / `[batch, seq_k]`, i32; a query attends only to keys
      of the same segment
    - result `output`: `[batch, seq_q, num_heads, head_dim_v]`, the element
      type of `query`
    - result `lse` (optional): `[batch, num_heads, seq_q]`, f32, the natural
      log of the softmax denominator

    `num_heads` must be a multiple of `num_kv_heads`: query head `h` reads
    key/value head `h' = h / (num_heads / num_kv_heads)`.

    Reference formula, for each batch `b`, head `h`, query `i`, with
    `d = i` (`mask_alignment = "top_left"`, the default, as ejKernel) or
    `d = i + seq_k - seq_q` (`"bottom_right"`):
    ```
    s_j = softmax_scale * dot(query[b,i,h], key[b,j,h'])
    s_j = cap * tanh(s_j / cap)                  if logits_soft_cap = cap
    s_j = s_j + bias[b,h,i,j]                    if bias
    allowed(j) = block_mask[b,h,i / q_block_size, j / kv_block_size]
              && (!causal || j <= d)
              && (!sliding_window || (d - j <= left && j - d <= right))
              && (!chunk_size || d / chunk_size == j / chunk_size)
              && mask[b,h,i,j] && q_segment_ids[b,i] == kv_segment_ids[b,j]
    lse_i = log(sum_{allowed j} exp(s_j))
    output[b,i,h] = sum_{allowed j} exp(s_j - lse_i) * value[b,j,h']
    ```
    (`block_mask`, `bias` and `mask` indices broadcast over size-1 dims.)
    The attribute masks compose by AND as ejKernel's mask builders do:
    `causal` alone is its `CausalMask`, `sliding_window = [left, right]`
    (or `[w]` for `[w, w]`) with `causal = false` its `LocalMask`, with
    `causal` (the default) a causal local window, and `chunk_size = c` with
    `causal` its `ChunkedCausalMask` (Llama 4's chunked attention).
    `causal` defaults to `true`, as in ejKernel's `blocksparse_attention`;
    write `causal = false` for bidirectional attention. `softmax_scale`
    defaults to `1/sqrt(head_dim)`. A row with no allowed key gives an
    output of 0 and `lse = -inf`, never NaN. Accumulation is in f32.

    Differences from ejKernel (documented in docs/ops/attention.md):
    ejKernel's XLA path takes no block mask (its `mask_builder` is unused
    there; a block mask is its `attention_mask` at block granularity) and
    rejects `bias`; it reads head 0 of a per-head `attention_mask` where
    ejk reads every head; a negative segment id masks the token there and is
    an ordinary id here; `q_positions`/`kv_positions` and attention sinks
    (`softmax_aux`) have no counterpart here yet.

    ```mlir
    %o = ejk.block_sparse_attention %q, %k, %v, %blocks
        {q_block_size = 64 : i64, kv_block_size = 64 : i64}
        : tensor<1x256x8x64xbf16>, tensor<1x256x8x64xbf16>,
          tensor<1x256x8x64xbf16>, tensor<1x1x4x4xi1>
        -> tensor<1x256x8x64xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
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
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$lse
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value (`,` $block_mask^)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`q_segment_ids` `(` $q_segment_ids^ `:` type($q_segment_ids) `)`)?
    (`kv_segment_ids` `(` $kv_segment_ids^ `:` type($kv_segment_ids) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    (`,` type($block_mask)^)? `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
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

def Ejk_MlaOp : Ejk_Op<"mla", [Pure]> {
  let summary = "Multi-head latent attention (DeepSeek-V2/V3, weight-absorbed)";
  let description = [{
    Multi-head latent attention in the weight-absorbed form that FlashMLA
    runs: every head attends over one compressed KV cache (`kv_latent`,
    DeepSeek's `c_KV`) plus one decoupled RoPE key shared by all heads. The
    caller has already multiplied the no-RoPE part of the query by the key
    up-projection (so `q_latent` lives in the latent space) and applies the
    value up-projection to `output` afterwards.

    Layout:
    - `q_latent`: `[batch, seq_q, num_heads, latent_dim]`, f32, f16 or
      bf16; `latent_dim` is DeepSeek's `kv_lora_rank` (512 in V2/V3)
    - `q_rope`: `[batch, seq_q, num_heads, rope_dim]`, same element type;
      `rope_dim` is `qk_rope_head_dim` (64 in V2/V3)
    - `kv_latent`: `[batch, seq_k, latent_dim]`, same element type, shared by
      every head (it is both the key and the value)
    - `k_rope`: `[batch, seq_k, rope_dim]`, same element type, shared by
      every head
    - result `output`: `[batch, seq_q, num_heads, latent_dim]`, the element
      type of `q_latent`
    - result `lse` (optional): `[batch, num_heads, seq_q]`, f32

    Reference formula, for each batch `b`, head `h`, query `i`, with
    `off = seq_k - seq_q`:
    ```
    s_j = softmax_scale * (dot(q_latent[b,i,h], kv_latent[b,j])
                         + dot(q_rope[b,i,h], k_rope[b,j]))
    allowed(j) = !causal || j <= i + off
    lse_i = log(sum_{allowed j} exp(s_j))
    output[b,i,h] = sum_{allowed j} exp(s_j - lse_i) * kv_latent[b,j]
    ```
    `causal` is bottom-right aligned (decode: `seq_q` new tokens at the end
    of `seq_k`). A row with no allowed key gives 0 and `lse = -inf`.
    Accumulation is in f32.

    Softmax scale: `softmax_scale` when set; else, when `qk_nope_head_dim`
    (DeepSeek's head dim of the no-RoPE query/key before absorption, 128
    in V2/V3) is set, `1/sqrt(qk_nope_head_dim + rope_dim)` (`1/sqrt(192)`
    in V2/V3: the scale the models use); else `1/sqrt(latent_dim +
    rope_dim)` (FlashMLA's and ejKernel's
    `multi_latent_ragged_page_attention` default, `1/sqrt(576)` in V2/V3,
    which is not the models' scale). A model with YaRN scaling (V3) passes
    `softmax_scale` (its `mscale^2 / sqrt(192)`).

    Differences from ejKernel: ejKernel's `flash_mla` is the un-absorbed
    form (it projects the latent cache with `w_kc`/`w_vc` inside, shares a
    query RoPE `b_q` across heads and aligns `causal` top-left); it equals
    this op with `q_latent = q_nope @ w_kc^T` per head and `output @ w_vc`
    (docs/ops/latent.md), up to the causal alignment, which only matters
    when `seq_q != seq_k`. FlashMLA's extra `h_kv = 1` cache dimension is
    dropped (MLA's cache has one latent head).

    ```mlir
    %o, %lse = ejk.mla %ql, %qr, %ckv, %kr {causal, softmax_scale = 0.0721 : f32}
        : tensor<4x1x128x512xbf16>, tensor<4x1x128x64xbf16>,
          tensor<4x4096x512xbf16>, tensor<4x4096x64xbf16>
        -> tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$q_latent,
    AnyRankedTensor:$q_rope,
    AnyRankedTensor:$kv_latent,
    AnyRankedTensor:$k_rope,
    OptionalAttr<F32Attr>:$softmax_scale,
    OptionalAttr<I64Attr>:$qk_nope_head_dim,
    UnitAttr:$causal,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$lse
  );
  let assemblyFormat = [{
    $q_latent `,` $q_rope `,` $kv_latent `,` $k_rope
    attr-dict `:` type($q_latent) `,` type($q_rope) `,` type($kv_latent) `,`
    type($k_rope) `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, else `1/sqrt(qk_nope_head_dim + rope_dim)`, else
    /// `1/sqrt(latent_dim + rope_dim)`.
    float getEffectiveSoftmaxScale();
  }];
}

def Ejk_PagedMlaOp : Ejk_Op<"paged_mla", [Pure]> {
  let summary = "Multi-head latent attention over a paged latent cache "
                "(varlen, mixed prefill and decode)";
  let description = [{
    `ejk.mla` over a paged latent cache with packed variable-length query
    runs, as ejKernel's `multi_latent_ragged_page_attention` (and vLLM /
    FlashMLA's paged decode) serve DeepSeek-V2/V3: the queries of every
    sequence are packed along one token axis, each sequence's cache is a
    list of pages, and the whole latent row of a token (its `c_KV` then
    its RoPE key) lies in one page slot.

    Layout:
    - `q_latent`: `[num_tokens, num_heads, latent_dim]`, f32, f16 or bf16
      (the absorbed no-RoPE query, as in `ejk.mla`)
    - `q_rope`: `[num_tokens, num_heads, rope_dim]`, same element type
      (`rope_dim` may be 0)
    - `kv_cache`: `[num_pages, page_size, latent_dim + rope_dim]`, same
      element type: the latent (key and value) then the RoPE key of each
      token
    - `context_lens`: `[num_seqs]`, i32: tokens of each sequence's cache,
      its new tokens included
    - `block_tables`: `[num_seqs, max_pages_per_seq]`, i32: the pages of
      each sequence, in order
    - `query_start_loc`: `[num_seqs + 1]`, i32: sequence `s` owns the query
      tokens `[query_start_loc[s], query_start_loc[s+1])`
    - result `output`: `[num_tokens, num_heads, latent_dim]`, the element
      type of `q_latent`
    - result `lse` (optional): `[num_tokens, num_heads]`, f32

    Semantics, for sequence `s` with `q_len = query_start_loc[s+1] -
    query_start_loc[s]` and `kv_len = context_lens[s]`, its query token
    `i` (packed row `query_start_loc[s] + i`) sits at position `pos =
    kv_len - q_len + i` and attends causally to the cache tokens `j <=
    pos`, `j < kv_len` (token `j` is slot `j % page_size` of page
    `block_tables[s, j / page_size]`):
    ```
    s_j = softmax_scale * (dot(q_latent[t,h], latent_j) + dot(q_rope[t,h], rope_j))
    lse[t,h] = log(sum_{j <= pos, j < kv_len} exp(s_j))
    output[t,h] = sum_{j} exp(s_j - lse[t,h]) * latent_j
    ```
    A decode step is `q_len = 1` (the query sees the whole cache); a
    prefill chunk is `q_len = kv_len`. Rows with no visible token, and
    packed rows outside every sequence, give 0 and `lse = -inf`. Guards as
    `ejk.paged_attention`: `kv_len` is clamped to `[0, max_pages_per_seq *
    page_size]`, `query_start_loc` to `[0, num_tokens]` and a page index to
    the cache. Accumulation is in f32. `softmax_scale` defaults as in
    `ejk.mla` (`1/sqrt(qk_nope_head_dim + rope_dim)` when
    `qk_nope_head_dim` is set, else `1/sqrt(latent_dim + rope_dim)`).

    Differences from ejKernel's `multi_latent_ragged_page_attention`: the
    op is value-semantic and reads the cache only (ejKernel also writes the
    step's new latent rows into the cache first: write them with a scatter
    before this op); the cache row is `latent_dim + rope_dim` wide, not
    padded to multiples of 128 and without the 32-bit packing axis;
    `block_tables` is 2-D (ejKernel: flattened); every sequence of
    `context_lens` is processed (ejKernel: the first `distribution[2]`; a
    sequence with `q_len = 0` costs nothing); the optional `lse` is ejk's;
    `sliding_window`, `logits_soft_cap` and the fp8 `q/k/v_scale` are not
    supported.

    ```mlir
    %o, %lse = ejk.paged_mla %ql, %qr, %cache, %lens, %tables, %starts
        {softmax_scale = 0.0721 : f32}
        : tensor<32x128x512xbf16>, tensor<32x128x64xbf16>,
          tensor<2048x64x576xbf16>, tensor<32xi32>, tensor<32x64xi32>,
          tensor<33xi32> -> tensor<32x128x512xbf16>, tensor<32x128xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$q_latent,
    AnyRankedTensor:$q_rope,
    AnyRankedTensor:$kv_cache,
    AnyRankedTensor:$context_lens,
    AnyRankedTensor:$block_tables,
    AnyRankedTensor:$query_start_loc,
    OptionalAttr<F32Attr>:$softmax_scale,
    OptionalAttr<I64Attr>:$qk_nope_head_dim,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$lse
  );
  let assemblyFormat = [{
    $q_latent `,` $q_rope `,` $kv_cache `,` $context_lens `,` $block_tables
    `,` $query_start_loc attr-dict `:` type($q_latent) `,` type($q_rope) `,`
    type($kv_cache) `,` type($context_lens) `,` type($block_tables) `,`
    type($query_start_loc) `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// As `ejk.mla`'s.
    float getEffectiveSoftmaxScale();
  }];
}

def Ejk_RingAttentionOp : Ejk_Op<"ring_attention", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Sequence-parallel attention over a ring of processes";
  let description = [{
    Ring attention (Liu et al.): the sequence is split into `ring_size`
    equal shards, one per process of the process axis `axis_name`; each
    process holds its shard of queries, keys and values. Key/value shards
    travel around the ring in `ring_size` steps; at each step the process
    runs one flash-attention block of its queries against the shard it
    holds and folds it into an online softmax, so the result equals
    attention over the whole sequence.

    Layout (BSHD), all operands being this process's shard of `seq`
    tokens:
    - `query`: `[batch, seq_q, num_heads, head_dim]`, f32, f16 or bf16
    - `key`: `[batch, seq_k, num_kv_heads, head_dim]`, same element type,
      `seq_k = seq_q`
    - `value`: `[batch, seq_k, num_kv_heads, head_dim_v]`, same element type
    - `q_segment_ids` / `kv_segment_ids` (optional, both or neither):
      `[batch, seq_q]` / `[batch, seq_k]`, i32, of this shard
      (`kv_segment_ids` travel around the ring with their keys)
    - result `output`: `[batch, seq_q, num_heads, head_dim_v]`, the element
      type of `query`
    - result `lse` (optional): `[batch, num_heads, seq_q]`, f32, over the
      keys of all shards

    `num_heads` must be a multiple of `num_kv_heads` (GQA/MQA).

    Semantics: on the process of rank `r` along `axis_name`, `output` is
    `ejk.flash_attention` of the local queries over the concatenation, in
    rank order, of the `ring_size` key/value shards, with global positions:
    local query `i` is at `I = r * seq + i` and key `j` of the shard of rank
    `r'` at `J = r' * seq + j`. With `K`, `V` and `KS` the concatenations
    along the sequence of every rank's `key`, `value` and `kv_segment_ids`:
    ```
    s_J = softmax_scale * dot(query[b,i,h], K[b,J,h'])
    s_J = cap * tanh(s_J / cap)                  if logits_soft_cap = cap
    allowed(J) = (!causal || J <= I)
              && (!sliding_window || (I - J <= left && J - I <= right))
              && q_segment_ids[b,i] == KS[b,J]
    lse_i = log(sum_{allowed J} exp(s_J))
    output[b,i,h] = sum_{allowed J} exp(s_J - lse_i) * V[b,J,h']
    ```
    `softmax_scale` defaults to `1/sqrt(head_dim)`. With `causal`, shards
    of a higher rank than `r` contribute nothing (steps are still taken so
    that the ring keeps moving). A row with no allowed key gives 0 and
    `lse = -inf`. Accumulation is in f32.

    ```mlir
    %o = ejk.ring_attention %q, %k, %v
        {ring_size = 8 : i64, axis_name = "sp", causal}
        : tensor<1x4096x32x128xbf16>, tensor<1x4096x8x128xbf16>,
          tensor<1x4096x8x128xbf16> -> tensor<1x4096x32x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    Optional<AnyRankedTensor>:$q_segment_ids,
    Optional<AnyRankedTensor>:$kv_segment_ids,
    I64Attr:$ring_size,
    OptionalAttr<StrAttr>:$axis_name,
    OptionalAttr<F32Attr>:$softmax_scale,
    UnitAttr:$causal,
    OptionalAttr<DenseI64ArrayAttr>:$sliding_window,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$lse
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value
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
