//===- Model.cpp - the sparse family's op models --------------------------===//
//
// What the compiler knows of `ejk.native_sparse_attention` outside its
// kernels: the problem key, the reference bridge (Reference.cpp), the
// ranges of random inputs (gates in [0, 1), block indices in [-1, blocks]
// so that invalid entries are exercised) and the kernels of each target
// (Kernels.cpp through Cpu/ and Vulkan/), registered by
// `registerSparseFamily`.
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "Sparse/Cpu/NativeSparse.h"
#include "Sparse/Reference.h"
#include "Sparse/Vulkan/NativeSparse.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/Sparse/Problem.h"
#include "ejk/Ops/TunableModel.h"

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

namespace {
class NativeSparseAttentionModel final : public OpModel {
public:
  NativeSparseAttentionModel() {
    cpu = std::make_unique<
        TargetKernelOf<NativeSparseAttentionOp, CpuNativeSparseAttention>>();
    vulkan = std::make_unique<
        TargetKernelOf<NativeSparseAttentionOp, VulkanNativeSparseAttention>>();
  }
  StringRef getOperationName() const override {
    return NativeSparseAttentionOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<NativeSparseAttentionOp>(operation);
    ProblemKey key(getOperationName());
    key.type("q", op.getQuery())
        .type("k", op.getKey())
        .type("indices", op.getBlockIndices())
        .flag("cmp", op.getGCmp() != nullptr)
        .flag("slc", op.getGSlc() != nullptr)
        .flag("swa", op.getGSwa() != nullptr);
    key.field("block") << op.getBlockSize() << ',' << op.getBlockCounts();
    key.field("window") << op.getWindowSize();
    return key.str();
  }
  /// No token or no head: nothing to compute.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    auto op = cast<NativeSparseAttentionOp>(operation);
    if (op.getOutput().getType().getNumElements() != 0)
      return std::nullopt;
    return SmallVector<double>{0.0};
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateNativeSparseAttention(cast<NativeSparseAttentionOp>(op),
                                         values);
  }
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<NativeSparseAttentionOp>(operation);
    if (operand == op.getBlockIndices()) {
      NativeSparseProblem p = readNativeSparseProblem(op);
      return Distribution{Distribution::Kind::IntegerRange, -1.0f,
                          static_cast<float>(p.numBlocks())};
    }
    if (operand == op.getGCmp() || operand == op.getGSlc() ||
        operand == op.getGSwa())
      return Distribution{Distribution::Kind::Uniform, 0.0f, 1.0f};
    return std::nullopt;
  }
};
} // namespace

void mlir::ejk::registerSparseFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<NativeSparseAttentionModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    NativeSparseAttentionOp::attachInterface<
        TunableModel<NativeSparseAttentionOp>>(*context);
  });
}
