//===- Problem.h - one flash attention, as config rules and kernels see it ===//
//
// The sizes and options of one `ejk.flash_attention` that the config rules
// and every kernel builder (CPU, Vulkan) need, read from the op once.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_PROBLEM_H
#define EJK_OPS_ATTENTION_PROBLEM_H

#include "mlir/IR/Value.h"

#include <array>
#include <cstdint>
#include <optional>

namespace mlir::ejk {

class DispatchRewriter;
class FlashAttentionOp;
class FlashAttentionGradOp;

struct AttentionProblem {
  int64_t batch, seqQ, seqK, numHeads, numKvHeads, headDim, headDimV;
  float softmaxScale;
  bool causal;
  /// `mask_alignment = "bottom_right"`: the causal diagonal and the window
  /// are centred on key i + seqK - seqQ instead of key i.
  bool bottomRight = false;
  std::optional<std::array<int64_t, 2>> slidingWindow;
  std::optional<float> softCap;
  std::optional<float> dropoutProb;
  uint64_t dropoutSeed = 0;
  bool biasBroadcastsBatch = false, biasBroadcastsHeads = false;
  bool maskBroadcastsBatch = false, maskBroadcastsHeads = false;

  /// Query i's diagonal key is i + maskOffset() (causal and window).
  int64_t maskOffset() const { return bottomRight ? seqK - seqQ : 0; }
};

/// The problem of `op` (a verified op).
AttentionProblem readAttentionProblem(FlashAttentionOp op);
/// The problem of the forward whose gradients `op` computes.
AttentionProblem readAttentionProblem(FlashAttentionGradOp op);

/// FLOPs of the two matmuls (FlashAttention's convention, halved when
/// causal).
inline int64_t attentionFlops(const AttentionProblem &p) {
  int64_t flops =
      2 * p.batch * p.numHeads * p.seqQ * p.seqK * (p.headDim + p.headDimV);
  return p.causal ? flops / 2 : flops;
}

/// FLOPs of the backward by FlashAttention's convention: 2.5 times the
/// forward's (five matmuls of the forward's size against two).
inline int64_t attentionGradFlops(const AttentionProblem &p) {
  return attentionFlops(p) * 5 / 2;
}

/// The operand and result buffers of an attention dispatch; optional ones
/// are null.
struct AttentionBuffers {
  Value query, key, value, bias, mask, qSegmentIds, kvSegmentIds;
  Value output, lse;
};

/// The buffers of `op`'s dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
AttentionBuffers findAttentionBuffers(FlashAttentionOp op,
                                      DispatchRewriter &rewriter);

/// The operand and result buffers of a backward dispatch; optional ones
/// are null.
struct AttentionGradBuffers {
  Value query, key, value, output, dOutput, lse, bias, mask, qSegmentIds,
      kvSegmentIds;
  Value dQuery, dKey, dValue;
};

/// The buffers of `op`'s dispatch.
AttentionGradBuffers findAttentionGradBuffers(FlashAttentionGradOp op,
                                              DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_PROBLEM_H
