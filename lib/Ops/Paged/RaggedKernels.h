//===- RaggedKernels.h - ragged paged attention on each target --*- C++ -*-===//
//
// The config rules and kernel builders of ejk.ragged_paged_attention and
// ejk.prefill_paged_attention (one problem, RaggedProblem.h) on the CPU
// (Cpu/Ragged.cpp) and Vulkan (Vulkan/Ragged.cpp): the paged decode
// kernels with one packed query row a sequence (RaggedRows.h), after the
// fused cache write when there is one (CacheWrite.h).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_RAGGEDKERNELS_H
#define EJK_OPS_PAGED_RAGGEDKERNELS_H

#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Paged/RaggedProblem.h"
#include "ejk/Ops/Registry.h"

namespace mlir::ejk {

struct CpuRaggedPaged {
  static SmallVector<ConfigAttr> configSpace(const RaggedPagedProblem &p,
                                             MLIRContext *context,
                                             const TargetInfo &target,
                                             bool full);
  static ConfigAttr heuristicConfig(const RaggedPagedProblem &p,
                                    MLIRContext *context,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(const RaggedPagedProblem &p,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(Operation *op, const RaggedPagedProblem &p,
                            ConfigAttr config, RaggedPagedBuffers buffers,
                            DispatchRewriter &rewriter);
};

struct VulkanRaggedPaged {
  static SmallVector<ConfigAttr> configSpace(const RaggedPagedProblem &p,
                                             MLIRContext *context,
                                             const TargetInfo &target,
                                             bool full);
  static ConfigAttr heuristicConfig(const RaggedPagedProblem &p,
                                    MLIRContext *context,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(const RaggedPagedProblem &p,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(Operation *op, const RaggedPagedProblem &p,
                            ConfigAttr config, RaggedPagedBuffers buffers,
                            DispatchRewriter &rewriter);
};

/// Registers the ragged and prefill models (RaggedModel.cpp); called by
/// registerPagedFamily.
void registerRaggedPagedModels(DialectRegistry &registry);
/// Registers ragged_decode_attention's model (RaggedDecodeModel.cpp); called
/// by registerPagedFamily.
void registerRaggedDecodeModel(DialectRegistry &registry);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_RAGGEDKERNELS_H
