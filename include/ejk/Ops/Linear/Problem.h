//===- Problem.h - the linear-recurrent ops, as kernels see them -*- C++
//-*-===//
//
// The sizes and options of one `ejk.gla` that the config rules and the
// kernel builders need, the dispatch buffers they read and write, and the
// FLOP count of the chunked algorithm.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_PROBLEM_H
#define EJK_OPS_LINEAR_PROBLEM_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::ejk {

class DispatchRewriter;
class GlaOp;

struct GlaProblem {
  int64_t batch, seq, heads, kvHeads, dimK, dimV;
  /// Sequences: `batch`, or the packed sequences of `cu_seqlens`.
  int64_t numSeqs;
  bool hasG, hasGamma, packed, reverse;
  float scale;

  int64_t headsPerKv() const { return heads / kvHeads; }
  bool gated() const { return hasG || hasGamma; }
  /// Steps over all sequences (the packed tokens, or batch x seq).
  int64_t steps() const { return batch * seq; }
};

/// Multiply-adds (2 FLOPs each) of the chunked algorithm with chunks of
/// `chunk` steps, per (step, head): the causal half of the chunk's scores
/// Q K^T ((chunk + 1) / 2 keys of head_dim_k) and of A V (head_dim_v), the
/// state's contribution q S and the state update k^T v (head_dim_k x
/// head_dim_v each):
///   FLOPs = steps * heads * (4 K V + (chunk + 1) (K + V)).
/// The gates' exps are not counted; nor is the scores' recomputation per
/// block of head_dim_v.
inline int64_t glaFlops(const GlaProblem &p, int64_t chunk) {
  return p.steps() * p.heads *
         (4 * p.dimK * p.dimV + (chunk + 1) * (p.dimK + p.dimV));
}

struct GlaBuffers {
  Value query, key, value, g, gGamma, initialState, cuSeqlens;
  Value output, finalState;

  /// Every buffer the kernel reads or writes (optional ones may be null).
  SmallVector<Value> all() const {
    return {query,        key,       value,  g,         gGamma,
            initialState, cuSeqlens, output, finalState};
  }
};

GlaProblem readGlaProblem(GlaOp op);

/// The buffers of the op's dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
GlaBuffers findGlaBuffers(GlaOp op, DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_PROBLEM_H
