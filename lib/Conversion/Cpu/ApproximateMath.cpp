//===- ApproximateMath.cpp - the ejk-approximate-math pass ----------------===//

#include "ejk/Conversion/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKAPPROXIMATEMATH
#include "ejk/Conversion/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;

namespace {
struct ApproximateMathPass
    : public mlir::ejk::impl::EjkApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
