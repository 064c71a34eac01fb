//===- RaggedPaged.h - Reference ragged attention over pages ----*- C++ -*-===//
//
// The oracle for ejk.ragged_paged_attention (and prefill_paged_attention,
// its uniform case) over host f32 buffers, sums in double. Guards as the
// kernels do (see the op's description): cu_q_lens clamped non-decreasing
// into [0, num_tokens], num_seqs into [0, slots], lengths into the table,
// page indices into the cache. checkRaggedInputs says what is wrong with
// such inputs, for ejk-run's validation.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_RAGGEDPAGED_H
#define EJK_REFERENCE_RAGGEDPAGED_H

#include "ejk/Reference/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace ejk::reference {

struct RaggedPagedOptions {
  float softmaxScale = 1.0f, kScale = 1.0f, vScale = 1.0f;
  std::optional<float> softCap;
  /// A query sees its last `window` positions, itself included.
  std::optional<int64_t> window;
  /// Pages are [num_pages, page_size, num_kv_heads, head_dim] when true,
  /// [num_pages, num_kv_heads, page_size, head_dim] otherwise.
  bool tokenMajor = true;
  /// The cache holds i8 (new tokens are rounded and clamped when written).
  bool int8Cache = false;
};

/// queries [num_tokens, heads, dim]; caches in the options' layout; kvLens
/// [slots]; pageIndices [slots, pages_per_seq]; cuQLens [slots + 1];
/// numSeqs [1]; newKeys/newValues [num_tokens, kv_heads, dim] or empty
/// (no write); sinks [heads] or empty. out gets [num_tokens, heads, dim];
/// with a write, updatedKeys/updatedValues the written caches. Messages
/// start with "ragged_paged_attention: ".
Status raggedPagedAttention(
    const TensorRef<float> &queries, const TensorRef<float> &keyCache,
    const TensorRef<float> &valueCache, const TensorRef<float> &kvLens,
    const TensorRef<float> &pageIndices, const TensorRef<float> &cuQLens,
    const TensorRef<float> &numSeqs, const TensorRef<float> &newKeys,
    const TensorRef<float> &newValues, const TensorRef<float> &sinks,
    const RaggedPagedOptions &options, std::vector<float> &out,
    std::vector<float> &updatedKeys, std::vector<float> &updatedValues);

/// What is wrong with the index inputs of a ragged batch ("" when valid):
/// cu_q_lens starts at 0, never decreases and stays within `numTokens`;
/// each kv_lens entry is at least its sequence's query count and at most
/// the tokens its table holds; the pages it reaches are in the cache;
/// num_seqs (if given, >= 0) is at most the slots. Entries of slots past
/// num_seqs are not checked.
std::string checkRaggedInputs(const std::vector<int64_t> &kvLens,
                              const std::vector<int64_t> &pageIndices,
                              const std::vector<int64_t> &cuQLens,
                              int64_t numSeqs, int64_t numTokens,
                              int64_t pagesPerSeq, int64_t pageSize,
                              int64_t numPages);

} // namespace ejk::reference

#endif // EJK_REFERENCE_RAGGEDPAGED_H
