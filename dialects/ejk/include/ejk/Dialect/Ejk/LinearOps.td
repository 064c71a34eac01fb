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

def Ejk_GlaOp : Ejk_LinearOp<"gla"> {
  let summary = "Gated linear attention (chunked)";
  let description = [{
    Gated linear attention (GLA): causal linear attention whose state decays
    through a data-dependent forget gate, one per key dimension. It is
    computed chunk by chunk (quadratic inside a chunk of `chunk_size` steps,
    the state passed from chunk to chunk); the result is that of the
    recurrence below.

    Layout (BSHD):
    - `query`, `key`: `[batch, seq, num_heads, head_dim_k]`, f32, f16 or bf16
    - `value`: `[batch, seq, num_heads, head_dim_v]`, same element type
    - `g`: `[batch, seq, num_heads, head_dim_k]`, same element type: the
      forget gate in log space (`g <= 0`; `exp(g)` is the decay)
    - `initial_state` (optional): `[batch, num_heads, head_dim_k, head_dim_v]`,
      f32
    - result `output`: `[batch, seq, num_heads, head_dim_v]`, the element type
      of `query`
    - result `final_state` (optional): `[batch, num_heads, head_dim_k,
      head_dim_v]`, f32

    Reference, for each batch `b` and head `h`, with `S` a
    `[head_dim_k, head_dim_v]` matrix and rows `q_t = query[b,t,h]`,
    `k_t = key[b,t,h]`, `v_t = value[b,t,h]`, `g_t = g[b,t,h]`:
    ```
    S = initial_state[b,h]                       (0 when absent)
    for t = 0 .. seq-1:                          (seq-1 .. 0 with reverse)
      S = diag(exp(g_t)) S + outer(k_t, v_t)
      output[b,t,h] = scale * q_t S
    final_state[b,h] = S
    ```
    `scale` defaults to `1/sqrt(head_dim_k)`. `reverse` scans from the last
    step to the first (the backward direction of a bidirectional model).
    The state and the accumulation are f32 for every element type.

    Config entries: `chunk_size`, `block_k`, `block_v`.

    ```mlir
    %o, %s = ejk.gla %q, %k, %v, %g initial_state(%s0 : tensor<2x4x64x64xf32>)
        : tensor<2x512x4x64xbf16>, tensor<2x512x4x64xbf16>,
          tensor<2x512x4x64xbf16>, tensor<2x512x4x64xbf16>
        -> tensor<2x512x4x64xbf16>, tensor<2x4x64x64xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    AnyRankedTensor:$g,
    Optional<AnyRankedTensor>:$initial_state,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$reverse,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $g
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,` type($g)
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
