//===- Model.cpp - the attention family's op models -----------------------===//
//
// What the compiler knows of `ejk.flash_attention` outside its kernels: the
// problem key, the reference bridge (Reference.cpp) and the kernels of each
// target (Cpu/, Vulkan/), registered by `registerAttentionFamily`.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/FlashAttention.h"
#include "Attention/Reference.h"
#include "Attention/Vulkan/FlashAttention.h"
#include "Common/ProblemKey.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

#include <limits>

using namespace mlir;
using namespace mlir::ejk;

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
    key.type("q", op.getQuery())
        .type("k", op.getKey())
        .type("v", op.getValue())
        .type("bias", op.getBias())
        .type("mask", op.getMask())
        .flag("segments", op.getQSegmentIds() != nullptr)
        .flag("causal", op.getCausal());
    // Only where it changes the masks: older keys stay valid.
    if (op.isBottomRightAligned() &&
        (op.getCausal() || op.getSlidingWindow()) &&
        op.getQuery().getType().getDimSize(1) !=
            op.getKey().getType().getDimSize(1))
      key.flag("bottom_right", true);
    if (std::optional<std::array<int64_t, 2>> window = op.getWindowBounds())
      key.field("window") << (*window)[0] << ',' << (*window)[1];
    key.flag("softcap", op.getLogitsSoftCapAttr() != nullptr)
        .flag("dropout", op.getDropoutProbAttr() != nullptr)
        .flag("lse", op.getLse() != nullptr);
    return key.str();
  }
  /// Over zero keys every row is fully masked: output 0, lse -inf.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    auto op = cast<FlashAttentionOp>(operation);
    if (op.getKey().getType().getDimSize(1) != 0)
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
};
} // namespace

void mlir::ejk::registerAttentionFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<FlashAttentionModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    FlashAttentionOp::attachInterface<TunableModel<FlashAttentionOp>>(*context);
  });
}
