//===- BlockSparseGrad.h - block-sparse backward on the CPU -----*- C++ -*-===//
//
// The CPU's config rules and kernel builder of
// `ejk.block_sparse_attention_grad`: the flash attention backward
// (GradKernel.cpp) over the live-block lists of LiveBlocks.h, as the
// family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_CPU_BLOCKSPARSEGRAD_H
#define EJK_OPS_ATTENTION_CPU_BLOCKSPARSEGRAD_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct CpuBlockSparseAttentionGrad {
  static SmallVector<ConfigAttr> configSpace(BlockSparseAttentionGradOp op,
                                             const TargetInfo &target,
                                             bool full);
  static ConfigAttr heuristicConfig(BlockSparseAttentionGradOp op,
                                    const TargetInfo &target);
  /// flash_attention_grad's rules, and each pass's blocks inside one block
  /// of the mask.
  static LogicalResult verifyConfig(BlockSparseAttentionGradOp op,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason);
  /// The list dispatches (the transposed lists of the dK/dV pass, the lists
  /// of the dQ pass), delta, pack, dK/dV and dQ.
  static LogicalResult tile(BlockSparseAttentionGradOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_CPU_BLOCKSPARSEGRAD_H
