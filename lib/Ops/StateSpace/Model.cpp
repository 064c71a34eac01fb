//===- Model.cpp - the state-space family's op models ---------------------===//
//
// What the compiler knows of `ejk.selective_scan` and `ejk.ssd` outside
// their kernels: problem keys, the reference bridge (Reference.cpp), the
// ranges of random inputs, and the kernels of each target (Cpu/, Vulkan/),
// registered by `registerStateSpaceFamily`.
//
// Random inputs follow Mamba's ranges: A = -exp(A_log) is negative (here in
// [-4, -0.25)); step sizes are positive and small. With softplus, the raw
// step and its bias are N(-1, 0.5) and U(-1, 0.5), so dt = softplus(...) is
// about 0.1-0.5; without it, dt itself is U(0.01, 0.2) and the bias
// U(0, 0.1), so the sum stays positive and the state decays. N(0, 1) would
// make the scan grow exponentially over the sequence.
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "StateSpace/Cpu/StateSpace.h"
#include "StateSpace/Reference.h"
#include "StateSpace/Vulkan/StateSpace.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

/// Mamba's ranges for the decay `a`, the step `step` and its `bias`.
static std::optional<Distribution>
mambaRange(Value operand, Value a, Value step, Value bias, bool softplus) {
  using Kind = Distribution::Kind;
  if (operand == a)
    return Distribution{Kind::Uniform, -4.0f, -0.25f};
  if (operand == step)
    return softplus ? Distribution{Kind::Normal, -1.0f, 0.5f}
                    : Distribution{Kind::Uniform, 0.01f, 0.2f};
  if (bias && operand == bias)
    return softplus ? Distribution{Kind::Uniform, -1.0f, 0.5f}
                    : Distribution{Kind::Uniform, 0.0f, 0.1f};
  return std::nullopt;
}

/// A scan of no steps from the zero state (the verifier rejects one with an
/// initial state): an empty y and a zero final state.
static std::optional<SmallVector<double>> noSteps(Operation *op, int64_t seq) {
  if (seq != 0)
    return std::nullopt;
  return SmallVector<double>(op->getNumResults(), 0.0);
}

namespace {
class SelectiveScanModel final : public OpModel {
public:
  SelectiveScanModel() {
    cpu = std::make_unique<TargetKernelOf<SelectiveScanOp, CpuSelectiveScan>>();
    vulkan = std::make_unique<
        TargetKernelOf<SelectiveScanOp, VulkanSelectiveScan>>();
  }
  StringRef getOperationName() const override {
    return SelectiveScanOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<SelectiveScanOp>(operation);
    ProblemKey key(getOperationName());
    key.type("u", op.getU())
        .type("A", op.getA())
        .type("B", op.getB())
        .type("D", op.getD())
        .type("z", op.getZ())
        .type("delta_bias", op.getDeltaBias())
        .type("initial_state", op.getInitialState())
        .flag("softplus", op.getDeltaSoftplus())
        .flag("final_state", op.getFinalState() != nullptr);
    return key.str();
  }
  std::optional<SmallVector<double>>
  constantResults(Operation *op) const override {
    return noSteps(op,
                   cast<SelectiveScanOp>(op).getU().getType().getDimSize(1));
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateSelectiveScan(cast<SelectiveScanOp>(op), values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<SelectiveScanOp>(operation);
    return mambaRange(operand, op.getA(), op.getDelta(), op.getDeltaBias(),
                      op.getDeltaSoftplus());
  }
};

class SsdModel final : public OpModel {
public:
  SsdModel() {
    cpu = std::make_unique<TargetKernelOf<SsdOp, CpuSsd>>();
    vulkan = std::make_unique<TargetKernelOf<SsdOp, VulkanSsd>>();
  }
  StringRef getOperationName() const override {
    return SsdOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<SsdOp>(operation);
    ProblemKey key(getOperationName());
    // chunk_size is not part of the key: it does not change the result,
    // and the config's chunk decides the code.
    key.type("x", op.getX())
        .type("B", op.getB())
        .type("D", op.getD())
        .type("z", op.getZ())
        .type("dt_bias", op.getDtBias())
        .type("initial_state", op.getInitialState())
        .flag("softplus", op.getDtSoftplus())
        .flag("final_state", op.getFinalState() != nullptr);
    return key.str();
  }
  std::optional<SmallVector<double>>
  constantResults(Operation *op) const override {
    return noSteps(op, cast<SsdOp>(op).getX().getType().getDimSize(1));
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateSsd(cast<SsdOp>(op), values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<SsdOp>(operation);
    return mambaRange(operand, op.getA(), op.getDt(), op.getDtBias(),
                      op.getDtSoftplus());
  }
};
} // namespace

void mlir::ejk::registerStateSpaceFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<SelectiveScanModel>());
  registerOpModel(std::make_unique<SsdModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    SelectiveScanOp::attachInterface<TunableModel<SelectiveScanOp>>(*context);
    SsdOp::attachInterface<TunableModel<SsdOp>>(*context);
  });
}
