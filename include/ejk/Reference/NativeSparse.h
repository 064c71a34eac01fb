//===- NativeSparse.h - Reference native sparse attention -------*- C++ -*-===//
//
// The oracle for ejk.native_sparse_attention (DeepSeek's NSA as ejKernel's
// `native_sparse_attention` computes it, plus NSA's sliding-window branch)
// over host f32 buffers: scores and sums in double, the selection keys in
// f32 as ejKernel forms them (p + f32(c) * 1e-8), so that ties break the
// same way. Layout BSHD; the formula is the op's ODS description.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_NATIVESPARSE_H
#define EJK_REFERENCE_NATIVESPARSE_H

#include "ejk/Reference/Tensor.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ejk::reference {

struct NativeSparseOptions {
  /// Tokens per key block (compression and selection granularity), >= 1.
  int64_t blockSize = 64;
  /// Blocks a token selects (top-k) or slots it may use (given indices).
  int64_t blockCounts = 16;
  /// Keys of the sliding-window branch; 0: no such branch.
  int64_t windowSize = 0;
  float softmaxScale = 1.0f;
  /// `blockIndices` is [batch, seq, kv_heads, S] (else [batch, kv_heads,
  /// blocks, S]).
  bool perTokenIndices = true;
};

/// q [batch, seq, heads, dim]; k, v [batch, seq, kv_heads, dim]; gates
/// [batch, seq, heads]; blockIndices (exact integers as floats) as the
/// options say. Either gCmp or blockIndices is given. out is [batch, seq,
/// heads, dim]. Messages start with "native_sparse_attention: ".
Status nativeSparseAttention(
    const TensorRef<float> &q, const TensorRef<float> &k,
    const TensorRef<float> &v, const std::optional<TensorRef<float>> &gCmp,
    const std::optional<TensorRef<float>> &gSlc,
    const std::optional<TensorRef<float>> &gSwa,
    const std::optional<TensorRef<float>> &blockIndices,
    const NativeSparseOptions &options, std::vector<float> &out);

/// The blocks each (batch, token, kv head) selects from the compression
/// branch, [batch, seq, kv_heads, min(blockCounts, blocks)], -1 for slots
/// past the token's block (what ejKernel's `_nsa_topk_xla` returns).
Status nativeSparseSelection(const TensorRef<float> &q,
                             const TensorRef<float> &k,
                             const NativeSparseOptions &options,
                             std::vector<int32_t> &selected);

} // namespace ejk::reference

#endif // EJK_REFERENCE_NATIVESPARSE_H
