//===- FlashAttention.h - flash attention on the CPU ------------*- C++ -*-===//
//
// The CPU's config rules and kernel builder of `ejk.flash_attention`, as the
// family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_CPU_FLASHATTENTION_H
#define EJK_OPS_ATTENTION_CPU_FLASHATTENTION_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Attention/Problem.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct CpuFlashAttention {
  static SmallVector<ConfigAttr>
  configSpace(FlashAttentionOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(FlashAttentionOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(FlashAttentionOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  /// The attention dispatch, preceded by a dispatch that packs K
  /// transposed (unless K/V are read in place) and followed by one that
  /// combines split keys (when the config splits them).
  static LogicalResult tile(FlashAttentionOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

/// The CPU's config rules of every forward attention kernel (flash,
/// block-sparse): block_k in whole vectors, the working set in L2, key
/// splits only with one row block per head.
LogicalResult verifyCpuAttentionConfig(const AttentionProblem &p,
                                       ConfigAttr config,
                                       const TargetInfo &target,
                                       raw_ostream &reason);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_CPU_FLASHATTENTION_H
