//===- MeanPooling.h - mean pooling on the CPU ---------------------*- C++
//-*-===//
//
// The CPU's config rules and kernel builders of `ejk.mean_pooling` and
// `ejk.mean_pooling_grad`, as the family's TargetKernels
// (ejk/Ops/OpModel.h) call them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_POOLING_CPU_MEANPOOLING_H
#define EJK_OPS_POOLING_CPU_MEANPOOLING_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct CpuMeanPooling {
  static SmallVector<ConfigAttr>
  configSpace(MeanPoolingOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(MeanPoolingOp op, const TargetInfo &target);
  static LogicalResult verifyConfig(MeanPoolingOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(MeanPoolingOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

struct CpuMeanPoolingGrad {
  static SmallVector<ConfigAttr>
  configSpace(MeanPoolingGradOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(MeanPoolingGradOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(MeanPoolingGradOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(MeanPoolingGradOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_POOLING_CPU_MEANPOOLING_H
