//===- PagedOps.td - paged and ragged attention ops --------*- tablegen -*-===//
//
// Attention over a paged KV cache: paged decode, ragged mixed
// prefill+decode, chunked prefill.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_PAGEDOPS_TD
#define EJK_DIALECT_EJK_PAGEDOPS_TD

def Ejk_PagedAttentionOp : Ejk_Op<"paged_attention", [Pure]> {
  let summary = "Decode attention over a paged KV cache";
  let description = [{
    One new query token per sequence attends over that sequence's cached
    keys and values, which live in fixed-size pages of a shared pool
    (ejKernel's `page_attention`, vLLM's PagedAttention).

    Layout:
    - `query`: `[batch, num_heads, head_dim]`, f32, f16 or bf16
    - `key_cache`: the pages, f32, f16, bf16 or i8 (a quantized cache, see
      `k_scale`), in the layout `kv_layout`
      names: `"head_major"` (the default, ejKernel's):
      `[num_pages, num_kv_heads, page_size, head_dim]`; `"token_major"`
      (vLLM's and FlashInfer's): `[num_pages, page_size, num_kv_heads,
      head_dim]`. Its element type may differ from that of `query` (an f16
      cache read by f32 queries)
    - `value_cache`: the shape and element type of `key_cache`
    - `context_lens`: `[batch]`, i32: the number of cached tokens of each
      sequence
    - `block_tables`: `[batch, max_pages_per_seq]`, i32: the pages of each
      sequence, in token order
    - result `output`: `[batch, num_heads, head_dim]`, the element type of
      `query`
    - result `lse` (optional): `[batch, num_heads]`, f32, the natural log
      of each row's softmax denominator (`-inf` for an empty sequence)

    `num_heads` must be a multiple of `num_kv_heads`: query head `h` reads
    cache head `h' = h / (num_heads / num_kv_heads)`. Token `t` of sequence
    `b` is at page `block_tables[b, t / page_size]`, slot `t % page_size`.

    Reference formula, for each sequence `b`, head `h`, with
    `L = context_lens[b]` (clamped to `[0, max_pages_per_seq * page_size]`):
    ```
    K_t = key_cache[page(b, t), h', t % page_size]     (head_major)
    V_t = value_cache[page(b, t), h', t % page_size]
    s_t = softmax_scale * k_scale * dot(query[b,h], K_t)
    s_t = cap * tanh(s_t / cap)                  if logits_soft_cap = cap
    allowed(t) = 0 <= t < L && (!sliding_window || L - 1 - t < sliding_window)
    lse[b,h]    = log(sum_{allowed t} exp(s_t))
    output[b,h] = v_scale * sum_{allowed t} exp(s_t - lse[b,h]) * V_t
    ```
    so `sliding_window = w` attends to the last `w` tokens (ejKernel's
    convention). `softmax_scale` defaults to `1/sqrt(head_dim)`; `k_scale`
    and `v_scale` (default 1) are the dequantization scales of the cache,
    as ejKernel's `ragged_page_attention_v3` applies them: an i8 cache holds
    `round(K / k_scale)`, and any cache type may carry them. Cache elements
    are converted to f32 and accumulation is in f32. A sequence
    with `L = 0` gives an output of 0 and `lse = -inf`. Entries of
    `block_tables` past `ceil(L / page_size)` are not read; a page index
    outside `[0, num_pages)` is clamped into it by the kernels (never an
    out-of-bounds read), and `ejk-run` refuses such tables unless told
    otherwise (`--validate-inputs=false`).

    Split-K (ejKernel's `num_splits`) is a config entry, not an attribute:
    it changes the schedule, never the result beyond rounding.

    ```mlir
    %o, %lse = ejk.paged_attention %q, %kc, %vc, %lens, %tables
        : tensor<8x32x128xf16>, tensor<1024x8x16x128xf16>,
          tensor<1024x8x16x128xf16>, tensor<8xi32>, tensor<8x256xi32>
        -> tensor<8x32x128xf16>, tensor<8x32xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key_cache,
    AnyRankedTensor:$value_cache,
    AnyRankedTensor:$context_lens,
    AnyRankedTensor:$block_tables,
    OptionalAttr<F32Attr>:$softmax_scale,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<I64Attr>:$sliding_window,
    OptionalAttr<StrAttr>:$kv_layout,
    OptionalAttr<F32Attr>:$k_scale,
    OptionalAttr<F32Attr>:$v_scale,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$lse
  );
  let assemblyFormat = [{
    $query `,` $key_cache `,` $value_cache `,` $context_lens `,` $block_tables
    attr-dict `:` type($query) `,` type($key_cache) `,` type($value_cache) `,`
    type($context_lens) `,` type($block_tables) `->` type($output)
    (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, or `1/sqrt(head_dim)` when it is absent.
    float getEffectiveSoftmaxScale();
    /// Whether the cache pages are `[num_pages, page_size, num_kv_heads,
    /// head_dim]` (`kv_layout = "token_major"`); head-major otherwise.
    bool isTokenMajor() {
      return getKvLayout() == ::llvm::StringRef("token_major");
    }
  }];
}

def Ejk_RaggedPagedAttentionOp : Ejk_Op<"ragged_paged_attention",
    [Pure, AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let summary = "Mixed prefill and decode attention over a paged KV cache";
  let description = [{
    Attention for a batch that mixes prefill chunks and decode steps: the
    query tokens of all sequences are packed along one axis and every
    sequence reads its keys and values from a paged cache (ejKernel's
    `ragged_page_attention_v2` and `_v3`, vLLM TPU's ragged paged
    attention). A decode step is a sequence with one query. With
    `new_kv(...)` the op is v3's fused form: the new tokens' keys and values
    are written into the cache first, attention reads the written cache, and
    the updated pools are results.

    Layout:
    - `queries`: `[num_tokens, num_heads, head_dim]`, f32, f16 or bf16: the
      new tokens of every sequence, packed in sequence order
    - `key_pages`: the pages, f32, f16, bf16 or i8 (quantized, see
      `k_scale`), in the layout `kv_layout` names: `"token_major"` (the
      default, ejKernel's and vLLM's): `[num_pages, page_size, num_kv_heads,
      head_dim]`; `"head_major"`: `[num_pages, num_kv_heads, page_size,
      head_dim]`. Its element type may differ from that of `queries`
    - `value_pages`: the shape and element type of `key_pages`
    - `kv_lens`: `[num_seqs]`, i32: the number of tokens of each sequence
      slot, the new ones included
    - `page_indices`: `[num_seqs, pages_per_seq]`, i32: the pages of each
      sequence, in token order
    - `cu_q_lens`: `[num_seqs + 1]`, i32, cumulative query lengths
      (ejKernel's `query_start_loc`): sequence `s` owns
      `queries[cu_q_lens[s] .. cu_q_lens[s+1] - 1]`
    - `num_seqs`: `[1]`, i32: the number of live sequences (ejKernel v3's
      `distribution[2]`); the slots from `num_seqs[0]` on are padding and
      are not read
    - `new_kv(new_keys, new_values)` (optional, v3): `[num_tokens,
      num_kv_heads, head_dim]` each, float: the keys and values of the new
      tokens, packed as `queries`
    - `sinks(softmax_aux)` (optional): `[num_heads]`, float: a logit per
      head that joins every row's softmax denominator (attention sinks)
    - result `output`: `[num_tokens, num_heads, head_dim]`, the element type
      of `queries`
    - results `updated_key_pages`, `updated_value_pages` (exactly when
      `new_kv` is given): the types of `key_pages` and `value_pages`

    `num_heads` must be a multiple of `num_kv_heads`: query head `h` reads
    cache head `h' = h / (num_heads / num_kv_heads)`. Token `t` of sequence
    `s` is at page `page_indices[s, t / page_size]`, slot `t % page_size`.

    Reference formula, for each live sequence `s < num_seqs[0]`, head `h`
    and query `i` of it, with `q_len = cu_q_lens[s+1] - cu_q_lens[s]`,
    `L = kv_lens[s]` and `p = L - q_len + i` the query's position:
    ```
    (with new_kv: for j < q_len, token L - q_len + j of sequence s is
     overwritten by new_keys/new_values[cu_q_lens[s] + j], converted to the
     cache type as ejKernel v3 writes them: not divided by k_scale/v_scale;
     an i8 cache gets them rounded to nearest and clamped to [-128, 127])
    K_t = key_pages[page_indices[s, t / page_size], t % page_size, h']
    V_t = value_pages[page_indices[s, t / page_size], t % page_size, h']
    s_t = softmax_scale * k_scale * dot(queries[cu_q_lens[s] + i, h], K_t)
    s_t = cap * tanh(s_t / cap)                  if logits_soft_cap = cap
    allowed(t) = 0 <= t <= p && (!sliding_window || p - t < sliding_window)
    Z = sum_{allowed t} exp(s_t) + (sinks ? exp(softmax_aux[h]) : 0)
    output[cu_q_lens[s] + i, h] = v_scale * sum_{allowed t} exp(s_t) / Z * V_t
    ```
    Attention is causal within each sequence (bottom-right aligned) and
    never crosses sequences; `sliding_window = w` shows a query its last
    `w` positions, itself included (ejKernel v2/v3). `softmax_scale`
    defaults to `1/sqrt(head_dim)`. Query rows owned by no live sequence,
    and rows with no allowed token, give an output of 0. Accumulation is
    in f32.

    Bad index data never reads out of bounds: `cu_q_lens` is clamped to be
    non-decreasing within `[0, num_tokens]`, `num_seqs` to
    `[0, num_seqs slots]`, `L` to `[0, pages_per_seq * page_size]`, page
    indices into `[0, num_pages)`, and the new tokens of a sequence with
    `L < q_len` that would land before token 0 are not written (their rows
    see no token). `ejk-run` refuses such inputs unless told otherwise.

    The op is a pure value: the updated pools are new tensors. A caller
    that donates `key_pages`/`value_pages` (ejKernel's `donate_argnums`)
    may bind each result to its operand's buffer; ejk's compiled dispatch
    copies the pools into the result buffers and writes the new tokens
    there (docs/ops/paged.md).

    ```mlir
    %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu_q_lens, %n
        {sliding_window = 4096 : i64}
        : tensor<512x32x128xbf16>, tensor<2048x16x8x128xbf16>,
          tensor<2048x16x8x128xbf16>, tensor<16xi32>, tensor<16x128xi32>,
          tensor<17xi32>, tensor<1xi32>
        -> tensor<512x32x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$queries,
    AnyRankedTensor:$key_pages,
    AnyRankedTensor:$value_pages,
    AnyRankedTensor:$kv_lens,
    AnyRankedTensor:$page_indices,
    AnyRankedTensor:$cu_q_lens,
    AnyRankedTensor:$num_seqs,
    Optional<AnyRankedTensor>:$new_keys,
    Optional<AnyRankedTensor>:$new_values,
    Optional<AnyRankedTensor>:$softmax_aux,
    OptionalAttr<F32Attr>:$softmax_scale,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<I64Attr>:$sliding_window,
    OptionalAttr<StrAttr>:$kv_layout,
    OptionalAttr<F32Attr>:$k_scale,
    OptionalAttr<F32Attr>:$v_scale,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$updated_key_pages,
    Optional<AnyRankedTensor>:$updated_value_pages
  );
  let assemblyFormat = [{
    $queries `,` $key_pages `,` $value_pages `,` $kv_lens `,` $page_indices
    `,` $cu_q_lens `,` $num_seqs
    (`new_kv` `(` $new_keys^ `,` $new_values `:` type($new_keys) `,`
      type($new_values) `)`)?
    (`sinks` `(` $softmax_aux^ `:` type($softmax_aux) `)`)?
    attr-dict `:` type($queries) `,` type($key_pages) `,` type($value_pages)
    `,` type($kv_lens) `,` type($page_indices) `,` type($cu_q_lens) `,`
    type($num_seqs) `->` type($output)
    (`,` type($updated_key_pages)^ `,` type($updated_value_pages))?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, or `1/sqrt(head_dim)` when it is absent.
    float getEffectiveSoftmaxScale();
    /// Whether the pages are `[num_pages, page_size, num_kv_heads,
    /// head_dim]` (the default); head-major with `kv_layout =
    /// "head_major"`.
    bool isTokenMajor() {
      return getKvLayout() != ::llvm::StringRef("head_major");
    }
  }];
}

def Ejk_PrefillPagedAttentionOp : Ejk_Op<"prefill_paged_attention", [Pure]> {
  let summary = "Chunked prefill attention over a paged KV cache";
  let description = [{
    A chunk of `seq_q` new tokens per sequence attends causally over the
    sequence's cached tokens, the chunk's own keys and values included
    (they must already be written to the cache): ejKernel's
    `prefill_page_attention`, batched. It is `ejk.ragged_paged_attention`
    with `seq_q` queries per sequence and every sequence live, and it runs
    on that op's kernels.

    Layout:
    - `query`: `[batch, seq_q, num_heads, head_dim]`, f32, f16 or bf16: the
      new chunk
    - `key_cache`: the pages, f32, f16 or bf16, in the layout `kv_layout`
      names: `"token_major"` (the default): `[num_pages, page_size,
      num_kv_heads, head_dim]`; `"head_major"`: `[num_pages, num_kv_heads,
      page_size, head_dim]` (ejKernel's `[num_kv_heads, num_pages,
      page_size, head_dim]` is that with the first two dims swapped). Its
      element type may differ from that of `query`
    - `value_cache`: the shape and element type of `key_cache`
    - `context_lens`: `[batch]`, i32: the length of each sequence, the chunk
      included
    - `block_tables`: `[batch, max_pages_per_seq]`, i32: the pages of each
      sequence, in token order
    - result `output`: `[batch, seq_q, num_heads, head_dim]`, the element
      type of `query`

    `num_heads` must be a multiple of `num_kv_heads`: query head `h` reads
    cache head `h / (num_heads / num_kv_heads)`. Token `t` of sequence `b`
    is at page `block_tables[b, t / page_size]`, slot `t % page_size`.

    Reference formula, for each sequence `b`, head `h`, query `i`, with
    `L = context_lens[b]` (clamped to `[0, max_pages_per_seq * page_size]`)
    and `p = L - seq_q + i`:
    ```
    K_t = key_cache[block_tables[b, t / page_size], t % page_size, h']
    V_t = value_cache[block_tables[b, t / page_size], t % page_size, h']
    s_t = softmax_scale * dot(query[b,i,h], K_t)
    s_t = cap * tanh(s_t / cap)                  if logits_soft_cap = cap
    allowed(t) = 0 <= t <= p && (!sliding_window || p - t < sliding_window)
    output[b,i,h] = sum_{allowed t} softmax(s)_t * V_t
    ```
    i.e. causal, bottom-right aligned: the chunk is the last `seq_q` tokens
    of the sequence; `sliding_window = w` shows a query its last `w`
    positions, itself included (ejKernel's convention). `softmax_scale`
    defaults to `1/sqrt(head_dim)`. A query with no allowed token
    (`p < 0`) gives an output of 0 (ejKernel averages every value there).
    Accumulation is in f32.

    ```mlir
    %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables
        {config = #ejk.config<block_q = 16, block_k = 64>}
        : tensor<2x512x32x128xbf16>, tensor<1024x16x8x128xbf16>,
          tensor<1024x16x8x128xbf16>, tensor<2xi32>, tensor<2x256xi32>
        -> tensor<2x512x32x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key_cache,
    AnyRankedTensor:$value_cache,
    AnyRankedTensor:$context_lens,
    AnyRankedTensor:$block_tables,
    OptionalAttr<F32Attr>:$softmax_scale,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<I64Attr>:$sliding_window,
    OptionalAttr<StrAttr>:$kv_layout,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $query `,` $key_cache `,` $value_cache `,` $context_lens `,` $block_tables
    attr-dict `:` type($query) `,` type($key_cache) `,` type($value_cache) `,`
    type($context_lens) `,` type($block_tables) `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, or `1/sqrt(head_dim)` when it is absent.
    float getEffectiveSoftmaxScale();
    /// Whether the pages are token-major (the default).
    bool isTokenMajor() {
      return getKvLayout() != ::llvm::StringRef("head_major");
    }
  }];
}

def Ejk_UnifiedAttentionOp : Ejk_Op<"unified_attention",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "vLLM-style attention over packed queries and a paged KV cache";
  let description = [{
    ejKernel's `unified_attention` (vLLM's unified attention, names
    `cu_seqlens_q` = `query_start_loc`, `seqused_k` = `kv_lens`,
    `block_table` = `block_tables`): the query tokens of every sequence are
    packed along one axis, mixing prefill chunks and decode steps, and every
    sequence reads its keys and values from a paged cache. It is
    `ejk.ragged_paged_attention` with every sequence slot live, token-major
    pages, ALiBi slopes and a query-query bias, and runs on that op's
    kernels.

    Layout (ejKernel's names and order):
    - `queries`: `[num_tokens, num_heads, head_dim]`, f32, f16 or bf16
    - `key_cache`: `[num_blocks, block_size, num_kv_heads, head_dim]`, f32,
      f16 or bf16; its element type may differ from that of `queries`
    - `value_cache`: the shape and element type of `key_cache`
    - `kv_lens`: `[num_seqs]`, i32: the tokens of each sequence, the new
      ones included
    - `block_tables`: `[num_seqs, max_blocks_per_seq]`, i32: the blocks of
      each sequence, in token order
    - `query_start_loc`: `[num_seqs + 1]`, i32: sequence `s` owns
      `queries[query_start_loc[s] .. query_start_loc[s+1] - 1]`
    - `alibi(alibi_slopes)` (optional): `[num_heads]`, float: ALiBi slopes
    - `qq_bias(qq_bias)` (optional): `[n, n]`, float: an additive bias
      between the first `n` queries of a sequence and its first `n` new
      tokens
    - `sinks(softmax_aux)` (optional): `[num_heads]`, float: a logit per
      head that joins every row's softmax denominator (attention sinks)
    - result `output`: `[num_tokens, num_heads, head_dim]`, the element type
      of `queries`

    Reference formula, for each sequence `s`, head `h` and query `i` of it,
    with `q_len = query_start_loc[s+1] - query_start_loc[s]`,
    `L = kv_lens[s]`, `c = L - q_len` (the cached context) and `p = c + i`
    the query's position; `h'` is `h / (num_heads / num_kv_heads)`:
    ```
    K_t = key_cache[block_tables[s, t / block_size], t % block_size, h']
    s_t = softmax_scale * dot(queries[query_start_loc[s] + i, h], K_t)
    s_t += alibi_slopes[h] * (t - c)                     if alibi
    s_t += qq_bias[i, t - c]         if qq_bias, i < n and 0 <= t - c < n
    s_t = cap * tanh(s_t / cap)                  if logits_soft_cap = cap
    allowed(t) = 0 <= t <= p && (!sliding_window || p - t < sliding_window)
    Z = sum_{allowed t} exp(s_t) + (sinks ? exp(softmax_aux[h]) : 0)
    output[query_start_loc[s] + i, h] = sum_{allowed t} exp(s_t) / Z * V_t
    ```
    Causal within each sequence, bottom-right aligned; `sliding_window = w`
    shows a query its last `w` positions, itself included (ejKernel's
    kernel masks `t < p - w + 1`). `softmax_scale` defaults to
    `1/sqrt(head_dim)`. Rows owned by no sequence, and rows with no
    allowed token, give 0. Accumulation is in f32.

    Differences to ejKernel, on purpose: the op is always causal (ejKernel
    raises for `causal=False`); ejKernel's `sliding_window` of `None` or
    `<= 0` and `logits_soft_cap` of `None` or `<= 0` mean "none" and are
    written here by leaving the attribute out (the verifier rejects
    values below 1 and non-positive caps); `seq_threshold_3d`,
    `num_par_softmax_segments`, `block_dim`, `num_warps` and `num_stages`
    steer other backends' schedules and have no counterpart (the config
    does that). Bad index data never reads out of bounds: `query_start_loc`
    is clamped non-decreasing into `[0, num_tokens]`, `L` into
    `[0, max_blocks_per_seq * block_size]` and block indices into the
    cache (ejKernel leaves these to XLA's clamping gathers); `ejk-run`
    refuses such inputs unless told otherwise.

    ```mlir
    %o = ejk.unified_attention %q, %kc, %vc, %kv_lens, %tables, %starts
        sinks(%aux : tensor<32xf32>) {sliding_window = 4096 : i64}
        : tensor<512x32x128xbf16>, tensor<2048x16x8x128xbf16>,
          tensor<2048x16x8x128xbf16>, tensor<16xi32>, tensor<16x128xi32>,
          tensor<17xi32> -> tensor<512x32x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$queries,
    AnyRankedTensor:$key_cache,
    AnyRankedTensor:$value_cache,
    AnyRankedTensor:$kv_lens,
    AnyRankedTensor:$block_tables,
    AnyRankedTensor:$query_start_loc,
    Optional<AnyRankedTensor>:$alibi_slopes,
    Optional<AnyRankedTensor>:$qq_bias,
    Optional<AnyRankedTensor>:$softmax_aux,
    OptionalAttr<F32Attr>:$softmax_scale,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<I64Attr>:$sliding_window,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $queries `,` $key_cache `,` $value_cache `,` $kv_lens `,` $block_tables
    `,` $query_start_loc
    (`alibi` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`qq_bias` `(` $qq_bias^ `:` type($qq_bias) `)`)?
    (`sinks` `(` $softmax_aux^ `:` type($softmax_aux) `)`)?
    attr-dict `:` type($queries) `,` type($key_cache) `,` type($value_cache)
    `,` type($kv_lens) `,` type($block_tables) `,` type($query_start_loc)
    `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts (ragged_paged_attention's).
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, or `1/sqrt(head_dim)` when it is absent.
    float getEffectiveSoftmaxScale();
    /// The cache is always token-major.
    bool isTokenMajor() { return true; }
  }];
}

def Ejk_RaggedDecodeAttentionOp : Ejk_Op<"ragged_decode_attention",
    [Pure]> {
  let summary = "Decode attention over ragged ranges of a dense KV cache";
  let description = [{
    ejKernel's `ragged_decode_attention`: one query token per sequence
    attends over the keys and values `[sequence_start, sequence_end)` of its
    row of a dense (not paged) cache. It runs on the kernels of
    `ejk.paged_attention`, each sequence's row of the cache one page.

    Layout:
    - `query`: `[batch, num_heads, head_dim]`, f32, f16 or bf16
    - `key`: `[batch, seq_len, num_kv_heads, head_dim]`, f32, f16 or bf16;
      its element type may differ from that of `query`
    - `value`: the shape and element type of `key`
    - `sequence_start`: `[batch]`, i32: the first valid key of each
      sequence (inclusive)
    - `sequence_end`: `[batch]`, i32: one past the last valid key; the
      query sits at position `sequence_end - 1`
    - `sinks(softmax_aux)` (optional): sink logits, `[num_sinks]` (shared
      by every head), `[num_kv_heads, num_sinks]` or
      `[num_heads, num_sinks]` (the first that matches: when
      `num_kv_heads = num_heads` both mean one row per head), float
    - result `output`: `[batch, num_heads, head_dim]`, the element type of
      `query`

    Reference formula, for each sequence `b` and head `h` (`h'` =
    `h / (num_heads / num_kv_heads)`), with `e = sequence_end[b]`:
    ```
    s_t = softmax_scale * dot(query[b,h], key[b,t,h'])
    s_t = cap * tanh(s_t / cap)                  if logits_soft_cap = cap
    allowed(t) = sequence_start[b] <= t < e
                 && (!sliding_window || t >= e - 1 - left)
    Z = sum_{allowed t} exp(s_t) + sum_j exp(aux_h[j])      (with sinks)
    output[b,h] = sum_{allowed t} exp(s_t) / Z * value[b,t,h']
    ```
    where `aux_h` is the sink row of head `h` (the whole `[num_sinks]`, the
    row of `h'`, or the row of `h`). `sliding_window = array<i64: left,
    right>` keeps the keys within `left` before the query and `right` after
    it, as ejKernel's (`left + 1` keys, the query's own included; no key
    lies after the query, so `right` changes nothing). Sinks add to the
    denominator only, as ejKernel seeds its online softmax with them.
    `softmax_scale` defaults to `1/sqrt(head_dim)`. A sequence with no
    allowed key gives 0. Accumulation is in f32 (ejKernel's XLA path
    keeps its running output in the query's type).

    Bad bounds never read out of bounds: `sequence_end` is clamped into
    `[0, seq_len]` and `sequence_start` into `[0, sequence_end]`; `ejk-run`
    refuses such inputs unless told otherwise. ejKernel's `fwd_params`
    (its KV block size) is the config's `block_k`; the config is
    `ejk.paged_attention`'s (`num_splits` splits the keys, flash-decoding).

    ```mlir
    %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends
        sinks(%aux : tensor<32x1xf32>)
        {sliding_window = array<i64: 1023, 0>}
        : tensor<8x32x128xbf16>, tensor<8x4096x8x128xbf16>,
          tensor<8x4096x8x128xbf16>, tensor<8xi32>, tensor<8xi32>
        -> tensor<8x32x128xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$sequence_start,
    AnyRankedTensor:$sequence_end,
    Optional<AnyRankedTensor>:$softmax_aux,
    OptionalAttr<F32Attr>:$softmax_scale,
    OptionalAttr<F32Attr>:$logits_soft_cap,
    OptionalAttr<DenseI64ArrayAttr>:$sliding_window,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $sequence_start `,` $sequence_end
    (`sinks` `(` $softmax_aux^ `:` type($softmax_aux) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    type($sequence_start) `,` type($sequence_end) `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts (paged_attention's).
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `softmax_scale`, or `1/sqrt(head_dim)` when it is absent.
    float getEffectiveSoftmaxScale();
    /// Keys a query sees with `sliding_window = [left, right]`: left + 1.
    std::optional<int64_t> getVisibleWindow() {
      std::optional<::llvm::ArrayRef<int64_t>> w = getSlidingWindow();
      if (!w || w->empty())
        return std::nullopt;
      return w->front() + 1;
    }
  }];
}

#endif // EJK_DIALECT_EJK_PAGEDOPS_TD
