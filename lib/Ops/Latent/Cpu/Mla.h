//===- Mla.h - latent attention on the CPU ----------------------*- C++ -*-===//
//
// The CPU's config rules and kernel builder of `ejk.mla` and
// `ejk.paged_mla`, as the family's TargetKernels (ejk/Ops/OpModel.h) call
// them (Rules.cpp, Kernel.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LATENT_CPU_MLA_H
#define EJK_OPS_LATENT_CPU_MLA_H

#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Latent/Config.h"
#include "ejk/Ops/Latent/Problem.h"

namespace mlir::ejk {

/// The configs of either op; `op` is read as an MlaProblem.
struct CpuMla {
  static SmallVector<ConfigAttr>
  configSpace(Operation *op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(Operation *op, const TargetInfo &target);
  static LogicalResult verifyConfig(Operation *op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(Operation *op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

/// Builds the CPU kernel of `problem` under `config` (Kernel.cpp).
LogicalResult tileCpuMla(Operation *op, const MlaProblem &problem,
                         const MlaConfig &config, const MlaBuffers &buffers,
                         DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_LATENT_CPU_MLA_H
