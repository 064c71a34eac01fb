//===- Delta.h - Reference (gated) delta rule -------------------*- C++ -*-===//
//
// The oracle for ejk.delta_attention (DeltaNet, Gated DeltaNet, Kimi Delta
// Attention): the recurrence itself, one step at a time, over host f32
// buffers, with the state and every sum in double. Buffers are row-major
// and contiguous.
//
// Per sequence n, head h (key/value head j = h / (H / Hkv)), over the
// sequence's steps t in order (last to first with reverse):
//   q, k    = q[.,t,h], k[.,t,j], each divided by sqrt(sum x^2 + 1e-6)
//             when l2Norm
//   S[k,v] *= exp(a[k])          a = decay[.,t,h] (a scalar broadcast over
//                                k, or a vector over k; 0 when absent)
//   d[v]    = beta[.,t,h] * (v[.,t,j,v] - sum_k k[k] S[k,v])
//   S[k,v] += k[k] * d[v]
//   o[.,t,h,v] = scale * sum_k q[k] S[k,v]
// S starts at initialState[n,h] (0 when absent); finalState[n,h] is S after
// the last step. Sequences are as for gla (Linear.h): batch rows, or the
// clamped ranges of cuSeqlens with batch 1 (steps of no sequence give 0).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_DELTA_H
#define EJK_REFERENCE_DELTA_H

#include "ejk/Reference/Tensor.h"

#include <optional>
#include <vector>

namespace ejk::reference {

/// The tensors of a delta-rule attention.
struct DeltaProblem {
  /// [batch, seq, heads, headDimK].
  TensorRef<float> q;
  /// [batch, seq, kvHeads, headDimK]; heads % kvHeads == 0.
  TensorRef<float> k;
  /// [batch, seq, kvHeads, headDimV].
  TensorRef<float> v;
  /// The learning rate of each step, [batch, seq, heads].
  TensorRef<float> beta;
};

/// The optional parts of a delta-rule attention.
struct DeltaOptions {
  /// Log decay, per head [batch, seq, heads] or per key dim [batch, seq,
  /// heads, headDimK].
  std::optional<TensorRef<float>> decay;
  /// Starting state, [numSeqs, heads, headDimK, headDimV]; zero when absent.
  std::optional<TensorRef<float>> initialState;
  /// Cumulative sequence lengths (integers held as floats), [numSeqs + 1];
  /// batch must be 1.
  std::optional<TensorRef<float>> cuSeqlens;
  float scale = 1.0f;
  bool l2Norm = true;
  bool reverse = false;
};

/// The (gated) delta rule. On success \p o is [batch, seq, heads, headDimV]
/// and \p finalState is [numSeqs, heads, headDimK, headDimV]. Messages start
/// with "delta_attention: " and name the buffer at fault.
Status deltaAttention(const DeltaProblem &problem, const DeltaOptions &options,
                      std::vector<float> &o, std::vector<float> &finalState);

} // namespace ejk::reference

#endif // EJK_REFERENCE_DELTA_H
