//===- Model.cpp - the MoE family's op models -----------------------------===//
//
// What the compiler knows of `ejk.grouped_matmul` and
// `ejk.transposed_grouped_matmul` outside their kernels: problem keys, the
// reference bridge (Reference.cpp), the ranges of random inputs, and the
// kernels of each target (Cpu/, Vulkan/), registered by
// `registerMoeFamily`.
//
// Random group sizes are a random split of the rows (some groups empty, a
// few rows sometimes past the last group) and a random group offset lies in
// [0, num_groups - local_groups]: N(0, 1) integers would be invalid sizes.
// Quantized weights are whole int8 values with positive scales.
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "Moe/Cpu/GroupedMatmul.h"
#include "Moe/Reference.h"
#include "Moe/Vulkan/GroupedMatmul.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Moe/Problem.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

/// The ranges of the group sizes and the offset of a problem `p`.
static std::optional<Distribution> groupRange(Value operand, Value groupSizes,
                                              Value groupOffset,
                                              const GroupedMatmulProblem &p) {
  using Kind = Distribution::Kind;
  if (operand == groupSizes)
    return Distribution{Kind::GroupSizes, static_cast<float>(p.rows), 0.0f};
  if (groupOffset && operand == groupOffset)
    return Distribution{Kind::IntegerRange, 0.0f,
                        static_cast<float>(p.numGroups - p.localGroups)};
  return std::nullopt;
}

/// Whether a grouped matmul multiplies nothing: an empty reduction (k = 0)
/// or no groups at all (then no rhs either).
static bool nothingToMultiply(const GroupedMatmulProblem &p) {
  return p.k == 0 || p.numGroups == 0;
}

/// The problem key of either op.
template <typename OpT>
static std::string groupedMatmulKey(OpT op, StringRef name) {
  ProblemKey key(name);
  key.type("lhs", op.getLhs())
      .type("rhs", op.getRhs())
      .type("group_sizes", op.getGroupSizes())
      .type("out", op.getOut())
      .flag("group_offset", op.getGroupOffset() != nullptr)
      .flag("existing_out", op.getExistingOut() != nullptr);
  return key.str();
}

namespace {
class GroupedMatmulModel final : public OpModel {
public:
  GroupedMatmulModel() {
    cpu = std::make_unique<TargetKernelOf<GroupedMatmulOp, CpuGroupedMatmul>>();
    vulkan = std::make_unique<
        TargetKernelOf<GroupedMatmulOp, VulkanGroupedMatmul>>();
  }
  StringRef getOperationName() const override {
    return GroupedMatmulOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<GroupedMatmulOp>(operation);
    std::string key = groupedMatmulKey(op, getOperationName());
    return key + ";transpose_rhs=" + (op.getTransposeRhs() ? "1" : "0");
  }
  /// A product over k = 0, or with no groups, is 0 everywhere.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    GroupedMatmulProblem p =
        readGroupedMatmulProblem(cast<GroupedMatmulOp>(operation));
    if (nothingToMultiply(p) && !p.accumulate)
      return SmallVector<double>{0.0};
    return std::nullopt;
  }
  /// ... and `existing_out` itself when it accumulates.
  std::optional<SmallVector<Value>>
  copiedResults(Operation *operation) const override {
    auto op = cast<GroupedMatmulOp>(operation);
    if (nothingToMultiply(readGroupedMatmulProblem(op)) && op.getExistingOut())
      return SmallVector<Value>{op.getExistingOut()};
    return std::nullopt;
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateGroupedMatmul(cast<GroupedMatmulOp>(op), values);
  }
  /// Quantized weights: whole int8 values over the full range (-128
  /// included) and positive per-channel scales of the size `absmax / 127`
  /// gives N(0, 1) weights.
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<GroupedMatmulOp>(operation);
    GroupedMatmulProblem p = readGroupedMatmulProblem(op);
    if (p.quantized() && operand == op.getRhs())
      return Distribution{Distribution::Kind::IntegerRange, -128.0f, 127.0f};
    if (operand == op.getRhsScales())
      return Distribution{Distribution::Kind::Uniform, 0.01f, 0.04f};
    return groupRange(operand, op.getGroupSizes(), op.getGroupOffset(), p);
  }
};

class TransposedGroupedMatmulModel final : public OpModel {
public:
  TransposedGroupedMatmulModel() {
    cpu = std::make_unique<TargetKernelOf<TransposedGroupedMatmulOp,
                                          CpuTransposedGroupedMatmul>>();
    vulkan = std::make_unique<TargetKernelOf<TransposedGroupedMatmulOp,
                                             VulkanTransposedGroupedMatmul>>();
  }
  StringRef getOperationName() const override {
    return TransposedGroupedMatmulOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    return groupedMatmulKey(cast<TransposedGroupedMatmulOp>(operation),
                            getOperationName());
  }
  /// A sum over no rows is 0 everywhere.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    GroupedMatmulProblem p = readTransposedGroupedMatmulProblem(
        cast<TransposedGroupedMatmulOp>(operation));
    if (p.rows == 0 && !p.accumulate)
      return SmallVector<double>{0.0};
    return std::nullopt;
  }
  /// ... and `existing_out` itself when it accumulates.
  std::optional<SmallVector<Value>>
  copiedResults(Operation *operation) const override {
    auto op = cast<TransposedGroupedMatmulOp>(operation);
    if (readTransposedGroupedMatmulProblem(op).rows == 0 && op.getExistingOut())
      return SmallVector<Value>{op.getExistingOut()};
    return std::nullopt;
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateTransposedGroupedMatmul(cast<TransposedGroupedMatmulOp>(op),
                                           values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<TransposedGroupedMatmulOp>(operation);
    return groupRange(operand, op.getGroupSizes(), op.getGroupOffset(),
                      readTransposedGroupedMatmulProblem(op));
  }
};
} // namespace

void mlir::ejk::registerMoeFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<GroupedMatmulModel>());
  registerOpModel(std::make_unique<TransposedGroupedMatmulModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    GroupedMatmulOp::attachInterface<TunableModel<GroupedMatmulOp>>(*context);
    TransposedGroupedMatmulOp::attachInterface<
        TunableModel<TransposedGroupedMatmulOp>>(*context);
  });
}
