//===- MiscOps.td - grouped matmul and mean pooling --------*- tablegen -*-===//
//
// The other kernels: grouped matmul (MoE) and variable-length mean pooling.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_MISCOPS_TD
#define EJK_DIALECT_EJK_MISCOPS_TD

def Ejk_GroupedMatmulOp : Ejk_Op<"grouped_matmul", [Pure]> {
  let summary = "Grouped matmul over row groups (MoE experts)";
  let description = [{
    Multiplies consecutive groups of rows of `lhs` by one matrix each, as the
    experts of a mixture-of-experts layer do with tokens sorted by expert.

    Layout:
    - `lhs`: `[rows, k]`, f32, f16 or bf16, rows sorted by group
    - `rhs`: `[num_groups, k, n]`, or `[num_groups, n, k]` with
      `transpose_rhs`, the element type of `lhs`
    - `group_sizes`: `[num_groups]`, i32, the number of rows of each group
    - result `out`: `[rows, n]`, the element type of `lhs`

    Reference, with `offset_g = group_sizes[0] + ... + group_sizes[g-1]`
    and `total` the sum of all group sizes:
    ```
    for g = 0 .. num_groups-1, r = offset_g .. offset_g + group_sizes[g] - 1:
      out[r, j] = sum_i lhs[r, i] * rhs[g, i, j]
    out[r, j] = 0                                   for r = total .. rows-1
    ```
    With `transpose_rhs`, `rhs[g, j, i]` takes the place of `rhs[g, i, j]`.
    The group sizes are read at run time; they must be non-negative and sum
    to at most `rows`. Accumulation is in f32 for every element type.

    Config entries: `block_m`, `block_n`, `block_k`.

    ```mlir
    %out = ejk.grouped_matmul %lhs, %rhs, %sizes {transpose_rhs}
        : tensor<4096x1024xbf16>, tensor<8x2816x1024xbf16>, tensor<8xi32>
        -> tensor<4096x2816xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$lhs,
    AnyRankedTensor:$rhs,
    AnyRankedTensor:$group_sizes,
    UnitAttr:$transpose_rhs,
    OptionalAttr<Ejk_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$out);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $group_sizes attr-dict `:` type($lhs) `,` type($rhs)
    `,` type($group_sizes) `->` type($out)
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
    output[b, d] = sum_{r = cu_seqlens[b]}^{cu_seqlens[b+1] - 1} input[r, d]
                   / (cu_seqlens[b+1] - cu_seqlens[b])               (packed)
    ```
    An empty sequence (or `seq = 0`) gives 0, never NaN. Accumulation is in
    f32 for every element type.

    Config entries: `block_d`.

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

#endif // EJK_DIALECT_EJK_MISCOPS_TD
