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
    - `g_gamma` (optional): f32, `[num_heads]`, or `[num_seqs, num_heads]`
      for a decay per sequence: a constant log decay per head (`<= 0`),
      added to `g` at every step
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
    `a_t = g[.,t,h] + g_gamma[(n,) h]` (a missing term is 0):
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

def Ejk_LightningAttentionOp
    : Ejk_LinearOp<"lightning_attention", [AttrSizedOperandSegments]> {
  let summary = "Linear attention with a constant per-head decay (chunked)";
  let description = [{
    Lightning attention, ejKernel's `lightning_attn`: causal linear attention
    whose state decays by a constant factor `exp(-slope_h)` per step, one
    slope per head. The slopes come in one of two forms:
    - ejKernel's, from the layer's depth: attributes `layer_idx` and
      `num_layers` (`0 <= layer_idx < num_layers`) give
      `slope_h = 8 / num_heads * (1 - layer_idx / num_layers) * h`
      (linear in the head index; head 0 does not decay);
    - explicit: the operand `slopes` `[num_heads]`, f32, `>= 0`, for any
      other schedule (MiniMax's geometric ALiBi slopes, say).
    It is `ejk.gla` with `g_gamma = -slopes` and no `g`, and runs on the
    same chunked kernels.

    Layout (BSHD):
    - `query`: `[batch, seq, num_heads, head_dim_k]`, f32, f16 or bf16
    - `key`: `[batch, seq, num_kv_heads, head_dim_k]`, same element type;
      `num_kv_heads` divides `num_heads` (query head `h` reads key/value
      head `h / (num_heads / num_kv_heads)`)
    - `value`: `[batch, seq, num_kv_heads, head_dim_v]`, same element type
    - `slopes` (optional): `[num_heads]`, f32
    - `initial_state` (optional): `[num_seqs, num_heads, head_dim_k,
      head_dim_v]`, f32
    - `cu_seqlens` (optional): `[num_seqs + 1]`, i32, packed sequences as
      for `ejk.gla` (batch 1)
    - result `output`: `[batch, seq, num_heads, head_dim_v]`, the element type
      of `query`
    - result `final_state` (optional): `[num_seqs, num_heads, head_dim_k,
      head_dim_v]`, f32

    Reference, for each sequence `n` and head `h` (key/value head `j`):
    ```
    S = initial_state[n,h]                       (0 when absent)
    for t over the sequence's steps              (last to first with reverse)
      S = exp(-slope_h) * S + outer(k_t, v_t)
      output[.,t,h] = scale * q_t S
    final_state[n,h] = S
    ```
    `scale` defaults to `1/sqrt(head_dim_k)`. The state and the accumulation
    are f32 for every element type.

    Differences from ejKernel: as for `ejk.gla` (GQA ratios, rank-4 packed
    inputs, an optional final state); the explicit `slopes` form is ejk's.

    Config entries: those of `ejk.gla` (`chunk_size`, `block_v`).

    ```mlir
    %o = ejk.lightning_attention %q, %k, %v
        {layer_idx = 3 : i64, num_layers = 24 : i64}
        : tensor<1x1024x8x128xf16>, tensor<1x1024x8x128xf16>,
          tensor<1x1024x8x128xf16> -> tensor<1x1024x8x128xf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$query,
    AnyRankedTensor:$key,
    AnyRankedTensor:$value,
    Optional<AnyRankedTensor>:$slopes,
    Optional<AnyRankedTensor>:$initial_state,
    Optional<AnyRankedTensor>:$cu_seqlens,
    OptionalAttr<I64Attr>:$layer_idx,
    OptionalAttr<I64Attr>:$num_layers,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$reverse,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`slopes` `(` $slopes^ `:` type($slopes) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($output) (`,` type($final_state)^)?
  }];
  let extraClassDeclaration = [{
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    float getEffectiveScale();
    /// The decay rate of head `h` in the layer form (`layer_idx`,
    /// `num_layers`); the op must have that form.
    float getLayerSlope(int64_t head);
  }];
}

def Ejk_DeltaAttentionOp
    : Ejk_LinearOp<"delta_attention", [AttrSizedOperandSegments]> {
  let summary = "Linear attention with the (gated) delta rule (chunked)";
  let description = [{
    The gated delta rule (DeltaNet, Gated DeltaNet, Kimi Delta Attention),
    ejKernel's `gated_delta_rule` / `kernel_delta_attention`: the state is a
    fast-weight memory that decays by `exp(decay)` and then corrects towards
    the new key/value pair with learning rate `beta`. It is computed chunk
    by chunk (the WY / UT-transform form of each chunk's triangular solve,
    the state passed from chunk to chunk); the result is that of the
    recurrence below.

    Layout (BSHD):
    - `query`: `[batch, seq, num_heads, head_dim_k]`, f32, f16 or bf16
    - `key`: `[batch, seq, num_kv_heads, head_dim_k]`, same element type;
      `num_kv_heads` divides `num_heads` (query head `h` reads key/value
      head `h / (num_heads / num_kv_heads)`)
    - `value`: `[batch, seq, num_kv_heads, head_dim_v]`, same element type
    - `beta`: `[batch, seq, num_heads]`, same element type, the per-step
      learning rate (usually a sigmoid, in `[0, 1]`)
    - `decay` (optional): the log decay (`<= 0`), same element type, either
      per head `[batch, seq, num_heads]` (Gated DeltaNet, Qwen3-Next) or per
      key dim `[batch, seq, num_heads, head_dim_k]` (Kimi's KDA)
    - `initial_state` (optional): `[num_seqs, num_heads, head_dim_k,
      head_dim_v]`, f32
    - `cu_seqlens` (optional): `[num_seqs + 1]`, i32, packed sequences as
      for `ejk.gla` (batch 1)
    - result `output`: `[batch, seq, num_heads, head_dim_v]`, the element type
      of `query`
    - result `final_state` (optional): `[num_seqs, num_heads, head_dim_k,
      head_dim_v]`, f32

    Reference, for each sequence `n` and head `h` (key/value head `j`), with
    `S` a `[head_dim_k, head_dim_v]` matrix, rows `q_t = query[.,t,h]`,
    `k_t = key[.,t,j]`, `v_t = value[.,t,j]`, `b_t = beta[.,t,h]` and
    `a_t = decay[.,t,h]` (a scalar, or a vector over key dims; 0 when
    absent):
    ```
    q_t = q_t / ||q_t||_2, k_t = k_t / ||k_t||_2    if use_qk_l2norm
    S = initial_state[n,h]                           (0 when absent)
    for t over the sequence's steps                  (last to first with reverse)
      S = diag(exp(a_t)) S
      S = S + b_t * outer(k_t, v_t - k_t S)
      output[.,t,h] = scale * q_t S
    final_state[n,h] = S
    ```
    The l2 norm divides by `sqrt(sum x^2 + 1e-6)` (ejKernel's epsilon).
    `use_qk_l2norm` defaults to true, as in ejKernel. `scale` defaults to
    `1/sqrt(head_dim_k)`. The state and the accumulation are f32 for every
    element type.

    Config entries: `chunk_size` (steps per chunk; the model's chunk size
    does not bind the kernel) and `block_v` (head_dim_v columns per
    workgroup).

    ```mlir
    %o, %s = ejk.delta_attention %q, %k, %v, %beta
        decay(%g : tensor<2x256x4xf32>)
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
    Optional<AnyRankedTensor>:$decay,
    Optional<AnyRankedTensor>:$initial_state,
    Optional<AnyRankedTensor>:$cu_seqlens,
    OptionalAttr<F32Attr>:$scale,
    DefaultValuedAttr<BoolAttr, "true">:$use_qk_l2norm,
    UnitAttr:$reverse,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $beta
    (`decay` `(` $decay^ `:` type($decay) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,` type($beta)
    `->` type($output) (`,` type($final_state)^)?
  }];
}

def Ejk_RecurrentOp : Ejk_LinearOp<"recurrent", [AttrSizedOperandSegments]> {
  let summary = "Generic gated linear recurrence (chunked)";
  let description = [{
    ejKernel's `recurrent`: the gated linear recurrence that GLA, lightning
    and RetNet-style decays and gated value updates are special cases of.
    The state decays through log gates over key dims (`g` and `gk`, both
    per key dim, and the per-head constant `g_gamma`) and over value dims
    (`gv`), each optional. It runs on the chunked kernels of `ejk.gla`
    (with the value gate added); the result is that of the recurrence
    below.

    Layout (BSHD):
    - `query`: `[batch, seq, num_heads, head_dim_k]`, f32, f16 or bf16
    - `key`: `[batch, seq, num_kv_heads, head_dim_k]`, same element type;
      `num_kv_heads` divides `num_heads`
    - `value`: `[batch, seq, num_kv_heads, head_dim_v]`, same element type
    - `g`, `gk` (optional): `[batch, seq, num_heads, head_dim_k]`, same
      element type: log gates per key dim (`<= 0`)
    - `gv` (optional): `[batch, seq, num_heads, head_dim_v]`, same element
      type: a log gate per value dim (`<= 0`)
    - `g_gamma` (optional): f32, `[num_heads]`, or `[num_seqs, num_heads]`
      for a decay per sequence: a constant log decay per head (`<= 0`)
    - `initial_state` (optional): `[num_seqs, num_heads, head_dim_k,
      head_dim_v]`, f32
    - `cu_seqlens` (optional): `[num_seqs + 1]`, i32, packed sequences as
      for `ejk.gla` (batch 1)
    - result `output`: `[batch, seq, num_heads, head_dim_v]`, the element type
      of `query`
    - result `final_state` (optional): `[num_seqs, num_heads, head_dim_k,
      head_dim_v]`, f32

    Reference, for each sequence `n` and head `h` (key/value head `j`), an
    absent gate read as 0, `a_t = g[.,t,h] + gk[.,t,h] + g_gamma[(n,) h]`:
    ```
    S = initial_state[n,h]                       (0 when absent)
    for t over the sequence's steps              (last to first with reverse)
      S = diag(exp(a_t)) S diag(exp(gv[.,t,h])) + outer(k_t, v_t)
      output[.,t,h] = scale * q_t S
    final_state[n,h] = S
    ```
    `scale` defaults to `1/sqrt(head_dim_k)`. The state and the
    accumulation are f32 for every element type.

    Differences from ejKernel: ejKernel rejects GQA here (ejk accepts every
    divisor of `num_heads`); with `cu_seqlens` the inputs keep their batch
    dim of 1; the final state is optional.

    Config entries: those of `ejk.gla` (`chunk_size`, `block_v`).

    ```mlir
    %o = ejk.recurrent %q, %k, %v gk(%gk : tensor<1x128x4x64xf32>)
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
    (`gk` `(` $gk^ `:` type($gk) `)`)?
    (`gv` `(` $gv^ `:` type($gv) `)`)?
    (`g_gamma` `(` $g_gamma^ `:` type($g_gamma) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    `->` type($output) (`,` type($final_state)^)?
  }];
}

#endif // EJK_DIALECT_EJK_LINEAROPS_TD
