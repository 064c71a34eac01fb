//===- RaggedProblem.h - ragged paged attention, as kernels see it -*- C++ -*-//
//
// The sizes and options of one `ejk.ragged_paged_attention`,
// `ejk.prefill_paged_attention` (the ragged problem with `seq_q` queries
// for every sequence) or `ejk.unified_attention` (every slot live, ALiBi
// and a query-query bias) that the config rules and both targets' kernels
// read, and the dispatch buffers they read and write.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_RAGGEDPROBLEM_H
#define EJK_OPS_PAGED_RAGGEDPROBLEM_H

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::ejk {

class DispatchRewriter;
class RaggedPagedAttentionOp;
class PrefillPagedAttentionOp;
class UnifiedAttentionOp;

struct RaggedPagedProblem {
  /// Packed query rows and sequence slots (for a prefill: batch * seq_q and
  /// batch).
  int64_t numTokens = 0, numSeqs = 0;
  int64_t numHeads = 0, numKvHeads = 0, headDim = 0;
  int64_t numPages = 0, pageSize = 0, pagesPerSeq = 0;
  bool tokenMajor = true;
  float softmaxScale = 1.0f, kScale = 1.0f, vScale = 1.0f;
  std::optional<float> softCap;
  /// A query sees its last `window` positions, itself included.
  std::optional<int64_t> window;
  bool hasSinks = false;
  /// v3's fused write: new keys and values, updated pools as results.
  bool writesCache = false;
  /// `prefill_paged_attention`: every sequence has `uniformQ` queries and
  /// is live; there are no cu_q_lens or num_seqs buffers. 0 otherwise.
  int64_t uniformQ = 0;
  /// `unified_attention`: ALiBi slopes, and the size `n` of its `[n, n]`
  /// query-query bias (0 for none). Every slot is live when there is no
  /// num_seqs buffer.
  bool hasAlibi = false;
  int64_t qqBiasSize = 0;
  Type queryType, cacheType;

  /// Whether a score gets a bias added before the soft cap.
  bool hasScoreBias() const { return hasAlibi || qqBiasSize > 0; }

  int64_t groupSize() const { return numHeads / numKvHeads; }
  int64_t maxContext() const { return pagesPerSeq * pageSize; }
  template <typename T>
  llvm::SmallVector<T> cacheIndices(T page, T slot, T kvHead, T d) const {
    if (tokenMajor)
      return {page, slot, kvHead, d};
    return {page, kvHead, slot, d};
  }
  /// Workgroups along x for query blocks of `blockQ` rows: enough for the
  /// blocks of every sequence and, after them, for zeroing the rows no live
  /// sequence owns (ragged only).
  int64_t queryBlocks(int64_t blockQ) const {
    if (uniformQ)
      return numSeqs * ((uniformQ + blockQ - 1) / blockQ);
    return 2 * ((numTokens + blockQ - 1) / blockQ) + numSeqs;
  }
};

struct RaggedPagedBuffers {
  /// `queries` is [num_tokens, heads, dim] or, for a prefill, [batch,
  /// seq_q, heads, dim] (`output` likewise). `cuQLens`, `numSeqs`,
  /// `newKeys`, `newValues`, `sinks`, `alibi`, `qqBias` and the updated
  /// pools may be null (no `numSeqs`: every slot is live).
  Value queries, keyCache, valueCache, kvLens, pageIndices, cuQLens, numSeqs;
  Value newKeys, newValues, sinks, alibi, qqBias;
  Value output, updatedKeys, updatedValues;
};

RaggedPagedProblem readRaggedPagedProblem(RaggedPagedAttentionOp op);
RaggedPagedProblem readRaggedPagedProblem(PrefillPagedAttentionOp op);
RaggedPagedProblem readRaggedPagedProblem(UnifiedAttentionOp op);

RaggedPagedBuffers findRaggedPagedBuffers(RaggedPagedAttentionOp op,
                                          DispatchRewriter &rewriter);
RaggedPagedBuffers findRaggedPagedBuffers(PrefillPagedAttentionOp op,
                                          DispatchRewriter &rewriter);
RaggedPagedBuffers findRaggedPagedBuffers(UnifiedAttentionOp op,
                                          DispatchRewriter &rewriter);

/// FLOPs of the two matmuls if every query row saw every token its table
/// holds (4 * rows * H * L * D with L the window or max context).
int64_t raggedPagedFlops(const RaggedPagedProblem &p);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_RAGGEDPROBLEM_H
