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
  /// unified_attention's score biases: ALiBi slopes per query head (empty
  /// for none), added as `slope * (t - c)` with `c = kv_len - q_len`, and a
  /// `[qqBiasSize, qqBiasSize]` bias added as `qqBias[i, t - c]` for query
  /// `i` of a sequence where both indices are inside it.
  std::vector<float> alibiSlopes, qqBias;
  int64_t qqBiasSize = 0;
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
/// The operand names checkRaggedInputs' messages use.
struct RaggedInputNames {
  std::string kvLens = "kv_lens", pageIndices = "page_indices",
              cuQLens = "cu_q_lens", numSeqs = "num_seqs";
};

std::string checkRaggedInputs(const std::vector<int64_t> &kvLens,
                              const std::vector<int64_t> &pageIndices,
                              const std::vector<int64_t> &cuQLens,
                              int64_t numSeqs, int64_t numTokens,
                              int64_t pagesPerSeq, int64_t pageSize,
                              int64_t numPages,
                              const RaggedInputNames &names = {});

/// ragged_decode_attention: one query per sequence over keys
/// `[sequence_start, sequence_end)` of its row of a dense `[batch, seq_len,
/// num_kv_heads, head_dim]` cache.
struct RaggedDecodeOptions {
  float softmaxScale = 1.0f;
  std::optional<float> softCap;
  /// `sliding_window[0]`: keys `t >= sequence_end - 1 - left` are visible.
  std::optional<int64_t> windowLeft;
};

/// `sinks` is null, `[n]`, `[num_kv_heads, n]` or `[num_heads, n]` (the
/// first shape that matches); each head's logits join its denominator.
Status raggedDecodeAttention(
    const TensorRef<float> &query, const TensorRef<float> &key,
    const TensorRef<float> &value, const TensorRef<float> &sequenceStart,
    const TensorRef<float> &sequenceEnd, const TensorRef<float> &sinks,
    const RaggedDecodeOptions &options, std::vector<float> &out);

/// What is wrong with the bounds of a ragged decode over `seqLen` keys
/// ("" when every end is in [0, seq_len] and every start in [0, its end]);
/// the operands are named `startName` and `endName`.
std::string checkSequenceBounds(const std::vector<int64_t> &starts,
                                const std::vector<int64_t> &ends,
                                int64_t seqLen, const std::string &startName,
                                const std::string &endName);

} // namespace ejk::reference

#endif // EJK_REFERENCE_RAGGEDPAGED_H
