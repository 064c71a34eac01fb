//===- DeltaProblem.h - ejk.delta_attention, as kernels see it --*- C++ -*-===//
//
// The sizes and options of one `ejk.delta_attention` that the config rules
// and the kernel builders need, the dispatch buffers they read and write,
// and the FLOP count of the chunked algorithm.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_DELTAPROBLEM_H
#define EJK_OPS_LINEAR_DELTAPROBLEM_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::ejk {

class DispatchRewriter;
class DeltaAttentionOp;

/// How the state decays: not at all, by one log decay per (step, head)
/// (Gated DeltaNet), or by one per (step, head, key dim) (Kimi's KDA).
enum class DeltaDecay { None, PerHead, PerKey };

struct DeltaProblem {
  int64_t batch, seq, heads, kvHeads, dimK, dimV;
  /// Sequences: `batch`, or the packed sequences of `cu_seqlens`.
  int64_t numSeqs;
  DeltaDecay decay;
  bool l2Norm, packed, reverse;
  float scale;

  int64_t headsPerKv() const { return heads / kvHeads; }
  bool decayed() const { return decay != DeltaDecay::None; }
  /// Steps over all sequences (the packed tokens, or batch x seq).
  int64_t steps() const { return batch * seq; }
};

/// Multiply-adds (2 FLOPs each) of the chunked algorithm with chunks of
/// `chunk` steps, per (step, head): the state's three products (K~ S for
/// the corrections, Q~ S for the outputs, the update K^T U; head_dim_k x
/// head_dim_v each), the causal halves of the chunk's two score matrices
/// (Q K^T and K K^T, (chunk + 1) / 2 keys of head_dim_k each), the
/// triangular solve and the scores times the new values ((chunk + 1) / 2
/// rows of head_dim_v each):
///   FLOPs = steps * heads * (6 K V + (chunk + 1) (2 K + 2 V)).
/// The decays' exps and the l2 norms are not counted; nor is the scores'
/// recomputation per block of head_dim_v.
inline int64_t deltaFlops(const DeltaProblem &p, int64_t chunk) {
  return p.steps() * p.heads *
         (6 * p.dimK * p.dimV + (chunk + 1) * 2 * (p.dimK + p.dimV));
}

struct DeltaBuffers {
  Value query, key, value, beta, decay, initialState, cuSeqlens;
  Value output, finalState;

  /// Every buffer the kernel reads or writes (optional ones may be null).
  SmallVector<Value> all() const {
    return {query,        key,       value,  beta,      decay,
            initialState, cuSeqlens, output, finalState};
  }
};

DeltaProblem readDeltaProblem(DeltaAttentionOp op);

/// The buffers of the op's dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
DeltaBuffers findDeltaBuffers(DeltaAttentionOp op, DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_DELTAPROBLEM_H
