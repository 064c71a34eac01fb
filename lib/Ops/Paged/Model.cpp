//===- Model.cpp - the paged family's op models ---------------------------===//
//
// What the compiler knows of `ejk.paged_attention` outside its kernels: the
// problem key, the reference bridge (Reference.cpp), the ranges of random
// inputs (valid context lengths and shuffled page tables), constant results
// of degenerate shapes, and the kernels of each target (Cpu/, Vulkan/),
// registered by `registerPagedFamily`.
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "Paged/Cpu/PagedAttention.h"
#include "Paged/RaggedKernels.h"
#include "Paged/Reference.h"
#include "Paged/Vulkan/PagedAttention.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Paged/Problem.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

#include <limits>

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

namespace {
class PagedAttentionModel final : public OpModel {
public:
  PagedAttentionModel() {
    cpu =
        std::make_unique<TargetKernelOf<PagedAttentionOp, CpuPagedAttention>>();
    vulkan = std::make_unique<
        TargetKernelOf<PagedAttentionOp, VulkanPagedAttention>>();
  }
  StringRef getOperationName() const override {
    return PagedAttentionOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<PagedAttentionOp>(operation);
    PagedAttentionProblem p = readPagedAttentionProblem(op);
    ProblemKey key(getOperationName());
    key.type("q", op.getQuery())
        .type("kc", op.getKeyCache())
        .type("tables", op.getBlockTables())
        .flag("token_major", p.tokenMajor)
        .flag("softcap", p.softCap.has_value())
        .flag("window", p.window.has_value())
        .flag("lse", p.hasLse)
        .flag("scales", p.kScale != 1.0f || p.vScale != 1.0f);
    return key.str();
  }
  /// No token can be read (no pages, or tables of no pages): every output
  /// is 0 and every lse -inf.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    auto op = cast<PagedAttentionOp>(operation);
    PagedAttentionProblem p = readPagedAttentionProblem(op);
    if (p.maxContext() > 0 && p.numPages > 0 && p.headDim > 0)
      return std::nullopt;
    SmallVector<double> values = {0.0};
    if (p.hasLse)
      values.push_back(-std::numeric_limits<double>::infinity());
    return values;
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluatePagedAttention(cast<PagedAttentionOp>(op), values);
  }
  /// Lengths in [0, max_pages * page_size] (some 0, 1 or full); tables of
  /// distinct pages in shuffled order.
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<PagedAttentionOp>(operation);
    PagedAttentionProblem p = readPagedAttentionProblem(op);
    if (operand == op.getContextLens())
      return Distribution{Distribution::Kind::ContextLengths,
                          static_cast<float>(p.maxContext()),
                          static_cast<float>(p.pageSize)};
    // A quantized cache holds whole int8 values.
    if ((operand == op.getKeyCache() || operand == op.getValueCache()) &&
        p.cacheType.isSignlessInteger(8))
      return Distribution{Distribution::Kind::IntegerRange, -127.0f, 127.0f};
    if (operand == op.getBlockTables())
      return Distribution{Distribution::Kind::PageTable,
                          static_cast<float>(p.numPages),
                          static_cast<float>(p.pageSize)};
    return std::nullopt;
  }
};
} // namespace

void mlir::ejk::registerPagedFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<PagedAttentionModel>());
  registerRaggedPagedModels(registry);
  registerRaggedDecodeModel(registry);
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    PagedAttentionOp::attachInterface<TunableModel<PagedAttentionOp>>(*context);
  });
}
