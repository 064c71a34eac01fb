//===- TunableModel.h - TunableOpInterface from an OpModel ------*- C++ -*-===//
//
// The dialect declares that its kernel-backed ops promise
// TunableOpInterface; a family fulfils the promise by attaching this
// external model, which answers from the op's registered OpModel and the
// TargetKernel of the asked target. Config selection therefore sees every
// family through the interface alone.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_TUNABLEMODEL_H
#define EJK_OPS_TUNABLEMODEL_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/OpModel.h"

namespace mlir::ejk {

/// Writes why `op` has no kernel on `target` to `reason`.
void explainMissingKernel(Operation *op, const TargetInfo &target,
                          raw_ostream &reason);

/// On a Vulkan target, checks what every kernel of `op` needs whatever its
/// family: a bf16 tensor the dispatch binds (one with elements, of an op
/// with output elements) is read as 16-bit integers and needs 'int16'. Run
/// after the family's rules, it names the operand or result that a family
/// leaves unchecked (a bias, sinks, a state-space dtype), where
/// ejk-prepare-vulkan-kernels named only the dispatch.
LogicalResult verifyVulkanBufferTypes(Operation *op, const TargetInfo &target,
                                      raw_ostream &reason);

template <typename OpT>
struct TunableModel
    : public TunableOpInterface::ExternalModel<TunableModel<OpT>, OpT> {
  std::string getProblemKey(Operation *op) const {
    const OpModel *model = lookupOpModel(op);
    return model ? model->problemKey(op) : std::string();
  }
  SmallVector<ConfigAttr>
  getConfigSpace(Operation *op, const TargetInfo &target, bool full) const {
    const TargetKernel *kernel = kernelOf(op, target);
    return kernel ? kernel->configSpace(op, target, full)
                  : SmallVector<ConfigAttr>();
  }
  ConfigAttr getHeuristicConfig(Operation *op, const TargetInfo &target) const {
    const TargetKernel *kernel = kernelOf(op, target);
    return kernel ? kernel->heuristicConfig(op, target) : ConfigAttr();
  }
  LogicalResult verifyConfig(Operation *op, ConfigAttr config,
                             const TargetInfo &target,
                             raw_ostream &reason) const {
    const TargetKernel *kernel = kernelOf(op, target);
    if (!kernel) {
      explainMissingKernel(op, target, reason);
      return failure();
    }
    if (!config) {
      reason << "no config";
      return failure();
    }
    if (failed(kernel->verifyConfig(op, config, target, reason)))
      return failure();
    return verifyVulkanBufferTypes(op, target, reason);
  }

private:
  static const TargetKernel *kernelOf(Operation *op, const TargetInfo &target) {
    const OpModel *model = lookupOpModel(op);
    return model ? model->kernelFor(target.kind) : nullptr;
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_TUNABLEMODEL_H
