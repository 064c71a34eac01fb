//===- FlashAttentionGrad.h - attention backward on Vulkan ------*- C++ -*-===//
//
// Vulkan's config rules and kernel builder of `ejk.flash_attention_grad`,
// as the family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_FLASHATTENTIONGRAD_H
#define EJK_OPS_ATTENTION_VULKAN_FLASHATTENTIONGRAD_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct VulkanFlashAttentionGrad {
  static SmallVector<ConfigAttr>
  configSpace(FlashAttentionGradOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(FlashAttentionGradOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(FlashAttentionGradOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  /// Three dispatches: D = rowsum(dO * O), the dK/dV pass (the op's own
  /// dispatch) and the dQ pass.
  static LogicalResult tile(FlashAttentionGradOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_FLASHATTENTIONGRAD_H
