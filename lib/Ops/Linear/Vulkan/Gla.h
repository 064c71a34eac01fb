//===- Gla.h - gated linear attention on Vulkan -----------------*- C++ -*-===//
//
// Vulkan's config rules and kernel builder of `ejk.gla`, as the family's
// TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_GLA_H
#define EJK_OPS_LINEAR_VULKAN_GLA_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct VulkanGla {
  static SmallVector<ConfigAttr>
  configSpace(Operation *op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(Operation *op, const TargetInfo &target);
  static LogicalResult verifyConfig(Operation *op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(Operation *op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_GLA_H
