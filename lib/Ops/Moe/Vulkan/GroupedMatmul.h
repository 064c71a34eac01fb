//===- GroupedMatmul.h - the grouped matmuls on the Vulkan ------------*- C++
//-*-===//
//
// The Vulkan's config rules and kernel builders of `ejk.grouped_matmul` and
// `ejk.transposed_grouped_matmul`, as the family's TargetKernels
// (ejk/Ops/OpModel.h) call them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_MOE_VULKAN_GROUPEDMATMUL_H
#define EJK_OPS_MOE_VULKAN_GROUPEDMATMUL_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct VulkanGroupedMatmul {
  static SmallVector<ConfigAttr>
  configSpace(GroupedMatmulOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(GroupedMatmulOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(GroupedMatmulOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(GroupedMatmulOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

struct VulkanTransposedGroupedMatmul {
  static SmallVector<ConfigAttr> configSpace(TransposedGroupedMatmulOp op,
                                             const TargetInfo &target,
                                             bool full);
  static ConfigAttr heuristicConfig(TransposedGroupedMatmulOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(TransposedGroupedMatmulOp op,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(TransposedGroupedMatmulOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_MOE_VULKAN_GROUPEDMATMUL_H
