//===- AttentionProblem.h - one flash attention, as kernels see it -*- C++ -*-//
//
// The sizes and options of one `ejk.flash_attention` that every kernel
// builder (CPU, Vulkan) needs, read once by the tiling pass.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_TRANSFORMS_ATTENTIONPROBLEM_H
#define EJK_LIB_TRANSFORMS_ATTENTIONPROBLEM_H

#include "mlir/IR/Value.h"

#include <array>
#include <cstdint>
#include <optional>

namespace mlir::ejk {

struct AttentionProblem {
  int64_t batch, seqQ, seqK, numHeads, numKvHeads, headDim, headDimV;
  float softmaxScale;
  bool causal;
  std::optional<std::array<int64_t, 2>> slidingWindow;
  std::optional<float> softCap;
  std::optional<float> dropoutProb;
  uint64_t dropoutSeed = 0;
  bool biasBroadcastsBatch = false, biasBroadcastsHeads = false;
  bool maskBroadcastsBatch = false, maskBroadcastsHeads = false;
};

/// The operand and result buffers of an attention dispatch; optional ones
/// are null.
struct AttentionBuffers {
  Value query, key, value, bias, mask, qSegmentIds, kvSegmentIds;
  Value output, lse;
};

} // namespace mlir::ejk

#endif // EJK_LIB_TRANSFORMS_ATTENTIONPROBLEM_H
