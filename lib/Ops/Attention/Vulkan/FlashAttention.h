//===- FlashAttention.h - flash attention on Vulkan -------------*- C++ -*-===//
//
// Vulkan's config rules and kernel builder of `ejk.flash_attention`, as the
// family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_FLASHATTENTION_H
#define EJK_OPS_ATTENTION_VULKAN_FLASHATTENTION_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Attention/Config.h"
#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Paged/Config.h"
#include "ejk/Ops/Paged/Problem.h"

#include <optional>

namespace mlir::ejk {

struct VulkanFlashAttention {
  static SmallVector<ConfigAttr>
  configSpace(FlashAttentionOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(FlashAttentionOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(FlashAttentionOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  /// One dispatch: the portable kernel or, with f16 inputs on a device
  /// with cooperative matrices, the cooperative-matrix kernel.
  static LogicalResult tile(FlashAttentionOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

/// `op` as a decode for the paged family's Vulkan kernel (one query row,
/// no per-score inputs; denseDecodeAsPaged), or nullopt.
std::optional<PagedAttentionProblem> vulkanDecodeProblem(FlashAttentionOp op);
/// The decode kernel's config of a `block_q = 1` config: block_k,
/// num_subgroups, and key_splits as num_splits.
PagedAttentionConfig vulkanDecodeConfig(const FlashAttentionConfig &config);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_FLASHATTENTION_H
