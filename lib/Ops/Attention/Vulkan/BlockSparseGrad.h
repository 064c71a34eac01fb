//===- BlockSparseGrad.h - block-sparse backward on Vulkan ------*- C++ -*-===//
//
// Vulkan's config rules and kernel builder of
// `ejk.block_sparse_attention_grad`: the portable flash attention backward
// (GradKernel.cpp) over the live-block lists of LiveBlocks.h, as the
// family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_BLOCKSPARSEGRAD_H
#define EJK_OPS_ATTENTION_VULKAN_BLOCKSPARSEGRAD_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct VulkanBlockSparseAttentionGrad {
  static SmallVector<ConfigAttr> configSpace(BlockSparseAttentionGradOp op,
                                             const TargetInfo &target,
                                             bool full);
  static ConfigAttr heuristicConfig(BlockSparseAttentionGradOp op,
                                    const TargetInfo &target);
  /// flash_attention_grad's portable rules, and each pass's blocks inside
  /// one block of the mask.
  static LogicalResult verifyConfig(BlockSparseAttentionGradOp op,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason);
  /// The two list dispatches, delta, dK/dV and dQ.
  static LogicalResult tile(BlockSparseAttentionGradOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_BLOCKSPARSEGRAD_H
