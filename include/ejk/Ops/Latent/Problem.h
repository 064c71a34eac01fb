//===- Problem.h - latent attention, as kernels see it ----------*- C++ -*-===//
//
// The sizes and options of one `ejk.mla` or `ejk.paged_mla` that the config
// rules and the kernel builders of both targets need, and the dispatch
// buffers they read and write. Both ops run through one set of kernels: a
// "row" is one query token (all its heads), and the kernels only differ in
// how a row finds its visible cache tokens and where a cache row lies.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LATENT_PROBLEM_H
#define EJK_OPS_LATENT_PROBLEM_H

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::ejk {

class DispatchRewriter;

struct MlaProblem {
  int64_t numHeads = 0, latentDim = 0, ropeDim = 0;
  /// ejk.mla: batch x seq_q rows over seq_k cached tokens per sequence.
  int64_t batch = 0, seqQ = 0, seqK = 0;
  bool causal = false;
  /// ejk.paged_mla: num_tokens packed rows of num_seqs sequences.
  bool paged = false;
  int64_t numTokens = 0, numSeqs = 0, numPages = 0, pageSize = 0,
          maxPagesPerSeq = 0;
  float softmaxScale = 1.0f;
  bool hasLse = false;
  Type elementType;

  /// The grid's row dims (y, z): (seq_q, batch) or (num_tokens, 1).
  std::array<int64_t, 2> rowGrid() const {
    if (paged)
      return {numTokens, 1};
    return {seqQ, batch};
  }
  int64_t rows() const { return rowGrid()[0] * rowGrid()[1]; }
  /// The most cache tokens one row sees.
  int64_t maxContext() const {
    return paged ? maxPagesPerSeq * pageSize : seqK;
  }
  /// Bytes of one cache token's latent and RoPE key.
  int64_t cacheRowBytes() const {
    return (latentDim + ropeDim) * elementType.getIntOrFloatBitWidth() / 8;
  }
};

struct MlaBuffers {
  Value qLatent, qRope;
  /// ejk.mla's dense caches, or ejk.paged_mla's pages and tables (null for
  /// the other op).
  Value kvLatent, kRope;
  Value kvCache, contextLens, blockTables, queryStartLoc;
  /// Results; `lse` is null when the op has none.
  Value output, lse;
};

/// `op` is an ejk.mla or an ejk.paged_mla.
MlaProblem readMlaProblem(Operation *op);
MlaBuffers findMlaBuffers(Operation *op, DispatchRewriter &rewriter);

/// FLOPs of the two products over every token a row may see:
/// 2 * rows * heads * tokens * (2 * latent_dim + rope_dim).
int64_t mlaFlops(const MlaProblem &p);
/// Bytes of the cache as the kernels read it (each sequence's tokens once
/// per row of dense ejk.mla, once per row of ejk.paged_mla), plus queries
/// and results.
int64_t mlaCacheBytes(const MlaProblem &p);

} // namespace mlir::ejk

#endif // EJK_OPS_LATENT_PROBLEM_H
