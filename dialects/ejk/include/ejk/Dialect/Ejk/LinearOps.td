//===- LinearOps.td - linear-recurrent attention ops -------*- tablegen -*-===//
//
// The chunked linear-recurrent attention family: gated linear attention,
// lightning attention, the delta rule and a generic gated recurrence.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_LINEAROPS_TD
#define EJK_DIALECT_EJK_LINEAROPS_TD

// What the four ops share: a [head_dim_k, head_dim_v] f32 state per (batch,
// head), the `output` and optional `final_state` results, `scale` and the
// config names chunk_size, block_k, block_v.
class Ejk_LinearOp<string mnemonic, list<Trait> traits = []>
    : Ejk_Op<mnemonic, !listconcat([Pure], traits)> {
  let results = (outs
    AnyRankedTensor:$output,
    Optional<AnyRankedTensor>:$final_state
  );
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// `scale`, or `1/sqrt(head_dim_k)` when it is absent.
    float getEffectiveScale();
  }];
}

def Ejk_GlaOp : Ejk_LinearOp<"gla", [AttrSizedOperandSegments]> {
  let summary = "Gated linear attention (chunked)";
  let description = [{
    Gated linear attention (GLA), ejKernel's `gla_attention`: causal linear
    attention whose `[head_dim_k, head_dim_v]` state decays through a
    forget gate per key dimension (`g`, data dependent) and/or a constant
    per head (`g_gamma`). It is computed chunk by chunk (quadratic inside a
    chunk of `chunk_size` steps, the state passed from chunk to chunk); the
    result is that of the recurrence below.

    Layout (BSHD):
    - `query`: `[batch, seq, num_heads, head_dim_k]`, f32, f16 or bf16
    - `key`: `[batch, seq, num_kv_heads, head_dim_k]`, same element type;
      `num_kv_heads` divides `num_heads` (GQA / MQA: query head `h` reads
      key/value head `h / (num_heads / num_kv_heads)`)
    - `value`: `[batch, seq, num_kv_heads, head_dim_v]`, same element type
    - `g` (optional): `[batch, seq, num_heads, head_dim_k]`, same element
      type: the forget gate in log space (`g <= 0`; `exp(g)` is the decay)
    - `g_gamma` (optional): `[num_heads]`, f32: a constant log decay per head
      (`<= 0`), added to `g` at every step
    - `initial_state` (optional): `[num_seqs, num_heads, head_dim_k,
      head_dim_v]`, f32
    - `cu_seqlens` (optional): `[num_seqs + 1]`, i32: packed variable-length
      sequences; `batch` must be 1 and sequence `n` is the steps
      `cu_seqlens[n] .. cu_seqlens[n+1] - 1` (clamped into `[0, seq]`, as
      `ejk.mean_pooling` does; steps outside every sequence give 0)
    - result `output`: `[batch, seq, num_heads, head_dim_v]`, the element type
      of `query`
    - result `final_state` (optional): `[num_seqs, num_heads, head_dim_k,
      head_dim_v]`, f32

    `num_seqs` is `batch` without `cu_seqlens`.

    Reference, for each sequence `n` and head `h` (key/value head `j`), with
    `S` a `[head_dim_k, head_dim_v]` matrix and rows `q_t = query[.,t,h]`,
    `k_t = key[.,t,j]`, `v_t = value[.,t,j]`,
    `a_t = g[.,t,h] + g_gamma[h]` (a missing term is 0):
    ```
    S = initial_state[n,h]                       (0 when absent)
    for t over the sequence's steps              (last to first with reverse)
      S = diag(exp(a_t)) S + outer(k_t, v_t)
      output[.,t,h] = scale * q_t S
    final_state[n,h] = S
    ```
    The output of a step includes that step's own key and value (as
    ejKernel's and fla's recurrent GLA). `scale` defaults to
    `1/sqrt(head_dim_k)` (ejKernel's `softmax_scale`). `reverse` scans each
    sequence from its last step to its first. The state and the
    accumulation are f32 for every element type.

    Differences from ejKernel (its XLA `recurrent_gla`):
    - ejKernel's XLA path broadcasts key/value heads, so it accepts MQA
      (`num_kv_heads = 1`) and equal heads but fails for other GQA ratios;
      ejk accepts every divisor of `num_heads`.
    - `g_gamma` is `[num_heads]` only (ejKernel also takes `[batch,
      num_heads]`).
    - With `cu_seqlens` the inputs keep their batch dim of 1 (ejKernel also
      takes rank-3 packed inputs).
    - Without `initial_state`, ejKernel's XLA path builds a
      `[head_dim_k, head_dim_k]` zero state and fails when head_dim_k !=
      head_dim_v; ejk supports any pair.
    - ejKernel always returns the final state; ejk returns it when the op
      has a second result.

    Config entries: `chunk_size` (steps per chunk) and `block_v` (head_dim_v
    columns per workgroup).

    ```mlir
    %o, %s = ejk.gla %q, %k, %v g(%g : tensor<2x512x4x64xbf16>)
        initial_state(%s0 : tensor<2x4x64x64xf32>)
        : tensor<2x512x4x64xbf16>, tensor<2x512x4x64xbf16>,
          tensor<2x512x4x64xbf16>
        -> tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    Optional<AnyRankedTensor>:$g,
    Optional<AnyRankedTensor>:$g_gamma,
    Optional<AnyRankedTensor>:$initial_state,
    Optional<AnyRankedTensor>:$cu_seqlens,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$reverse,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`g` `(` $g^ `:` type($g) `)`)?
    (`g_gamma` `(` $g_gamma^ `:` type($g_gamma) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($output) (`,` type($final_state)^)?
  }];
}

def Ejk_LightningAttentionOp : Ejk_LinearOp<"lightning_attention"> {
  let summary = "Linear attention with a constant per-head decay (chunked)";
  let description = [{
    Lightning attention: causal linear attention whose state decays by a
    constant factor `exp(-slopes[h])` per step, one slope per head (as the
    ALiBi-like slopes of lightning attention / MiniMax). It is computed chunk
    by chunk (quadratic inside a chunk of `chunk_size` steps, the state passed
    from chunk to chunk); the result is that of the recurrence below.

    Layout (BSHD):
    - `query`, `key`: `[batch, seq, num_heads, head_dim_k]`, f32, f16 or bf16
    - `value`: `[batch, seq, num_heads, head_dim_v]`, same element type
    - `slopes`: `[num_heads]`, f32, the decay rate of each head (`>= 0`)
    - `initial_state` (optional): `[batch, num_heads, head_dim_k, head_dim_v]`,
      f32
    - result `output`: `[batch, seq, num_heads, head_dim_v]`, the element type
      of `query`
    - result `final_state` (optional): `[batch, num_heads, head_dim_k,
      head_dim_v]`, f32

    Reference, for each batch `b` and head `h`, with `S` a
    `[head_dim_k, head_dim_v]` matrix and rows `q_t = query[b,t,h]`,
    `k_t = key[b,t,h]`, `v_t = value[b,t,h]`:
    ```
    S = initial_state[b,h]                       (0 when absent)
    for t = 0 .. seq-1:
      S = exp(-slopes[h]) * S + outer(k_t, v_t)
      output[b,t,h] = scale * q_t S
    final_state[b,h] = S
    ```
    `scale` defaults to `1/sqrt(head_dim_k)`. The state and the accumulation
    are f32 for every element type.

    Config entries: `chunk_size`, `block_k`, `block_v`.

    ```mlir
    %o = ejk.lightning_attention %q, %k, %v, %slopes
        : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>,
          tensor<1x1024x8x128xf16>, tensor<8xf32>
        -> tensor<1x1024x8x128xf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$slopes,
    Optional<AnyRankedTensor>:$initial_state,
    OptionalAttr<F32Attr>:$scale,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $slopes
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    type($slopes) `->` type($output) (`,` type($final_state)^)?
  }];
}

def Ejk_DeltaAttentionOp : Ejk_LinearOp<"delta_attention"> {
  let summary = "Linear attention with the delta rule (DeltaNet, chunked)";
  let description = [{
    The delta rule (DeltaNet): the state is a fast-weight memory that each
    step corrects towards the new key/value pair with learning rate `beta`.
    It is computed chunk by chunk (the WY representation of the per-chunk
    Householder products, the state passed from chunk to chunk); the result
    is that of the recurrence below.

    Layout (BSHD):
    - `query`, `key`: `[batch, seq, num_heads, head_dim_k]`, f32, f16 or bf16
    - `value`: `[batch, seq, num_heads, head_dim_v]`, same element type
    - `beta`: `[batch, seq, num_heads]`, same element type, the per-step
      learning rate (usually in `[0, 1]`, e.g. a sigmoid)
    - `initial_state` (optional): `[batch, num_heads, head_dim_k, head_dim_v]`,
      f32
    - result `output`: `[batch, seq, num_heads, head_dim_v]`, the element type
      of `query`
    - result `final_state` (optional): `[batch, num_heads, head_dim_k,
      head_dim_v]`, f32

    Reference, for each batch `b` and head `h`, with `S` a
    `[head_dim_k, head_dim_v]` matrix and rows `q_t = query[b,t,h]`,
    `k_t = key[b,t,h]`, `v_t = value[b,t,h]`, `beta_t = beta[b,t,h]`:
    ```
    q_t = q_t / ||q_t||_2, k_t = k_t / ||k_t||_2    if use_qk_l2norm
    S = initial_state[b,h]                           (0 when absent)
    for t = 0 .. seq-1:
      S = S + beta_t * outer(k_t, v_t - k_t S)
      output[b,t,h] = scale * q_t S
    final_state[b,h] = S
    ```
    `scale` defaults to `1/sqrt(head_dim_k)`. The state and the accumulation
    are f32 for every element type.

    Config entries: `chunk_size`, `block_k`, `block_v`.

    ```mlir
    %o, %s = ejk.delta_attention %q, %k, %v, %beta {use_qk_l2norm}
        : tensor<2x256x4x64xf32>, tensor<2x256x4x64xf32>,
          tensor<2x256x4x64xf32>, tensor<2x256x4xf32>
        -> tensor<2x256x4x64xf32>, tensor<2x4x64x64xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$beta,
    Optional<AnyRankedTensor>:$initial_state,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$use_qk_l2norm,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $beta
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,` type($beta)
    `->` type($output) (`,` type($final_state)^)?
  }];
}

def Ejk_RecurrentOp : Ejk_LinearOp<"recurrent", [AttrSizedOperandSegments]> {
  let summary = "Generic gated linear recurrence (chunked)";
  let description = [{
    The generic gated linear recurrence that GLA, RetNet-style decay and
    gated value updates are special cases of: the state decays by a scalar
    gate `g`, a gate `gk` over key dimensions and a gate `gv` over value
    dimensions, each optional and in log space. It is computed chunk by
    chunk (quadratic inside a chunk of `chunk_size` steps, the state passed
    from chunk to chunk); the result is that of the recurrence below.

    Layout (BSHD):
    - `query`, `key`: `[batch, seq, num_heads, head_dim_k]`, f32, f16 or bf16
    - `value`: `[batch, seq, num_heads, head_dim_v]`, same element type
    - `g` (optional): `[batch, seq, num_heads]`, same element type, a scalar
      log gate per head
    - `gk` (optional): `[batch, seq, num_heads, head_dim_k]`, same element
      type, a log gate per key dimension
    - `gv` (optional): `[batch, seq, num_heads, head_dim_v]`, same element
      type, a log gate per value dimension
    - `initial_state` (optional): `[batch, num_heads, head_dim_k, head_dim_v]`,
      f32
    - result `output`: `[batch, seq, num_heads, head_dim_v]`, the element type
      of `query`
    - result `final_state` (optional): `[batch, num_heads, head_dim_k,
      head_dim_v]`, f32

    Reference, for each batch `b` and head `h`, with `S` a
    `[head_dim_k, head_dim_v]` matrix, rows `q_t = query[b,t,h]`,
    `k_t = key[b,t,h]`, `v_t = value[b,t,h]`, and an absent gate read as 0:
    ```
    S = initial_state[b,h]                       (0 when absent)
    for t = 0 .. seq-1:                          (seq-1 .. 0 with reverse)
      S = exp(g[b,t,h]) * diag(exp(gk[b,t,h])) S diag(exp(gv[b,t,h]))
          + outer(k_t, v_t)
      output[b,t,h] = scale * q_t S
    final_state[b,h] = S
    ```
    `scale` defaults to `1/sqrt(head_dim_k)`. `reverse` scans from the last
    step to the first. The state and the accumulation are f32 for every
    element type.

    Config entries: `chunk_size`, `block_k`, `block_v`.

    ```mlir
    %o = ejk.recurrent %q, %k, %v g(%g : tensor<1x128x4xf32>)
        gv(%gv : tensor<1x128x4x32xf32>) {reverse}
        : tensor<1x128x4x64xf32>, tensor<1x128x4x64xf32>,
          tensor<1x128x4x32xf32> -> tensor<1x128x4x32xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    Optional<AnyRankedTensor>:$g,
    Optional<AnyRankedTensor>:$gk,
    Optional<AnyRankedTensor>:$gv,
    Optional<AnyRankedTensor>:$initial_state,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$reverse,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`g` `(` $g^ `:` type($g) `)`)?
    (`gk` `(` $gk^ `:` type($gk) `)`)?
    (`gv` `(` $gv^ `:` type($gv) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($output) (`,` type($final_state)^)?
  }];
}

#endif // EJK_DIALECT_EJK_LINEAROPS_TD
