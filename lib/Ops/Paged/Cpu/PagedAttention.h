//===- PagedAttention.h - paged attention on the CPU ------------*- C++ -*-===//
//
// The CPU's config rules and kernel builder of `ejk.paged_attention`, as
// the family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_CPU_PAGEDATTENTION_H
#define EJK_OPS_PAGED_CPU_PAGEDATTENTION_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct CpuPagedAttention {
  static SmallVector<ConfigAttr>
  configSpace(PagedAttentionOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(PagedAttentionOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(PagedAttentionOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(PagedAttentionOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_CPU_PAGEDATTENTION_H
