//===- BlockSparse.h - block-sparse attention on Vulkan ---------*- C++ -*-===//
//
// The Vulkan config rules and kernel builder of
// `ejk.block_sparse_attention`: a flash attention kernel over the
// live-block lists of LiveBlocks.h, the cooperative-matrix one
// (CoopKernel.cpp) for f16 (bf16 on bf16 matrices) on devices with
// cooperative matrices, else the portable one (Kernel.cpp, f32 arithmetic
// for every element type).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_BLOCKSPARSE_H
#define EJK_OPS_ATTENTION_VULKAN_BLOCKSPARSE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct VulkanBlockSparseAttention {
  static SmallVector<ConfigAttr>
  configSpace(BlockSparseAttentionOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(BlockSparseAttentionOp op,
                                    const TargetInfo &target);
  /// A layout exists (Layout.h; cooperative where the op runs that
  /// kernel), f16 has the device features, no key splits, and the blocks
  /// each lie in one block of the mask.
  static LogicalResult verifyConfig(BlockSparseAttentionOp op,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason);
  /// The attention, which builds its live-block list itself where the list
  /// fits in workgroup memory beside its stages, else after a live-block
  /// dispatch (one thread per list).
  static LogicalResult tile(BlockSparseAttentionOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_BLOCKSPARSE_H
