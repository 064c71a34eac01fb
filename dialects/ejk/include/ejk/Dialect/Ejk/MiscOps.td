//===- MiscOps.td - grouped matmul and mean pooling --------*- tablegen -*-===//
//
// The other kernels: grouped matmul (MoE) forward and its transposed form
// (the weight gradient), and variable-length mean pooling with its
// backward.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_MISCOPS_TD
#define EJK_DIALECT_EJK_MISCOPS_TD

def Ejk_GroupedMatmulOp : Ejk_Op<"grouped_matmul", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Grouped matmul over row groups (MoE experts)";
  let description = [{
    Multiplies consecutive groups of rows of `lhs` by one matrix each, as the
    experts of a mixture-of-experts layer do with tokens sorted by expert
    (ejKernel's `grouped_matmul`, `jax.lax.ragged_dot_general`, megablox's
    `gmm`).

    Layout:
    - `lhs`: `[rows, k]`, f32, f16 or bf16, rows sorted by group
    - `rhs`: `[local_groups, k, n]`, or `[local_groups, n, k]` with
      `transpose_rhs`, the element type of `lhs`, or i8 (quantized weights,
      with `rhs_scales`)
    - `rhs_scales` (exactly when `rhs` is i8): `[local_groups, n]`, f32,
      one scale per group and output column (per-channel dequantization)
    - `group_sizes`: `[num_groups]`, i32, the number of rows of each group
    - `group_offset` (optional): `[1]`, i32, the first group `rhs` holds
      (expert parallelism: this shard owns groups
      `[offset, offset + local_groups)`); without it `local_groups` must
      equal `num_groups`
    - `existing_out` (optional): `[rows, n]`, the result's type, added to
      every row of the result
    - result `out`: `[rows, n]`, the element type of `lhs` or f32 (the
      `preferred_element_type` of ejKernel)

    Reference, with `start_g = max(group_sizes[0], 0) + ... +
    max(group_sizes[g-1], 0)` clamped to `rows`, `end_g = min(start_g +
    max(group_sizes[g], 0), rows)` and `o` the group offset (0 without it):
    ```
    out[r, j] = existing_out[r, j] (or 0)
              + sum_i lhs[r, i] * rhs[g - o, i, j]   if start_g <= r < end_g
                                                     and o <= g < o + local_groups
    ```
    With `transpose_rhs`, `rhs[g - o, j, i]` takes the place of
    `rhs[g - o, i, j]`. With i8 weights the sum is over the integer values
    widened to f32 and is then scaled per column:
    ```
    out[r, j] = existing_out[r, j] (or 0)
              + rhs_scales[g - o, j] * sum_i lhs[r, i] * rhs[g - o, i, j]
    ```
    This is ejKernel's `grouped_matmulv3` with `rhs_scale` of shape
    `[local_groups, 1, 1, n]` (one k block); ejKernel's block-wise scales
    (several k blocks), its `rhs_bias` and a per-group scalar scale have no
    ejk form (broadcast a scalar to `[local_groups, n]`). ejKernel's `rhs`
    is a float array holding the quantized values and the scale multiplies
    it before the matmul, in `rhs`'s type; ejk scales the f32 sum. Rows past the last group, and rows of groups this
    shard does not own, are `existing_out` (or 0). The group sizes and the
    offset are read at run time; they should be non-negative and sum to at
    most `rows`, and the kernels never read or write out of bounds when they
    do not (a negative size counts as 0, a sum past `rows` is cut at
    `rows`; `ejk-run` reports such inputs). Accumulation is in f32 for every
    element type.

    Its backward is two grouped matmuls: `d_lhs = grouped_matmul(d_out,
    rhs, group_sizes)` with `transpose_rhs` flipped, and `d_rhs =
    transposed_grouped_matmul(lhs, d_out, group_sizes)` (`(d_out, lhs)` with
    `transpose_rhs`).

    Config entries: `block_m`, `block_n`, `block_k`, `num_subgroups`
    (Vulkan).

    ```mlir
    %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs}
        : tensor<4096x1024xbf16>, tensor<8x2816x1024xbf16>, tensor<8xi32>
        -> tensor<4096x2816xbf16>
    %q = ejk.grouped_matmul %lhs, %w8, %sizes
        rhs_scales(%scales : tensor<8x2816xf32>)
        : tensor<4096x1024xbf16>, tensor<8x1024x2816xi8>, tensor<8xi32>
        -> tensor<4096x2816xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$lhs,
    AnyRankedTensor:$rhs,
    AnyRankedTensor:$group_sizes,
    Optional<AnyRankedTensor>:$group_offset,
    Optional<AnyRankedTensor>:$existing_out,
    Optional<AnyRankedTensor>:$rhs_scales,
    UnitAttr:$transpose_rhs,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$out);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $group_sizes
    (`group_offset` `(` $group_offset^ `:` type($group_offset) `)`)?
    (`existing_out` `(` $existing_out^ `:` type($existing_out) `)`)?
    (`rhs_scales` `(` $rhs_scales^ `:` type($rhs_scales) `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) `,` type($group_sizes) `->`
    type($out)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
  }];
}

def Ejk_TransposedGroupedMatmulOp : Ejk_Op<"transposed_grouped_matmul", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Per-group lhs^T x rhs over row groups (MoE weight gradient)";
  let description = [{
    For each group of consecutive rows, multiplies the transpose of that
    group's rows of `lhs` by the same rows of `rhs`: the weight gradient of
    a grouped matmul (megablox's `tgmm`).

    Layout:
    - `lhs`: `[rows, k]`, f32, f16 or bf16, rows sorted by group
    - `rhs`: `[rows, n]`, the element type of `lhs`
    - `group_sizes`: `[num_groups]`, i32
    - `group_offset` (optional): `[1]`, i32, the first group of the result;
      without it `local_groups` must equal `num_groups`
    - `existing_out` (optional): `[local_groups, k, n]`, the result's type,
      added to the result
    - result `out`: `[local_groups, k, n]`, the element type of `lhs` or f32

    Reference, with `start_g`, `end_g` and `o` as for `ejk.grouped_matmul`:
    ```
    out[g, i, j] = existing_out[g, i, j] (or 0)
                 + sum_{r = start_{g+o}}^{end_{g+o} - 1} lhs[r, i] * rhs[r, j]
    ```
    An empty group (or a group past `num_groups`) gives `existing_out` (or
    0). Accumulation is in f32 for every element type.

    Config entries: `block_m` (rows per reduction step), `block_n`,
    `block_k` (the output tile), `num_subgroups` (Vulkan).

    ```mlir
    %d_rhs = ejk.transposed_grouped_matmul %x, %d_out, %sizes
        : tensor<4096x1024xbf16>, tensor<4096x512xbf16>, tensor<16xi32>
        -> tensor<16x1024x512xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$lhs,
    AnyRankedTensor:$rhs,
    AnyRankedTensor:$group_sizes,
    Optional<AnyRankedTensor>:$group_offset,
    Optional<AnyRankedTensor>:$existing_out,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$out);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $group_sizes
    (`group_offset` `(` $group_offset^ `:` type($group_offset) `)`)?
    (`existing_out` `(` $existing_out^ `:` type($existing_out) `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) `,` type($group_sizes) `->`
    type($out)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
  }];
}

def Ejk_MeanPoolingOp : Ejk_Op<"mean_pooling", [Pure]> {
  let summary = "Mean over the sequence, dense or variable length";
  let description = [{
    Averages each sequence over its tokens. Without `cu_seqlens` the input
    is a dense batch and every sequence has `seq` tokens; with `cu_seqlens`
    the input packs the tokens of all sequences one after the other and
    `cu_seqlens` holds the cumulative lengths.

    Layout:
    - `input`: `[batch, seq, hidden]` without `cu_seqlens`, or
      `[total_tokens, hidden]` with it; f32, f16 or bf16
    - `cu_seqlens` (optional): `[batch + 1]`, i32, non-decreasing, starting
      at 0: sequence `b` is rows `cu_seqlens[b] .. cu_seqlens[b+1] - 1`
    - result `output`: `[batch, hidden]`, the element type of `input`

    Reference:
    ```
    output[b, d] = sum_s input[b, s, d] / seq                        (dense)
    output[b, d] = sum_{r = start_b}^{end_b - 1} input[r, d]
                   / (end_b - start_b)                               (packed)
    ```
    with `start_b = clamp(cu_seqlens[b], 0, total_tokens)` and `end_b =
    clamp(cu_seqlens[b+1], start_b, total_tokens)`: the kernels never read
    out of bounds, whatever `cu_seqlens` holds. An empty sequence (or
    `seq = 0`) gives 0, never NaN (ejKernel's XLA path gives NaN).
    Accumulation is in f32 for every element type.

    Config entries: `block_d`, `block_s` (tokens per step).

    ```mlir
    %pooled = ejk.mean_pooling %tokens cu_seqlens(%cu : tensor<5xi32>)
        : tensor<1000x768xf32> -> tensor<4x768xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$input,
    Optional<AnyRankedTensor>:$cu_seqlens,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $input (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
  }];
}

def Ejk_MeanPoolingGradOp : Ejk_Op<"mean_pooling_grad", [Pure]> {
  let summary = "Backward of mean pooling";
  let description = [{
    Spreads the gradient of each pooled row evenly over the tokens of its
    sequence: the backward of `ejk.mean_pooling` (ejKernel's custom VJP).

    Layout:
    - `grad_output`: `[batch, hidden]`, f32, f16 or bf16
    - `cu_seqlens` (optional): `[batch + 1]`, i32, as for `ejk.mean_pooling`
    - result `grad_input`: `[batch, seq, hidden]` without `cu_seqlens`, or
      `[total_tokens, hidden]` with it; the element type of `grad_output`

    Reference, with `start_b` and `end_b` as for `ejk.mean_pooling`:
    ```
    grad_input[b, s, d] = grad_output[b, d] / seq                    (dense)
    grad_input[r, d] = grad_output[b, d] / (end_b - start_b)
                       for start_b <= r < end_b                      (packed)
    ```
    Packed rows that belong to no sequence are 0.

    Config entries: `block_d`, `block_s` (tokens per step).

    ```mlir
    %dx = ejk.mean_pooling_grad %dy cu_seqlens(%cu : tensor<5xi32>)
        : tensor<4x768xf32> -> tensor<1000x768xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$grad_output,
    Optional<AnyRankedTensor>:$cu_seqlens,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    attr-dict `:` type($grad_output) `->` type($grad_input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The config entry names this op accepts.
    static ::llvm::ArrayRef<::llvm::StringRef> getConfigNames();
  }];
}

#endif // EJK_DIALECT_EJK_MISCOPS_TD
