//===- Problem.h - paged attention, as kernels see it -----------*- C++ -*-===//
//
// The sizes and options of one `ejk.paged_attention` that the config rules
// and every kernel builder (CPU, Vulkan) need, and the dispatch buffers
// they read and write.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_PROBLEM_H
#define EJK_OPS_PAGED_PROBLEM_H

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::ejk {

class DispatchRewriter;
class PagedAttentionOp;
class RaggedRowSource;

struct PagedAttentionProblem {
  int64_t batch = 0, numHeads = 0, numKvHeads = 0, headDim = 0;
  int64_t numPages = 0, pageSize = 0, maxPagesPerSeq = 0;
  /// Pages are [num_pages, page_size, num_kv_heads, head_dim] when true,
  /// [num_pages, num_kv_heads, page_size, head_dim] otherwise.
  bool tokenMajor = false;
  float softmaxScale = 1.0f;
  /// Dequantization scales of the cache (1 unless the op sets them): the
  /// scores are multiplied by kScale, the output by vScale.
  float kScale = 1.0f, vScale = 1.0f;
  std::optional<float> softCap;
  /// Tokens a query sees: the last `window` of its sequence.
  std::optional<int64_t> window;
  bool hasLse = false;
  Type queryType, cacheType;
  /// A dense KV cache seen as pages (a flash_attention decode, see
  /// denseDecodeAsPaged): sequence b is page b of `pageSize` = seq_k tokens,
  /// token-major, every sequence full; there are no length or table buffers.
  bool denseKv = false;
  /// Sink logits of a decode (ragged_decode_attention's `softmax_aux`):
  /// `[numSinks]` shared by every head, `[num_kv_heads, numSinks]` or
  /// `[num_heads, numSinks]`; each head's logits join its denominator.
  enum class Sinks { None, Shared, PerKvHead, PerHead };
  Sinks sinks = Sinks::None;
  int64_t numSinks = 0;

  /// Query heads per KV head.
  int64_t groupSize() const { return numHeads / numKvHeads; }
  /// The most tokens a sequence can hold: its table's pages, full.
  int64_t maxContext() const { return maxPagesPerSeq * pageSize; }
  /// Dims of token `slot` of KV head `kvHead` in page `page`, in the
  /// cache's layout order (the caller passes index Values).
  template <typename T>
  llvm::SmallVector<T> cacheIndices(T page, T slot, T kvHead, T d) const {
    if (tokenMajor)
      return {page, slot, kvHead, d};
    return {page, kvHead, slot, d};
  }
};

struct PagedAttentionBuffers {
  /// `query` is [batch, num_heads, head_dim], or [batch, 1, num_heads,
  /// head_dim] for a dense decode (and `output` likewise; `lse` [batch,
  /// num_heads] or [batch, num_heads, 1]). `contextLens` and `blockTables`
  /// are null for a dense decode.
  Value query, keyCache, valueCache, contextLens, blockTables;
  /// Results; `lse` is null when the op has none.
  Value output, lse;
  /// A ragged batch run as one decode per packed query row
  /// (lib/Ops/Paged/RaggedRows.h): `batch` indexes rows, and the source
  /// says which table row and how many tokens each sees. Null otherwise.
  const RaggedRowSource *ragged = nullptr;
  /// ragged_decode_attention: the first visible token of each sequence
  /// ([batch] i32; `contextLens` is then its end) and the sink logits
  /// (PagedAttentionProblem::sinks). Null otherwise.
  Value sequenceStarts, sinks;

  SmallVector<Value> all() const {
    return {query, keyCache, valueCache, contextLens, blockTables, output, lse};
  }
};

PagedAttentionProblem readPagedAttentionProblem(PagedAttentionOp op);

struct AttentionProblem;
/// The decode of a `flash_attention` with one query row per sequence over
/// dense K/V ([batch, seq_k, kv_heads, head_dim]) as a paged problem whose
/// pages are the sequences (`denseKv`), when its options are ones the paged
/// kernels have: no bias, mask, segment ids or dropout, equal head dims,
/// and a mask that leaves a suffix of the keys (bottom-right causal or
/// window, or none); nullopt otherwise.
std::optional<PagedAttentionProblem>
denseDecodeAsPaged(const AttentionProblem &attention, Type queryType,
                   Type keyType, bool hasLse, bool hasMaskOrBias);

/// The buffers of the op's dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
PagedAttentionBuffers findPagedAttentionBuffers(PagedAttentionOp op,
                                                DispatchRewriter &rewriter);

/// FLOPs of the two matmuls over every cached token (4 * B * H * L * D with
/// L = max_pages_per_seq * page_size, the bound the kernel is built for).
int64_t pagedAttentionFlops(const PagedAttentionProblem &p);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_PROBLEM_H
