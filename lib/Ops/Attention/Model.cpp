//===- Model.cpp - the attention family's op models -----------------------===//
//
// What the compiler knows of `ejk.flash_attention` and
// `ejk.flash_attention_grad` outside their kernels: the problem key, the
// reference bridge (Reference.cpp) and the kernels of each target (Cpu/,
// Vulkan/), registered by `registerAttentionFamily`.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/BlockSparse.h"
#include "Attention/Cpu/BlockSparseGrad.h"
#include "Attention/Cpu/FlashAttention.h"
#include "Attention/Cpu/FlashAttentionGrad.h"
#include "Attention/Reference.h"
#include "Attention/Ring/Ring.h"
#include "Attention/Vulkan/BlockSparse.h"
#include "Attention/Vulkan/BlockSparseGrad.h"
#include "Attention/Vulkan/FlashAttention.h"
#include "Attention/Vulkan/FlashAttentionGrad.h"
#include "Common/ProblemKey.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

#include <limits>
#include <type_traits>

using namespace mlir;
using namespace mlir::ejk;

/// The key fields the forward and the backward share: operand types and the
/// options that change the generated code.
template <typename OpT>
static void addAttentionFields(OpT op, ProblemKey &key) {
  key.type("q", op.getQuery())
      .type("k", op.getKey())
      .type("v", op.getValue())
      .type("bias", op.getBias())
      .type("mask", op.getMask())
      .flag("segments", op.getQSegmentIds() != nullptr)
      .flag("causal", op.getCausal());
  // Only where it changes the masks: older keys stay valid.
  if (op.isBottomRightAligned() && (op.getCausal() || op.getSlidingWindow()) &&
      op.getQuery().getType().getDimSize(1) !=
          op.getKey().getType().getDimSize(1))
    key.flag("bottom_right", true);
  if (std::optional<std::array<int64_t, 2>> window = op.getWindowBounds())
    key.field("window") << (*window)[0] << ',' << (*window)[1];
  key.flag("softcap", op.getLogitsSoftCapAttr() != nullptr)
      .flag("dropout", op.getDropoutProbAttr() != nullptr);
  // Issue 16's options, only when set: older keys stay valid.
  if (op.getSoftmaxAux())
    key.type("sinks", op.getSoftmaxAux());
  if constexpr (std::is_same_v<OpT, FlashAttentionOp> ||
                std::is_same_v<OpT, FlashAttentionGradOp>) {
    if (op.getPaddingMask())
      key.flag("padding", true);
    if (op.getCumSeqlensQ())
      key.flag("varlen_q", true);
    if (op.getCumSeqlensK())
      key.flag("varlen_k", true);
    if (!op.getNormalizeOutput())
      key.flag("unnormalized", true);
  }
}

/// Cumulative lengths (`cum_seqlens_q`/`_k` of the forward or the backward)
/// over `batch * seq` rows: on average one sequence's worth each, some empty
/// or of length 1, some past `seq` (clamped).
template <typename OpT>
static std::optional<::ejk::InputDistribution>
lengthsDistribution(OpT op, Value operand) {
  using Kind = ::ejk::InputDistribution::Kind;
  int64_t batch = op.getQuery().getType().getDimSize(0);
  if (operand == op.getCumSeqlensQ())
    return ::ejk::InputDistribution{
        Kind::CumulativeLengths,
        static_cast<float>(batch * op.getQuery().getType().getDimSize(1)),
        0.0f};
  if (operand == op.getCumSeqlensK())
    return ::ejk::InputDistribution{
        Kind::CumulativeLengths,
        static_cast<float>(batch * op.getKey().getType().getDimSize(1)), 0.0f};
  return std::nullopt;
}

/// The key fields the block-sparse forward and backward share.
template <typename OpT>
static void addBlockSparseFields(OpT op, ProblemKey &key) {
  key.type("q", op.getQuery())
      .type("k", op.getKey())
      .type("v", op.getValue())
      .type("blocks", op.getBlockMask())
      .type("bias", op.getBias())
      .type("mask", op.getMask())
      .flag("segments", op.getQSegmentIds() != nullptr)
      .flag("causal", op.getCausal())
      .flag("bottom_right", op.isBottomRightAligned());
  key.field("block") << op.getQBlockSize() << ',' << op.getKvBlockSize();
  if (std::optional<std::array<int64_t, 2>> window = op.getWindowBounds())
    key.field("window") << (*window)[0] << ',' << (*window)[1];
  if (std::optional<int64_t> chunk = op.getChunkSize())
    key.field("chunk") << *chunk;
  key.flag("softcap", op.getLogitsSoftCapAttr() != nullptr);
}

namespace {
class FlashAttentionModel final : public OpModel {
public:
  FlashAttentionModel() {
    cpu =
        std::make_unique<TargetKernelOf<FlashAttentionOp, CpuFlashAttention>>();
    vulkan = std::make_unique<
        TargetKernelOf<FlashAttentionOp, VulkanFlashAttention>>();
  }
  StringRef getOperationName() const override {
    return FlashAttentionOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<FlashAttentionOp>(operation);
    ProblemKey key(getOperationName());
    addAttentionFields(op, key);
    key.flag("lse", op.getLse() != nullptr);
    return key.str();
  }
  /// Over zero keys every row is fully masked: output 0, lse -inf.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    auto op = cast<FlashAttentionOp>(operation);
    // With sinks the lse of an empty row is theirs, not a constant.
    if (op.getKey().getType().getDimSize(1) != 0 ||
        (op.getSoftmaxAux() && op.getLse()))
      return std::nullopt;
    SmallVector<double> values = {0.0};
    if (op.getLse())
      values.push_back(-std::numeric_limits<double>::infinity());
    return values;
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateFlashAttention(cast<FlashAttentionOp>(op), values);
  }
  std::optional<::ejk::InputDistribution>
  inputDistribution(Operation *operation, Value operand) const override {
    return lengthsDistribution(cast<FlashAttentionOp>(operation), operand);
  }
};

/// The backward, on both targets.
class FlashAttentionGradModel final : public OpModel {
public:
  FlashAttentionGradModel() {
    cpu = std::make_unique<
        TargetKernelOf<FlashAttentionGradOp, CpuFlashAttentionGrad>>();
    vulkan = std::make_unique<
        TargetKernelOf<FlashAttentionGradOp, VulkanFlashAttentionGrad>>();
  }
  StringRef getOperationName() const override {
    return FlashAttentionGradOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    ProblemKey key(getOperationName());
    addAttentionFields(cast<FlashAttentionGradOp>(operation), key);
    return key.str();
  }
  /// Over zero keys or zero queries no score exists: every gradient is 0
  /// (the empty ones have nothing to fill).
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    auto op = cast<FlashAttentionGradOp>(operation);
    if (op.getKey().getType().getDimSize(1) != 0 &&
        op.getQuery().getType().getDimSize(1) != 0)
      return std::nullopt;
    return SmallVector<double>{0.0, 0.0, 0.0};
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateFlashAttentionGrad(cast<FlashAttentionGradOp>(op), values);
  }
  std::optional<::ejk::InputDistribution>
  inputDistribution(Operation *operation, Value operand) const override {
    return lengthsDistribution(cast<FlashAttentionGradOp>(operation), operand);
  }
};

/// Block-sparse attention: the flash kernels over live-block lists.
class BlockSparseAttentionModel final : public OpModel {
public:
  BlockSparseAttentionModel() {
    cpu = std::make_unique<
        TargetKernelOf<BlockSparseAttentionOp, CpuBlockSparseAttention>>();
    vulkan = std::make_unique<
        TargetKernelOf<BlockSparseAttentionOp, VulkanBlockSparseAttention>>();
  }
  StringRef getOperationName() const override {
    return BlockSparseAttentionOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<BlockSparseAttentionOp>(operation);
    ProblemKey key(getOperationName());
    addBlockSparseFields(op, key);
    key.flag("lse", op.getLse() != nullptr);
    return key.str();
  }
  /// Over zero keys every row is fully masked: output 0, lse -inf.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    auto op = cast<BlockSparseAttentionOp>(operation);
    if (op.getKey().getType().getDimSize(1) != 0)
      return std::nullopt;
    SmallVector<double> values = {0.0};
    if (op.getLse())
      values.push_back(-std::numeric_limits<double>::infinity());
    return values;
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateBlockSparseAttention(cast<BlockSparseAttentionOp>(op),
                                        values);
  }
};

/// The block-sparse backward: flash_attention_grad's kernels over the
/// live-block lists, on both targets.
class BlockSparseAttentionGradModel final : public OpModel {
public:
  BlockSparseAttentionGradModel() {
    cpu = std::make_unique<TargetKernelOf<BlockSparseAttentionGradOp,
                                          CpuBlockSparseAttentionGrad>>();
    vulkan = std::make_unique<TargetKernelOf<BlockSparseAttentionGradOp,
                                             VulkanBlockSparseAttentionGrad>>();
  }
  StringRef getOperationName() const override {
    return BlockSparseAttentionGradOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    ProblemKey key(getOperationName());
    addBlockSparseFields(cast<BlockSparseAttentionGradOp>(operation), key);
    return key.str();
  }
  /// Over zero keys or zero queries no score exists: every gradient is 0.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    auto op = cast<BlockSparseAttentionGradOp>(operation);
    if (op.getKey().getType().getDimSize(1) != 0 &&
        op.getQuery().getType().getDimSize(1) != 0)
      return std::nullopt;
    return SmallVector<double>{0.0, 0.0, 0.0};
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateBlockSparseAttentionGrad(
        cast<BlockSparseAttentionGradOp>(op), values);
  }
};
} // namespace

void mlir::ejk::registerAttentionFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<FlashAttentionModel>());
  registerOpModel(std::make_unique<FlashAttentionGradModel>());
  registerRingAttentionExpander();
  registerOpModel(std::make_unique<BlockSparseAttentionModel>());
  registerOpModel(std::make_unique<BlockSparseAttentionGradModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    FlashAttentionOp::attachInterface<TunableModel<FlashAttentionOp>>(*context);
    FlashAttentionGradOp::attachInterface<TunableModel<FlashAttentionGradOp>>(
        *context);
    BlockSparseAttentionOp::attachInterface<
        TunableModel<BlockSparseAttentionOp>>(*context);
    BlockSparseAttentionGradOp::attachInterface<
        TunableModel<BlockSparseAttentionGradOp>>(*context);
  });
}
