//===- FlashAttentionGrad.h - attention backward on the CPU -----*- C++ -*-===//
//
// The CPU's config rules and kernel builder of `ejk.flash_attention_grad`,
// as the family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_CPU_FLASHATTENTIONGRAD_H
#define EJK_OPS_ATTENTION_CPU_FLASHATTENTIONGRAD_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Attention/Problem.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct CpuFlashAttentionGrad {
  static SmallVector<ConfigAttr>
  configSpace(FlashAttentionGradOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(FlashAttentionGradOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(FlashAttentionGradOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  /// Four dispatches: D = rowsum(dO * O), the pack of K and V, the dK/dV
  /// pass (the op's own dispatch) and the dQ pass.
  static LogicalResult tile(FlashAttentionGradOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

/// The CPU rules of a backward config for problem `p` (block ranges, whole
/// vectors of keys, each pass's working set within L2); the block-sparse
/// backward adds its own.
LogicalResult verifyCpuAttentionGradConfig(const AttentionProblem &p,
                                           ConfigAttr config,
                                           const TargetInfo &target,
                                           raw_ostream &reason);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_CPU_FLASHATTENTIONGRAD_H
