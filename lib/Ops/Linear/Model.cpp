//===- Model.cpp - the linear family's op models --------------------------===//
//
// What the compiler knows of `ejk.gla`, `ejk.lightning_attention` and
// `ejk.recurrent` outside their kernels (one gated recurrence, Problem.h):
// the problem key, the reference bridge (Reference.cpp), the ranges of
// random inputs, and the kernels of each target (Cpu/, Vulkan/), registered
// by `registerLinearFamily`.
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
#include "Linear/DeltaModel.h"
#include "Linear/Reference.h"
#include "Linear/Vulkan/Gla.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Linear/Problem.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

namespace {
/// The model of one of the gated recurrences (`OpTy` is GlaOp,
/// LightningAttentionOp or RecurrentOp): one problem, reference and pair
/// of kernels for the three.
template <typename OpTy> class GatedRecurrenceModel final : public OpModel {
public:
  GatedRecurrenceModel() {
    cpu = std::make_unique<TargetKernelOf<OpTy, CpuGla>>();
    vulkan = std::make_unique<TargetKernelOf<OpTy, VulkanGla>>();
  }
  StringRef getOperationName() const override {
    return OpTy::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<OpTy>(operation);
    ProblemKey key(getOperationName());
    key.type("q", op.getQuery())
        .type("k", op.getKey())
        .type("v", op.getValue());
    if constexpr (std::is_same_v<OpTy, LightningAttentionOp>) {
      key.type("slopes", op.getSlopes());
      if (op.getLayerIdx())
        key.field("layer") << static_cast<int64_t>(*op.getLayerIdx()) << '/'
                           << static_cast<int64_t>(*op.getNumLayers());
    } else {
      key.type("g", op.getG());
      if constexpr (std::is_same_v<OpTy, RecurrentOp>)
        key.type("gk", op.getGk()).type("gv", op.getGv());
      key.type("g_gamma", op.getGGamma());
    }
    key.type("initial_state", op.getInitialState())
        .type("cu_seqlens", op.getCuSeqlens())
        .flag("reverse", op.getReverse())
        .flag("final_state", op.getFinalState() != nullptr);
    return key.str();
  }
  /// A scan of no steps from the zero state (the verifier rejects one
  /// with an initial state): an empty output and a zero final state.
  std::optional<SmallVector<double>>
  constantResults(Operation *op) const override {
    if (cast<OpTy>(op).getQuery().getType().getDimSize(1) != 0)
      return std::nullopt;
    return SmallVector<double>(op->getNumResults(), 0.0);
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateGatedRecurrence(op, values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<OpTy>(operation);
    if (operand == op.getCuSeqlens())
      return Distribution{Distribution::Kind::CumulativeLengths,
                          static_cast<float>(readGlaProblem(op).seq), 0.0f};
    if constexpr (std::is_same_v<OpTy, LightningAttentionOp>) {
      // Decay rates: MiniMax's slopes lie in (0, 1].
      if (operand == op.getSlopes())
        return Distribution{Distribution::Kind::Uniform, 0.0f, 0.5f};
    } else {
      if (operand == op.getG())
        return Distribution{Distribution::Kind::Uniform, -1.0f, 0.0f};
      if (operand == op.getGGamma())
        return Distribution{Distribution::Kind::Uniform, -0.1f, 0.0f};
      if constexpr (std::is_same_v<OpTy, RecurrentOp>) {
        if (operand == op.getGk())
          return Distribution{Distribution::Kind::Uniform, -0.5f, 0.0f};
        // Value gates as strong as the key gates: chunks whose value decay
        // passes the factored bound take the exact ratios.
        if (operand == op.getGv())
          return Distribution{Distribution::Kind::Uniform, -1.0f, 0.0f};
      }
    }
    return std::nullopt;
  }
};
} // namespace

void mlir::ejk::registerLinearFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<GatedRecurrenceModel<GlaOp>>());
  registerOpModel(
      std::make_unique<GatedRecurrenceModel<LightningAttentionOp>>());
  registerOpModel(std::make_unique<GatedRecurrenceModel<RecurrentOp>>());
  registerDeltaAttentionModel(registry);
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    GlaOp::attachInterface<TunableModel<GlaOp>>(*context);
    LightningAttentionOp::attachInterface<TunableModel<LightningAttentionOp>>(
        *context);
    RecurrentOp::attachInterface<TunableModel<RecurrentOp>>(*context);
    // The in-order cooperative kernel's subgroup barriers are
    // spirv.ControlBarrier ops, created while tiling (as the Transform
    // dialect's extensions load the dialects they create ops of).
    context->loadDialect<spirv::SPIRVDialect>();
  });
}
