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

/// FLOPs of the two matmuls (FlashAttention's convention, halved when
/// causal).
inline int64_t attentionFlops(const AttentionProblem &p) {
  int64_t flops =
      2 * p.batch * p.numHeads * p.seqQ * p.seqK * (p.headDim + p.headDimV);
  return p.causal ? flops / 2 : flops;
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

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_PROBLEM_H
