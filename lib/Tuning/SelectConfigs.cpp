//===- SelectConfigs.cpp - the ejk-select-configs pass --------------------===//

#include "ejk/Tuning/ConfigSelector.h"
#include "ejk/Tuning/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKSELECTCONFIGS
#include "ejk/Tuning/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

namespace {
struct SelectConfigsPass
    : public mlir::ejk::impl::EjkSelectConfigsBase<SelectConfigsPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<TargetInfo> info =
        makeTargetInfo(target, vectorBits, numCores, l2Bytes, subgroupSize,
                       sharedMemoryBytes, cooperativeMatrix);
    if (failed(info)) {
      getOperation()->emitError("ejk-select-configs: unknown target '")
          << target << "', expected 'cpu' or 'vulkan'";
      return signalPassFailure();
    }
    // Record the target so later passes compile for the same one.
    if (auto module = dyn_cast<ModuleOp>(getOperation()))
      module->setAttr(kTargetAttrName,
                      targetInfoToAttr(&getContext(), *info));
    ConfigSelector selector;
    WalkResult result = getOperation()->walk([&](TunableOpInterface op) {
      FailureOr<SelectedConfig> selected = selector.select(op, *info);
      if (failed(selected))
        return WalkResult::interrupt();
      op.setSelectedConfig(selected->config);
      if (explain)
        op->emitRemark("config ")
            << selected->config << " from the " << selected->tier
            << " tier for " << op.getProblemKey();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
