//===- Model.cpp - the latent family's op models --------------------------===//
//
// What the compiler knows of `ejk.mla` and `ejk.paged_mla` outside their
// kernels: the problem key, the reference bridge (Reference.cpp), the
// ranges of random inputs (valid lengths, query starts and shuffled page
// tables), constant results of degenerate shapes, and the kernels of each
// target (Cpu/, Vulkan/), registered by `registerLatentFamily`.
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "Latent/Cpu/Mla.h"
#include "Latent/Reference.h"
#include "Latent/Vulkan/Mla.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Latent/Problem.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

#include <limits>

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

namespace {
/// No cache token can be read: every output is 0 and every lse -inf.
std::optional<SmallVector<double>> emptyCacheResults(Operation *op) {
  MlaProblem p = readMlaProblem(op);
  if (p.maxContext() > 0 && (!p.paged || p.numPages > 0))
    return std::nullopt;
  SmallVector<double> values = {0.0};
  if (p.hasLse)
    values.push_back(-std::numeric_limits<double>::infinity());
  return values;
}

std::string mlaKey(Operation *op, StringRef name, Value qLatent, Value qRope,
                   Value cache, Value tables) {
  MlaProblem p = readMlaProblem(op);
  ProblemKey key(name);
  key.type("ql", qLatent).type("qr", qRope).type("cache", cache);
  if (tables)
    key.type("tables", tables);
  key.flag("causal", p.causal).flag("lse", p.hasLse);
  return key.str();
}

class MlaModel final : public OpModel {
public:
  MlaModel() {
    cpu = std::make_unique<TargetKernelOf<MlaOp, CpuMla>>();
    vulkan = std::make_unique<TargetKernelOf<MlaOp, VulkanMla>>();
  }
  StringRef getOperationName() const override {
    return MlaOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<MlaOp>(operation);
    return mlaKey(op, getOperationName(), op.getQLatent(), op.getQRope(),
                  op.getKvLatent(), Value());
  }
  std::optional<SmallVector<double>>
  constantResults(Operation *op) const override {
    return emptyCacheResults(op);
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateMla(cast<MlaOp>(op), values);
  }
};

class PagedMlaModel final : public OpModel {
public:
  PagedMlaModel() {
    cpu = std::make_unique<TargetKernelOf<PagedMlaOp, CpuMla>>();
    vulkan = std::make_unique<TargetKernelOf<PagedMlaOp, VulkanMla>>();
  }
  StringRef getOperationName() const override {
    return PagedMlaOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<PagedMlaOp>(operation);
    return mlaKey(op, getOperationName(), op.getQLatent(), op.getQRope(),
                  op.getKvCache(), op.getBlockTables());
  }
  std::optional<SmallVector<double>>
  constantResults(Operation *op) const override {
    return emptyCacheResults(op);
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluatePagedMla(cast<PagedMlaOp>(op), values);
  }
  /// Lengths in [0, max_pages * page_size] (some 0, 1 or full), query
  /// starts over the packed tokens (some sequences empty), tables of
  /// distinct pages in shuffled order.
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<PagedMlaOp>(operation);
    MlaProblem p = readMlaProblem(op);
    // Named as the op names them, for ejk-run's messages on bad inputs.
    if (operand == op.getContextLens())
      return Distribution{Distribution::Kind::ContextLengths,
                          static_cast<float>(p.maxContext()),
                          static_cast<float>(p.pageSize), "context_lens"};
    if (operand == op.getQueryStartLoc())
      return Distribution{Distribution::Kind::CumulativeLengths,
                          static_cast<float>(p.numTokens), 0.0f,
                          "query_start_loc"};
    if (operand == op.getBlockTables())
      return Distribution{Distribution::Kind::PageTable,
                          static_cast<float>(p.numPages),
                          static_cast<float>(p.pageSize), "block_tables"};
    return std::nullopt;
  }
};
} // namespace

void mlir::ejk::registerLatentFamily(DialectRegistry &registry) {
  registerOpModel(std::make_unique<MlaModel>());
  registerOpModel(std::make_unique<PagedMlaModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    MlaOp::attachInterface<TunableModel<MlaOp>>(*context);
    PagedMlaOp::attachInterface<TunableModel<PagedMlaOp>>(*context);
  });
}
