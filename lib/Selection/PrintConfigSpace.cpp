//===- PrintConfigSpace.cpp - the ejk-print-config-space pass -------------===//

#include "ejk/Selection/Passes.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKPRINTCONFIGSPACE
#include "ejk/Selection/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

namespace {
struct PrintConfigSpacePass
    : public mlir::ejk::impl::EjkPrintConfigSpaceBase<PrintConfigSpacePass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    FailureOr<TargetInfo> info = makeTargetInfo(
        target, vectorBits, numCores, l2Bytes, subgroupSize, sharedMemoryBytes,
        cooperativeMatrix, spirvVersion, vulkanFeatures, error);
    if (failed(info)) {
      getOperation()->emitError("ejk-print-config-space: ") << error;
      return signalPassFailure();
    }
    getOperation()->walk([&](TunableOpInterface op) {
      SmallVector<ConfigAttr> space = op.getConfigSpace(*info, full);
      InFlightDiagnostic remark = op->emitRemark();
      remark << "problem key: " << op.getProblemKey()
             << "\nheuristic: " << op.getHeuristicConfig(*info) << "\n"
             << space.size() << " candidates:";
      for (ConfigAttr config : space)
        remark << "\n  " << config;
    });
    markAllAnalysesPreserved();
  }
};
} // namespace
