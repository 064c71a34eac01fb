//===- Model.cpp - the pooling family's op models -------------------------===//
//
// What the compiler knows of `ejk.mean_pooling` and `ejk.mean_pooling_grad`
// outside their kernels: problem keys, the reference bridge
// (Reference.cpp), the ranges of random inputs (cumulative lengths that
// split the packed rows, some sequences empty), and the kernels of each
// target (Cpu/, Vulkan/), registered by `registerPoolingFamily`.
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "Pooling/Cpu/MeanPooling.h"
#include "Pooling/Reference.h"
#include "Pooling/Vulkan/MeanPooling.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Pooling/Problem.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

/// Cumulative lengths over the packed rows of `p`.
static std::optional<Distribution> cuSeqlensRange(Value operand, Value cu,
                                                  const MeanPoolingProblem &p) {
  if (!cu || operand != cu)
    return std::nullopt;
  return Distribution{Distribution::Kind::CumulativeLengths,
                      static_cast<float>(p.totalTokens), 0.0f};
}

namespace {
class MeanPoolingModel final : public OpModel {
public:
  MeanPoolingModel() {
    cpu = std::make_unique<TargetKernelOf<MeanPoolingOp, CpuMeanPooling>>();
    vulkan =
        std::make_unique<TargetKernelOf<MeanPoolingOp, VulkanMeanPooling>>();
  }
  StringRef getOperationName() const override {
    return MeanPoolingOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<MeanPoolingOp>(operation);
    ProblemKey key(getOperationName());
    key.type("input", op.getInput()).type("cu_seqlens", op.getCuSeqlens());
    return key.str();
  }
  /// A mean over no tokens is 0 (never NaN).
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    MeanPoolingProblem p =
        readMeanPoolingProblem(cast<MeanPoolingOp>(operation));
    if (p.tokenRows() == 0)
      return SmallVector<double>{0.0};
    return std::nullopt;
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateMeanPooling(cast<MeanPoolingOp>(op), values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<MeanPoolingOp>(operation);
    return cuSeqlensRange(operand, op.getCuSeqlens(),
                          readMeanPoolingProblem(op));
  }
};

class MeanPoolingGradModel final : public OpModel {
public:
  MeanPoolingGradModel() {
    cpu = std::make_unique<
        TargetKernelOf<MeanPoolingGradOp, CpuMeanPoolingGrad>>();
    vulkan = std::make_unique<
        TargetKernelOf<MeanPoolingGradOp, VulkanMeanPoolingGrad>>();
  }
  StringRef getOperationName() const override {
    return MeanPoolingGradOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<MeanPoolingGradOp>(operation);
    ProblemKey key(getOperationName());
    key.type("grad_output", op.getGradOutput())
        .type("cu_seqlens", op.getCuSeqlens())
        .type("grad_input", op.getGradInput());
    return key.str();
  }
  /// No sequences: every packed row belongs to none and gets 0.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    MeanPoolingProblem p =
        readMeanPoolingGradProblem(cast<MeanPoolingGradOp>(operation));
    if (p.batch == 0)
      return SmallVector<double>{0.0};
    return std::nullopt;
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateMeanPoolingGrad(cast<MeanPoolingGradOp>(op), values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<MeanPoolingGradOp>(operation);
    return cuSeqlensRange(operand, op.getCuSeqlens(),
                          readMeanPoolingGradProblem(op));
  }
};
} // namespace

void mlir::ejk::registerPoolingFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<MeanPoolingModel>());
  registerOpModel(std::make_unique<MeanPoolingGradModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    MeanPoolingOp::attachInterface<TunableModel<MeanPoolingOp>>(*context);
    MeanPoolingGradOp::attachInterface<TunableModel<MeanPoolingGradOp>>(
        *context);
  });
}
