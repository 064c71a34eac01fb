//===- Problem.h - the gated linear recurrences, as kernels see them -*- C++
//-*-===//
//
// `ejk.gla`, `ejk.lightning_attention` and `ejk.recurrent` are one
// computation: a [head_dim_k, head_dim_v] state per (sequence, head) that
// decays through log gates over key dims (per step, and a constant per
// head) and over value dims, and takes outer(k_t, v_t) each step. This is
// that computation's sizes and options as the config rules and the kernel
// builders need them, the dispatch buffers they read and write, and the
// FLOP count of the chunked algorithm.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_PROBLEM_H
#define EJK_OPS_LINEAR_PROBLEM_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::ejk {

class DispatchRewriter;

/// Where the constant log decay per head comes from.
enum class GammaForm {
  /// No constant decay.
  None,
  /// A buffer `[heads]` (gla, recurrent `g_gamma`).
  PerHead,
  /// A buffer `[numSeqs, heads]` (a decay per sequence).
  PerSequence,
  /// A buffer `[heads]` of decay rates: gamma = -slopes[h] (lightning).
  NegatedSlopes,
  /// No buffer: gamma = -gammaStep * h (lightning's layer form).
  LinearInHead,
};

struct GlaProblem {
  int64_t batch, seq, heads, kvHeads, dimK, dimV;
  /// Sequences: `batch`, or the packed sequences of `cu_seqlens`.
  int64_t numSeqs;
  /// Per-step key-dim gates (`g`, and `gk` of ejk.recurrent; summed) and
  /// the value-dim gate (`gv`).
  bool hasG, hasGk, hasGv;
  GammaForm gamma = GammaForm::None;
  /// The decay rate per head index of GammaForm::LinearInHead.
  float gammaStep = 0.0f;
  bool packed, reverse;
  float scale;

  int64_t headsPerKv() const { return heads / kvHeads; }
  bool hasGamma() const { return gamma != GammaForm::None; }
  /// The state decays over key dims.
  bool gated() const { return hasG || hasGk || hasGamma(); }
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
  Value query, key, value, g, gk, gv, gGamma, initialState, cuSeqlens;
  Value output, finalState;

  /// Every buffer the kernel reads or writes (optional ones may be null).
  SmallVector<Value> all() const {
    return {query,  key,          value,     g,      gk,        gv,
            gGamma, initialState, cuSeqlens, output, finalState};
  }
};

/// The problem of an `ejk.gla`, `ejk.lightning_attention` or
/// `ejk.recurrent`.
GlaProblem readGlaProblem(Operation *op);

/// The buffers of the op's dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
GlaBuffers findGlaBuffers(Operation *op, DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_PROBLEM_H
