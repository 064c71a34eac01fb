//===- Model.cpp - the linear family's op models --------------------------===//
//
// What the compiler knows of `ejk.gla` outside its kernels: the problem key,
// the reference bridge (Reference.cpp), the ranges of random inputs, and the
// kernels of each target (Cpu/, Vulkan/), registered by
// `registerLinearFamily`.
//
// Random gates are log decays (<= 0): `g` in U[-1, 0) per key dim, so that
// one head mixes dims that keep the state for hundreds of steps with dims
// that forget it within a few (the cumulative gate of a 64-step chunk
// reaches -60: the kernels' exps must not overflow there); `g_gamma` in
// U[-0.1, 0) (RetNet-like per-head decays). N(0, 1) gates would make the
// state grow exponentially. Packed sequences get valid cumulative lengths
// with empty and length-1 sequences.
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "Linear/Cpu/Gla.h"
#include "Linear/Reference.h"
#include "Linear/Vulkan/Gla.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Linear/Problem.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

namespace {
class GlaModel final : public OpModel {
public:
  GlaModel() {
    cpu = std::make_unique<TargetKernelOf<GlaOp, CpuGla>>();
    vulkan = std::make_unique<TargetKernelOf<GlaOp, VulkanGla>>();
  }
  StringRef getOperationName() const override {
    return GlaOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<GlaOp>(operation);
    ProblemKey key(getOperationName());
    key.type("q", op.getQuery())
        .type("k", op.getKey())
        .type("v", op.getValue())
        .type("g", op.getG())
        .type("g_gamma", op.getGGamma())
        .type("initial_state", op.getInitialState())
        .type("cu_seqlens", op.getCuSeqlens())
        .flag("reverse", op.getReverse())
        .flag("final_state", op.getFinalState() != nullptr);
    return key.str();
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateGla(cast<GlaOp>(op), values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<GlaOp>(operation);
    if (operand == op.getG())
      return Distribution{Distribution::Kind::Uniform, -1.0f, 0.0f};
    if (operand == op.getGGamma())
      return Distribution{Distribution::Kind::Uniform, -0.1f, 0.0f};
    if (operand == op.getCuSeqlens())
      return Distribution{Distribution::Kind::CumulativeLengths,
                          static_cast<float>(readGlaProblem(op).seq), 0.0f};
    return std::nullopt;
  }
};
} // namespace

void mlir::ejk::registerLinearFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<GlaModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    GlaOp::attachInterface<TunableModel<GlaOp>>(*context);
  });
}
