//===- DeltaModel.cpp - ejk.delta_attention's op model --------------------===//
//
// What the compiler knows of `ejk.delta_attention` outside its kernels: the
// problem key, the reference bridge (DeltaReference.cpp), the ranges of
// random inputs, and the kernels of each target (Cpu/Delta*, Vulkan/Delta*).
//
// Random inputs: `beta` in U[0, 1) (a sigmoid's range); log decays in
// U[-1, 0) per head or per key dim (the cumulative decay of a 64-step chunk
// reaches -60, so the kernels' exps must not overflow there). Without the
// l2 norm the keys are U[-1/sqrt(K), 1/sqrt(K)) so that beta |k|^2 < 1 and
// the recurrence contracts, as trained models keep it (normal keys of 128
// dims would make each step multiply the state by about -60).
//
//===----------------------------------------------------------------------===//

#include "Linear/DeltaModel.h"
#include "Common/ProblemKey.h"
#include "Linear/Cpu/Delta.h"
#include "Linear/DeltaReference.h"
#include "Linear/Vulkan/Delta.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Linear/DeltaProblem.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

namespace {
class DeltaAttentionModel final : public OpModel {
public:
  DeltaAttentionModel() {
    cpu = std::make_unique<TargetKernelOf<DeltaAttentionOp, CpuDelta>>();
    vulkan = std::make_unique<TargetKernelOf<DeltaAttentionOp, VulkanDelta>>();
  }
  StringRef getOperationName() const override {
    return DeltaAttentionOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<DeltaAttentionOp>(operation);
    ProblemKey key(getOperationName());
    key.type("q", op.getQuery())
        .type("k", op.getKey())
        .type("v", op.getValue())
        .type("beta", op.getBeta())
        .type("decay", op.getDecay())
        .type("initial_state", op.getInitialState())
        .type("cu_seqlens", op.getCuSeqlens())
        .flag("use_qk_l2norm", op.getUseQkL2norm())
        .flag("reverse", op.getReverse())
        .flag("final_state", op.getFinalState() != nullptr);
    return key.str();
  }
  /// A scan of no steps from the zero state (the verifier rejects one
  /// with an initial state): an empty output and a zero final state.
  std::optional<SmallVector<double>>
  constantResults(Operation *op) const override {
    if (cast<DeltaAttentionOp>(op).getQuery().getType().getDimSize(1) != 0)
      return std::nullopt;
    return SmallVector<double>(op->getNumResults(), 0.0);
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateDeltaAttention(cast<DeltaAttentionOp>(op), values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<DeltaAttentionOp>(operation);
    if (operand == op.getBeta())
      return Distribution{Distribution::Kind::Uniform, 0.0f, 1.0f};
    if (operand == op.getDecay())
      return Distribution{Distribution::Kind::Uniform, -1.0f, 0.0f};
    if (operand == op.getKey() && !op.getUseQkL2norm()) {
      float bound = 1.0f / std::sqrt(static_cast<float>(std::max<int64_t>(
                               1, readDeltaProblem(op).dimK)));
      return Distribution{Distribution::Kind::Uniform, -bound, bound};
    }
    if (operand == op.getCuSeqlens())
      return Distribution{Distribution::Kind::CumulativeLengths,
                          static_cast<float>(readDeltaProblem(op).seq), 0.0f};
    return std::nullopt;
  }
};
} // namespace

void mlir::ejk::registerDeltaAttentionModel(DialectRegistry &registry) {
  registerOpModel(std::make_unique<DeltaAttentionModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    DeltaAttentionOp::attachInterface<TunableModel<DeltaAttentionOp>>(*context);
  });
}
