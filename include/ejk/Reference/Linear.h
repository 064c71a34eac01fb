//===- Linear.h - Reference linear-recurrent attention ----------*- C++ -*-===//
//
// The oracle for ejk.gla, ejk.lightning_attention and ejk.recurrent (gated
// linear recurrences): the recurrence itself, one step at a time, over host
// f32 buffers, with the state and every sum in double. Buffers are
// row-major and contiguous.
//
// gla, per sequence n, head h (key/value head j = h / (H / Hkv)), over the
// sequence's steps t in order (last to first with reverse):
//   a[k]    = g[.,t,h,k] + gk[.,t,h,k] + gGamma[(n,) h]   (missing: 0)
//   S[k,v]  = exp(a[k] + gv[.,t,h,v]) * S[k,v] + k[.,t,j,k] * v[.,t,j,v]
//   o[.,t,h,v] = scale * sum_k q[.,t,h,k] * S[k,v]
// S starts at initialState[n,h] (0 when absent); finalState[n,h] is S after
// the last step. Without cuSeqlens, sequence n is batch row n; with it, the
// batch is 1 and sequence n is the steps [clamp(cu[n], 0, T),
// clamp(cu[n+1], start, T)); steps of no sequence give 0.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_LINEAR_H
#define EJK_REFERENCE_LINEAR_H

#include "ejk/Reference/Tensor.h"

#include <optional>
#include <vector>

namespace ejk::reference {

/// The tensors of a gated linear attention.
struct GlaProblem {
  /// [batch, seq, heads, headDimK].
  TensorRef<float> q;
  /// [batch, seq, kvHeads, headDimK]; heads % kvHeads == 0.
  TensorRef<float> k;
  /// [batch, seq, kvHeads, headDimV].
  TensorRef<float> v;
};

/// The optional parts of a gated linear attention.
struct GlaOptions {
  /// Log-space gates per key dim, [batch, seq, heads, headDimK] each.
  std::optional<TensorRef<float>> g, gk;
  /// Log-space gate per value dim, [batch, seq, heads, headDimV].
  std::optional<TensorRef<float>> gv;
  /// Constant log decay per head, [heads] or [numSeqs, heads].
  std::optional<TensorRef<float>> gGamma;
  /// Starting state, [numSeqs, heads, headDimK, headDimV]; zero when absent.
  std::optional<TensorRef<float>> initialState;
  /// Cumulative sequence lengths (integers held as floats), [numSeqs + 1];
  /// batch must be 1.
  std::optional<TensorRef<float>> cuSeqlens;
  float scale = 1.0f;
  bool reverse = false;
};

/// Gated linear attention. On success \p o is [batch, seq, heads, headDimV]
/// and \p finalState is [numSeqs, heads, headDimK, headDimV]. Messages
/// start with "gla: " and name the buffer at fault.
Status gla(const GlaProblem &problem, const GlaOptions &options,
           std::vector<float> &o, std::vector<float> &finalState);

} // namespace ejk::reference

#endif // EJK_REFERENCE_LINEAR_H
