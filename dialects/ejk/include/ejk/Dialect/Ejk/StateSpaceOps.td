//===- StateSpaceOps.td - state-space scan ops -------------*- tablegen -*-===//
//
// The state-space scans: Mamba-1 selective scan and Mamba-2 SSD (ejKernel's
// state_space_v1 / state_space_v2).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_STATESPACEOPS_TD
#define EJK_DIALECT_EJK_STATESPACEOPS_TD

def Ejk_SelectiveScanOp : Ejk_Op<"selective_scan", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Mamba-1 selective scan";
  let description = [{
    The selective state-space scan of Mamba-1 (ejKernel's state_space_v1):
    every channel carries a `d_state`-wide state that decays and is fed by
    the input with input-dependent step sizes `delta` and input-dependent
    projections `B` (in) and `C` (out). `B` and `C` are shared by groups of
    channels: channel `d` uses group `d / (channels / groups)`.

    The operands keep Mamba's names: `A`, `B`, `C`, `D` (accessors `getA`,
    `getB`, `getC`, `getD`).

    Layout:
    - `u`: `[batch, seq, channels]`, f32, f16 or bf16, the input
    - `delta`: `[batch, seq, channels]`, same element type, the step sizes
    - `A`: `[channels, d_state]`, f32, the (usually negative) state matrix
    - `B`, `C`: `[batch, seq, groups, d_state]`, the element type of `u`;
      `groups` must divide `channels`
    - `D` (optional): `[channels]`, f32, the skip connection
    - `z` (optional): `[batch, seq, channels]`, the element type of `u`, the
      output gate
    - `delta_bias` (optional): `[channels]`, f32
    - `initial_state` (optional): `[batch, channels, d_state]`, f32
    - result `y`: `[batch, seq, channels]`, the element type of `u`
    - result `final_state` (optional): `[batch, channels, d_state]`, f32

    Reference, for each batch `b` and channel `d`, with `g = d / (channels /
    groups)`, `h` a `[d_state]` vector and absent optional operands read as 0
    (no gate when `z` is absent):
    ```
    h = initial_state[b,d]                          (0 when absent)
    for t = 0 .. seq-1:
      dt = delta[b,t,d] + delta_bias[d]
      dt = dt > 20 ? dt : log(1 + exp(dt))          if delta_softplus
      h[n] = exp(dt * A[d,n]) * h[n] + dt * B[b,t,g,n] * u[b,t,d]
      y[b,t,d] = sum_n C[b,t,g,n] * h[n] + D[d] * u[b,t,d]
      y[b,t,d] = y[b,t,d] * silu(z[b,t,d])          if z
    final_state[b,d] = h
    ```
    The state and the accumulation are f32 for every element type.

    Config entries: `block_d` (channels per workgroup; on CPUs a multiple
    of the f32 lanes), `chunk_l` (steps per chunk of the sequence: the step
    sizes and outputs of a chunk are staged while the states stay in
    registers); on Vulkan only, optionally `split_l` (steps of the sequence
    per workgroup: the split scan, whose first dispatch computes each
    split's end state) and `state_lanes` (threads sharing a channel's
    states).

    ```mlir
    %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C
        D(%D : tensor<1536xf32>) z(%z : tensor<2x256x1536xbf16>)
        delta_bias(%bias : tensor<1536xf32>) {delta_softplus}
        : tensor<2x256x1536xbf16>, tensor<2x256x1536xbf16>,
          tensor<1536x16xf32>, tensor<2x256x1x16xbf16>,
          tensor<2x256x1x16xbf16>
        -> tensor<2x256x1536xbf16>, tensor<2x1536x16xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$u,
    AnyRankedTensor:$delta,
    AnyRankedTensor:$A,
    AnyRankedTensor:$B,
    AnyRankedTensor:$C,
    Optional<AnyRankedTensor>:$D,
    Optional<AnyRankedTensor>:$z,
    Optional<AnyRankedTensor>:$delta_bias,
    Optional<AnyRankedTensor>:$initial_state,
    UnitAttr:$delta_softplus,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$y,
    Optional<AnyRankedTensor>:$final_state
  );
  let assemblyFormat = [{
    $u `,` $delta `,` $A `,` $B `,` $C
    (`D` `(` $D^ `:` type($D) `)`)?
    (`z` `(` $z^ `:` type($z) `)`)?
    (`delta_bias` `(` $delta_bias^ `:` type($delta_bias) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    attr-dict `:` type($u) `,` type($delta) `,` type($A) `,` type($B) `,`
    type($C) `->` type($y) (`,` type($final_state)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
  }];
}

def Ejk_SsdOp : Ejk_Op<"ssd", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Mamba-2 state-space duality (chunked SSD scan)";
  let description = [{
    The state-space scan of Mamba-2 (ejKernel's state_space_v2): every head
    carries a `[head_dim, d_state]` state that decays by a scalar per head
    and step, `exp(dt * A[h])`. `B` and `C` are shared by groups of heads:
    head `h` uses group `h / (num_heads / groups)` (as GQA).

    The operands keep Mamba's names: `A`, `B`, `C`, `D` (accessors `getA`,
    `getB`, `getC`, `getD`).

    Layout (BSHD):
    - `x`: `[batch, seq, num_heads, head_dim]`, f32, f16 or bf16, the input
    - `dt`: `[batch, seq, num_heads]`, the element type of `x`, step sizes
    - `A`: `[num_heads]`, f32, one (usually negative) decay rate per head
    - `B`, `C`: `[batch, seq, groups, d_state]`, the element type of `x`;
      `groups` must divide `num_heads`
    - `D` (optional): `[num_heads]`, f32, the skip connection
    - `z` (optional): `[batch, seq, num_heads, head_dim]`, the element type
      of `x`, the output gate
    - `dt_bias` (optional): `[num_heads]`, f32
    - `initial_state` (optional): `[batch, num_heads, head_dim, d_state]`,
      f32
    - result `y`: `[batch, seq, num_heads, head_dim]`, the element type of
      `x`
    - result `final_state` (optional): `[batch, num_heads, head_dim,
      d_state]`, f32

    Reference, for each batch `b` and head `h`, with `g = h / (num_heads /
    groups)`, `S` a `[head_dim, d_state]` matrix and absent optional operands
    read as 0 (no gate when `z` is absent):
    ```
    S = initial_state[b,h]                          (0 when absent)
    for t = 0 .. seq-1:
      dtv = dt[b,t,h] + dt_bias[h]
      dtv = dtv > 20 ? dtv : log(1 + exp(dtv))      if dt_softplus
      S[p,n] = exp(dtv * A[h]) * S[p,n] + dtv * x[b,t,h,p] * B[b,t,g,n]
      y[b,t,h,p] = sum_n C[b,t,g,n] * S[p,n] + D[h] * x[b,t,h,p]
      y[b,t,h,p] = y[b,t,h,p] * silu(z[b,t,h,p])    if z
    final_state[b,h] = S
    ```
    The state and the accumulation are f32 for every element type.

    The kernel uses the state-space duality: the sequence is cut into chunks
    of `chunk_size` steps, and with `a_t` the cumulative sum of `dtv * A[h]`
    from the start of the chunk up to step `t`:
    - intra-chunk, a masked quadratic (attention-like) form:
      `y_t[p] = sum_{s <= t} dot(C_t, B_s) * exp(a_t - a_s) * dtv_s * x_s[p]`
    - inter-chunk, state passing: only the `[head_dim, d_state]` states
      cross chunk boundaries; the state `S_prev` a chunk starts from adds
      `exp(a_t) * sum_n C_t[n] * S_prev[p,n]` to `y_t[p]`, and the chunk's
      final state is `exp(a_last) * S_prev` plus its own contributions.

    The `chunk_size` attribute (at least 1) is the model's chunk length
    (Mamba-2's `chunk_size`, as ejKernel and mamba_ssm take it). The result
    does not depend on it beyond rounding, so it does not bind the code: the
    config entry `chunk_size` decides the kernel's chunks (the heuristic's
    choice on CPUs, what fits shared memory on GPUs). To force a chunk
    length, give it in the op's `#ejk.config` (the override tier).

    Config entries: `chunk_size`, `block_p` (head_dim columns per
    workgroup; on CPUs a multiple of the f32 lanes), `block_n` (d_state
    rows per tile of the state update; divides d_state); on Vulkan only
    `num_subgroups` and, optionally, `split_l` (steps of the sequence per
    workgroup, a multiple of `chunk_size`: the split scan, whose first
    dispatch computes each split's end state).

    ```mlir
    %y, %s = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<24xf32>)
        dt_bias(%bias : tensor<24xf32>) {chunk_size = 64 : i64, dt_softplus}
        : tensor<2x512x24x64xbf16>, tensor<2x512x24xbf16>, tensor<24xf32>,
          tensor<2x512x1x128xbf16>, tensor<2x512x1x128xbf16>
        -> tensor<2x512x24x64xbf16>, tensor<2x24x64x128xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$x,
    AnyRankedTensor:$dt,
    AnyRankedTensor:$A,
    AnyRankedTensor:$B,
    AnyRankedTensor:$C,
    Optional<AnyRankedTensor>:$D,
    Optional<AnyRankedTensor>:$z,
    Optional<AnyRankedTensor>:$dt_bias,
    Optional<AnyRankedTensor>:$initial_state,
    UnitAttr:$dt_softplus,
    OptionalAttr<I64Attr>:$chunk_size,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs
    AnyRankedTensor:$y,
    Optional<AnyRankedTensor>:$final_state
  );
  let assemblyFormat = [{
    $x `,` $dt `,` $A `,` $B `,` $C
    (`D` `(` $D^ `:` type($D) `)`)?
    (`z` `(` $z^ `:` type($z) `)`)?
    (`dt_bias` `(` $dt_bias^ `:` type($dt_bias) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    attr-dict `:` type($x) `,` type($dt) `,` type($A) `,` type($B) `,`
    type($C) `->` type($y) (`,` type($final_state)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
    /// The `chunk_size` attribute, else the config's `chunk_size`, else
    /// nullopt (not chosen yet).
    std::optional<int64_t> getEffectiveChunkSize();
  }];
}

#endif // EJK_DIALECT_EJK_STATESPACEOPS_TD
