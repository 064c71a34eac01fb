//===- Delta.h - the delta rule on Vulkan -----------------------*- C++ -*-===//
//
// Vulkan's config rules and kernel builder of `ejk.delta_attention`, as the
// family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_DELTA_H
#define EJK_OPS_LINEAR_VULKAN_DELTA_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct VulkanDelta {
  static SmallVector<ConfigAttr>
  configSpace(DeltaAttentionOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(DeltaAttentionOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(DeltaAttentionOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(DeltaAttentionOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_DELTA_H
