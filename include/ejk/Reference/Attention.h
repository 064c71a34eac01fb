//===- Attention.h - Reference flash attention forward ----------*- C++ -*-===//
//
// The numerical oracle for ejk.flash_attention: naive loops over host f32
// buffers with f64 accumulation. Layout is BSHD ([batch, seq, heads, dim]),
// row-major and contiguous. f16/bf16 callers convert to f32 first
// (ejk/Support/Float16.h).
//
// Semantics, per batch b, query head h, query i (kv head h / (Hq / Hkv)):
//   s_j   = scale * dot(q[b,i,h,:], k[b,j,kvh,:])          (in double)
//   s_j   = cap * tanh(s_j / cap)                   if logitsSoftCap
//   s_j  += bias[b|0, h|0, i, j]                    if bias
//   key j is allowed iff every given constraint admits it:
//     causal:         j <= i + offset                  (offset = 0, top-left
//     slidingWindow:  (i + offset) - j <= left and      as ejKernel; Sk - Sq
//                     j - (i + offset) <= right         when
//                     bottomRightAligned,
//                                                       as FlashAttention-2)
//     mask:           mask[b|0, h|0, i, j] != 0
//     segment ids:    qSegmentIds[b,i] == kvSegmentIds[b,j]
//     paddingMask:    paddingMask[b,i] != 0 and paddingMask[b,j] != 0
//     cumSeqlensQ/K:  i < lenQ[b] and j < lenK[b], where lenX[b] =
//                     clamp(cum[b+1] - cum[b], 0, seqX) (seqX when absent);
//                     bottom-right then uses offset = lenK[b] - lenQ[b]
//   m     = max(max over allowed j of s_j, max_n sink_n)   (sinks: the
//           softmaxAux row of h, or the shared [numSinks] row)
//   lse   = m + log(sum over allowed j of exp(s_j - m) + sum_n exp(sink_n - m))
//   p_j   = exp(s_j - lse) for allowed j, 0 otherwise
//   out   = sum_j dropout(p_j) * v[b,j,kvh,:]
//           (normalizeOutput false: sum_j dropout(exp(s_j - m)) * v[b,j,kvh,:])
// where dropout(p_j) = p_j / (1 - prob) when
// ejk::dropoutKeep(ejk::dropoutBits(seed, b, h, i, j), prob), else 0 (h is
// the query head; lse is taken before dropout). A row with no allowed key,
// or whose scores are all -inf, gives out = 0 and lse = -inf (the sinks'
// log-sum-exp when there are sinks), never NaN.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_ATTENTION_H
#define EJK_REFERENCE_ATTENTION_H

#include "ejk/Reference/Tensor.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ejk::reference {

/// The tensors every attention call reads.
struct AttentionProblem {
  /// Queries, [batch, seqQ, numQHeads, headDim]; headDim >= 1.
  TensorRef<float> q;
  /// Keys, [batch, seqK, numKvHeads, headDim]; numQHeads % numKvHeads == 0.
  TensorRef<float> k;
  /// Values, [batch, seqK, numKvHeads, valueDim]; valueDim may differ from
  /// headDim.
  TensorRef<float> v;
};

/// A local attention band around the diagonal: query i sees key j iff
/// (i + offset) - j <= left and j - (i + offset) <= right, where offset is
/// the options' alignment (seqK - seqQ when bottomRightAligned, else 0).
/// Both must be >= 0.
struct SlidingWindow {
  int64_t left = 0;
  int64_t right = 0;
};

/// Everything optional about an attention call; the defaults give plain
/// softmax(q k^T / sqrt(headDim)) v.
struct AttentionOptions {
  /// Multiplies q.k; 1 / sqrt(headDim) when absent. Must be finite.
  std::optional<float> softmaxScale;
  /// Keep key j for query i only when j <= i + offset.
  bool causal = false;
  /// offset = seqK - seqQ (the last query on the last key) instead of 0.
  bool bottomRightAligned = false;
  /// Restricts each query to a band of keys; applies with or without causal.
  std::optional<SlidingWindow> slidingWindow;
  /// s = cap * tanh(s / cap) before the bias; cap must be finite and > 0.
  std::optional<float> logitsSoftCap;
  /// Added to the scores, [Bb, Hb, seqQ, seqK], Bb in {1, batch}, Hb in
  /// {1, numQHeads} (broadcast when 1).
  std::optional<TensorRef<float>> bias;
  /// Nonzero = may attend, [Bm, Hm, seqQ, seqK], broadcast like bias.
  std::optional<TensorRef<uint8_t>> mask;
  /// Per-token segment ids, [batch, seqQ]; given together with kvSegmentIds.
  std::optional<TensorRef<int32_t>> qSegmentIds;
  /// Per-token segment ids, [batch, seqK]; attend only where ids are equal.
  std::optional<TensorRef<int32_t>> kvSegmentIds;
  /// Probability of dropping an attention weight, in [0, 1).
  float dropoutProb = 0.0f;
  /// Seed of the counter-based dropout RNG (ejk/Support/DropoutHash.h).
  uint64_t dropoutSeed = 0;
  /// Attention sinks: [numQHeads, numSinks] or [numSinks] (shared by all
  /// heads); extra logits in the softmax denominator that carry no value.
  std::optional<TensorRef<float>> softmaxAux;
  /// Divide the output by the softmax denominator (false: ejKernel's
  /// normalize_output = False, relative to the row's largest logit).
  bool normalizeOutput = true;
  /// Nonzero = a real token, [batch, seqQ] with seqQ == seqK; masks padded
  /// queries and keys alike.
  std::optional<TensorRef<uint8_t>> paddingMask;
  /// Cumulative sequence lengths, [batch + 1] each (variable-length
  /// batches in ejKernel's padded layout).
  std::optional<TensorRef<int32_t>> cumSeqlensQ, cumSeqlensK;
};

/// The extents of a verified attention problem.
struct AttentionDims {
  int64_t batch = 0;
  int64_t seqQ = 0;
  int64_t seqK = 0;
  int64_t numQHeads = 0;
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  int64_t valueDim = 0;

  /// Query heads per kv head: query head h reads kv head h / groupSize().
  int64_t groupSize() const { return numQHeads / numKvHeads; }
};

/// Checks every shape and option of an attention call and, on success, fills
/// \p dims. Messages start with "flash_attention: " and name the buffer or
/// option at fault.
Status verifyAttention(const AttentionProblem &problem,
                       const AttentionOptions &options, AttentionDims &dims);

/// The scale applied to q.k: the option if given, else 1 / sqrt(headDim).
double effectiveSoftmaxScale(const AttentionOptions &options, int64_t headDim);

/// The attention weights of one query row, the building block shared by the
/// forward and the backward pass. Vectors have seqK entries.
struct AttentionRow {
  /// log of the softmax denominator; -inf for a fully masked row.
  double lse = 0.0;
  /// The row's largest logit (sinks included); -inf for an empty row.
  double maxLogit = 0.0;
  /// Softmax probabilities before dropout; 0 for keys not allowed.
  std::vector<double> prob;
  /// 1 / (1 - dropoutProb) for kept keys, 0 for dropped ones; all 1 without
  /// dropout.
  std::vector<double> dropoutScale;
  /// d(capped score) / d(raw score): 1 - tanh^2(raw / cap) with a soft cap,
  /// else 1.
  std::vector<double> softCapGrad;
};

/// Computes the attention row of (batch \p b, query head \p h, query \p i).
/// Requires that verifyAttention succeeded and produced \p dims.
void computeAttentionRow(const AttentionProblem &problem,
                         const AttentionOptions &options,
                         const AttentionDims &dims, int64_t b, int64_t h,
                         int64_t i, AttentionRow &row);

/// Flash attention forward. On success \p out is [batch, seqQ, numQHeads,
/// valueDim] and \p lse is [batch, numQHeads, seqQ] (natural log); on failure
/// the status names the problem and the outputs are unspecified.
Status flashAttention(const AttentionProblem &problem,
                      const AttentionOptions &options, std::vector<float> &out,
                      std::vector<float> &lse);

} // namespace ejk::reference

#endif // EJK_REFERENCE_ATTENTION_H
