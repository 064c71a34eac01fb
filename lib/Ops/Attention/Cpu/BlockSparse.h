//===- BlockSparse.h - block-sparse attention on the CPU --------*- C++ -*-===//
//
// The CPU's config rules and kernel builder of `ejk.block_sparse_attention`:
// the flash attention kernel (Kernel.cpp) over the live-block lists of
// LiveBlocks.h, as the family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_CPU_BLOCKSPARSE_H
#define EJK_OPS_ATTENTION_CPU_BLOCKSPARSE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct CpuBlockSparseAttention {
  static SmallVector<ConfigAttr>
  configSpace(BlockSparseAttentionOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(BlockSparseAttentionOp op,
                                    const TargetInfo &target);
  /// The flash attention rules, and kernel blocks that each lie in one
  /// block of the mask, rows of one head (no grouped rows).
  static LogicalResult verifyConfig(BlockSparseAttentionOp op,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason);
  /// The live-block dispatch, the pack dispatch (unless K/V are read in
  /// place), the attention over the lists, and the combine of split keys
  /// (when the config splits them).
  static LogicalResult tile(BlockSparseAttentionOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_CPU_BLOCKSPARSE_H
