//===- RaggedModel.cpp - the ragged and prefill paged op models -----------===//
//
// What the compiler knows of `ejk.ragged_paged_attention`,
// `ejk.prefill_paged_attention` and `ejk.unified_attention` outside their
// kernels: one problem
// (RaggedProblem.h) read from either op, the reference bridge, the ranges
// of random inputs (valid lengths, start locations, counts and shuffled
// tables) and the kernels of each target (RaggedKernels.h).
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "Paged/RaggedKernels.h"
#include "Paged/Reference.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

namespace {

/// A target's ragged rules as a TargetKernel of `OpT`.
template <typename OpT, typename Impl>
class RaggedTargetKernel final : public TargetKernel {
public:
  SmallVector<ConfigAttr> configSpace(Operation *op, const TargetInfo &target,
                                      bool full) const override {
    return Impl::configSpace(readRaggedPagedProblem(cast<OpT>(op)),
                             op->getContext(), target, full);
  }
  ConfigAttr heuristicConfig(Operation *op,
                             const TargetInfo &target) const override {
    return Impl::heuristicConfig(readRaggedPagedProblem(cast<OpT>(op)),
                                 op->getContext(), target);
  }
  LogicalResult verifyConfig(Operation *op, ConfigAttr config,
                             const TargetInfo &target,
                             raw_ostream &reason) const override {
    return Impl::verifyConfig(readRaggedPagedProblem(cast<OpT>(op)), config,
                              target, reason);
  }
  LogicalResult tile(Operation *op, ConfigAttr config,
                     DispatchRewriter &rewriter) const override {
    auto typed = cast<OpT>(op);
    RaggedPagedProblem p = readRaggedPagedProblem(typed);
    RaggedPagedBuffers buf = findRaggedPagedBuffers(typed, rewriter);
    if (failed(rewriter.checkDispatchForm(op)))
      return failure();
    return Impl::tile(op, p, config, buf, rewriter);
  }
};

/// The ranges of a ragged batch's index operands, each named as its op
/// names it: lengths raised to their sequences' query counts, start
/// locations over the packed rows (some sequences empty), shuffled tables.
std::optional<Distribution>
raggedIndexDistribution(const RaggedPagedProblem &p, Value operand,
                        std::pair<Value, const char *> lens,
                        std::pair<Value, const char *> table,
                        std::pair<Value, const char *> starts) {
  if (operand == lens.first)
    return Distribution{Distribution::Kind::RaggedContextLengths,
                        static_cast<float>(p.maxContext()),
                        static_cast<float>(p.pageSize), lens.second};
  if (operand == starts.first)
    return Distribution{Distribution::Kind::CumulativeLengths,
                        static_cast<float>(p.numTokens), 0.0f, starts.second};
  if (operand == table.first)
    return Distribution{Distribution::Kind::PageTable,
                        static_cast<float>(p.numPages),
                        static_cast<float>(p.pageSize), table.second};
  return std::nullopt;
}

/// What the ops' models share.
template <typename OpT> class RaggedModelBase : public OpModel {
public:
  RaggedModelBase() {
    cpu = std::make_unique<RaggedTargetKernel<OpT, CpuRaggedPaged>>();
    vulkan = std::make_unique<RaggedTargetKernel<OpT, VulkanRaggedPaged>>();
  }
  StringRef getOperationName() const override {
    return OpT::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<OpT>(operation);
    RaggedPagedProblem p = readRaggedPagedProblem(op);
    ProblemKey key(getOperationName());
    key.type("q", operation->getOperand(0))
        .type("kc", operation->getOperand(1))
        .type("tables", operation->getOperand(4))
        .flag("token_major", p.tokenMajor)
        .flag("softcap", p.softCap.has_value())
        .flag("window", p.window.has_value())
        .flag("sinks", p.hasSinks)
        .flag("write", p.writesCache)
        .flag("scales", p.kScale != 1.0f || p.vScale != 1.0f)
        .flag("alibi", p.hasAlibi)
        .flag("qq_bias", p.qqBiasSize > 0);
    return key.str();
  }
};

class RaggedPagedModel final : public RaggedModelBase<RaggedPagedAttentionOp> {
public:
  /// No query row, or nothing to read and nothing to write: every output
  /// is 0.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    RaggedPagedProblem p =
        readRaggedPagedProblem(cast<RaggedPagedAttentionOp>(operation));
    // A cache of no elements takes no write and holds no token: the output
    // is 0 and the updated caches are empty (their kernels were dispatched
    // over zero-sized buffers, which neither lowering accepts).
    bool emptyCache = p.numPages == 0 || p.pageSize == 0 || p.headDim == 0;
    if (p.writesCache && emptyCache)
      return SmallVector<double>(operation->getNumResults(), 0.0);
    if (p.writesCache || (p.numTokens > 0 && p.maxContext() > 0 &&
                          p.numPages > 0 && p.headDim > 0))
      return std::nullopt;
    return SmallVector<double>{0.0};
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateRaggedPagedAttention(cast<RaggedPagedAttentionOp>(op),
                                        values);
  }
  /// Lengths raised to their sequences' query counts, start locations over
  /// the packed rows (some sequences empty, the last ones padding), a count
  /// of live sequences, shuffled tables.
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<RaggedPagedAttentionOp>(operation);
    RaggedPagedProblem p = readRaggedPagedProblem(op);
    if (std::optional<Distribution> d =
            raggedIndexDistribution(p, operand, {op.getKvLens(), "kv_lens"},
                                    {op.getPageIndices(), "page_indices"},
                                    {op.getCuQLens(), "cu_q_lens"}))
      return d;
    if (operand == op.getNumSeqs())
      return Distribution{Distribution::Kind::SequenceCount,
                          static_cast<float>(p.numSeqs), 0.0f, "num_seqs"};
    // A quantized cache, and the tokens written into it, hold whole values.
    if (p.cacheType.isSignlessInteger(8) &&
        (operand == op.getKeyPages() || operand == op.getValuePages() ||
         operand == op.getNewKeys() || operand == op.getNewValues()))
      return Distribution{Distribution::Kind::IntegerRange, -127.0f, 127.0f};
    return std::nullopt;
  }
};

class PrefillPagedModel final
    : public RaggedModelBase<PrefillPagedAttentionOp> {
public:
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    RaggedPagedProblem p =
        readRaggedPagedProblem(cast<PrefillPagedAttentionOp>(operation));
    if (p.numTokens > 0 && p.maxContext() > 0 && p.numPages > 0 &&
        p.headDim > 0)
      return std::nullopt;
    return SmallVector<double>{0.0};
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluatePrefillPagedAttention(cast<PrefillPagedAttentionOp>(op),
                                         values);
  }
  /// Lengths in [0, max context] (some shorter than the chunk: those rows
  /// see no token), shuffled tables.
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<PrefillPagedAttentionOp>(operation);
    RaggedPagedProblem p = readRaggedPagedProblem(op);
    if (operand == op.getContextLens())
      return Distribution{Distribution::Kind::ContextLengths,
                          static_cast<float>(p.maxContext()),
                          static_cast<float>(p.pageSize)};
    if (operand == op.getBlockTables())
      return Distribution{Distribution::Kind::PageTable,
                          static_cast<float>(p.numPages),
                          static_cast<float>(p.pageSize)};
    return std::nullopt;
  }
};

/// unified_attention: the ragged problem with every slot live.
class UnifiedAttentionModel final : public RaggedModelBase<UnifiedAttentionOp> {
public:
  /// No query row or nothing to read: every output is 0.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    RaggedPagedProblem p =
        readRaggedPagedProblem(cast<UnifiedAttentionOp>(operation));
    if (p.numTokens > 0 && p.maxContext() > 0 && p.numPages > 0 &&
        p.headDim > 0)
      return std::nullopt;
    return SmallVector<double>{0.0};
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateUnifiedAttention(cast<UnifiedAttentionOp>(op), values);
  }
  /// The ragged op's index ranges; ALiBi slopes in [0, 0.25) (positive, as
  /// ALiBi's geometric slopes are: earlier keys weigh less).
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<UnifiedAttentionOp>(operation);
    RaggedPagedProblem p = readRaggedPagedProblem(op);
    if (std::optional<Distribution> d =
            raggedIndexDistribution(p, operand, {op.getKvLens(), "kv_lens"},
                                    {op.getBlockTables(), "block_tables"},
                                    {op.getQueryStartLoc(), "query_start_loc"}))
      return d;
    if (operand == op.getAlibiSlopes())
      return Distribution{Distribution::Kind::Uniform, 0.0f, 0.25f};
    return std::nullopt;
  }
};

} // namespace

void mlir::ejk::registerRaggedPagedModels(DialectRegistry &registry) {
  registerOpModel(std::make_unique<RaggedPagedModel>());
  registerOpModel(std::make_unique<PrefillPagedModel>());
  registerOpModel(std::make_unique<UnifiedAttentionModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    RaggedPagedAttentionOp::attachInterface<
        TunableModel<RaggedPagedAttentionOp>>(*context);
    PrefillPagedAttentionOp::attachInterface<
        TunableModel<PrefillPagedAttentionOp>>(*context);
    UnifiedAttentionOp::attachInterface<TunableModel<UnifiedAttentionOp>>(
        *context);
  });
}
