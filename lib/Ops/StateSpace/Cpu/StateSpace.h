//===- StateSpace.h - the state-space ops on the CPU ------------*- C++ -*-===//
//
// The CPU's config rules and kernel builders of `ejk.selective_scan` and
// `ejk.ssd`, as the family's TargetKernels (ejk/Ops/OpModel.h) call them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_CPU_STATESPACE_H
#define EJK_OPS_STATESPACE_CPU_STATESPACE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct CpuSelectiveScan {
  static SmallVector<ConfigAttr>
  configSpace(SelectiveScanOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(SelectiveScanOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(SelectiveScanOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(SelectiveScanOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

struct CpuSsd {
  static SmallVector<ConfigAttr> configSpace(SsdOp op, const TargetInfo &target,
                                             bool full);
  static ConfigAttr heuristicConfig(SsdOp op, const TargetInfo &target);
  static LogicalResult verifyConfig(SsdOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  /// The scan, preceded by a pre-pass dispatch that computes the per-chunk
  /// C B^T scores once per group.
  static LogicalResult tile(SsdOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_CPU_STATESPACE_H
