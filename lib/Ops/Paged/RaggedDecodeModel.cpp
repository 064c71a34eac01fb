//===- RaggedDecodeModel.cpp - the ragged decode op model -----------------===//
//
// `ejk.ragged_decode_attention` (ejKernel's decode over `[start, end)` of a
// dense cache) as the paged decode problem whose pages are the sequences'
// rows of the cache (PagedAttentionProblem::denseKv), plus the starts and
// the sinks: it runs on the decode kernels of both targets (Cpu/Kernel.cpp,
// Vulkan/Kernel.cpp), splits and their combine included, under
// paged_attention's config rules.
//
//===----------------------------------------------------------------------===//

#include "Common/ProblemKey.h"
#include "Paged/Cpu/Decode.h"
#include "Paged/RaggedKernels.h"
#include "Paged/Reference.h"
#include "Paged/Vulkan/Decode.h"
#include "Paged/Vulkan/Layout.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Paged/Config.h"
#include "ejk/Ops/Paged/Problem.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Ops/TunableModel.h"

using namespace mlir;
using namespace mlir::ejk;
using Distribution = ::ejk::InputDistribution;

namespace {

PagedAttentionProblem readProblem(RaggedDecodeAttentionOp op) {
  PagedAttentionProblem p;
  RankedTensorType query = op.getQuery().getType();
  RankedTensorType key = op.getKey().getType();
  p.batch = query.getDimSize(0);
  p.numHeads = query.getDimSize(1);
  p.headDim = query.getDimSize(2);
  p.numKvHeads = key.getDimSize(2);
  // Sequence b is page b: its row of seq_len keys, token-major.
  p.numPages = p.batch;
  p.pageSize = key.getDimSize(1);
  p.maxPagesPerSeq = 1;
  p.tokenMajor = true;
  p.denseKv = true;
  p.softmaxScale = op.getEffectiveSoftmaxScale();
  if (FloatAttr cap = op.getLogitsSoftCapAttr())
    p.softCap = cap.getValueAsDouble();
  p.window = op.getVisibleWindow();
  if (TypedValue<RankedTensorType> aux = op.getSoftmaxAux()) {
    RankedTensorType type = aux.getType();
    p.numSinks = type.getShape().back();
    if (type.getRank() == 1)
      p.sinks = PagedAttentionProblem::Sinks::Shared;
    else if (type.getDimSize(0) == p.numKvHeads)
      p.sinks = PagedAttentionProblem::Sinks::PerKvHead;
    else
      p.sinks = PagedAttentionProblem::Sinks::PerHead;
  }
  p.queryType = query.getElementType();
  p.cacheType = key.getElementType();
  return p;
}

PagedAttentionBuffers findBuffers(RaggedDecodeAttentionOp op,
                                  DispatchRewriter &rewriter) {
  PagedAttentionBuffers buf;
  buf.query = rewriter.buffer(op.getQuery());
  buf.keyCache = rewriter.buffer(op.getKey());
  buf.valueCache = rewriter.buffer(op.getValue());
  buf.sequenceStarts = rewriter.buffer(op.getSequenceStart());
  buf.contextLens = rewriter.buffer(op.getSequenceEnd());
  buf.sinks = rewriter.buffer(op.getSoftmaxAux());
  buf.output = rewriter.destination(op.getOutput());
  return buf;
}

/// paged_attention's CPU rules and kernel.
struct CpuRaggedDecode {
  static SmallVector<ConfigAttr>
  configSpace(RaggedDecodeAttentionOp op, const TargetInfo &target, bool full) {
    return cpuPagedConfigSpace(op.getContext(), target, full);
  }
  static ConfigAttr heuristicConfig(RaggedDecodeAttentionOp op,
                                    const TargetInfo &target) {
    return cpuPagedHeuristic(readProblem(op), op.getContext(), target);
  }
  static LogicalResult verifyConfig(RaggedDecodeAttentionOp op,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason) {
    if (failed(verifyCpuPagedConfig(config, target, reason)))
      return failure();
    return checkCpuPagedWorkingSet(
        readProblem(op), PagedAttentionConfig::read(config, reason)->blockK,
        target, reason);
  }
  static LogicalResult tile(RaggedDecodeAttentionOp op, ConfigAttr attr,
                            DispatchRewriter &rewriter) {
    PagedAttentionConfig config =
        *PagedAttentionConfig::read(attr, llvm::nulls());
    PagedAttentionBuffers buf = findBuffers(op, rewriter);
    if (failed(rewriter.checkDispatchForm(op)))
      return failure();
    return tileCpuPagedAttention(op, readProblem(op), config.blockK,
                                 config.numSplits, buf, rewriter);
  }
};

/// paged_attention's Vulkan rules and kernel.
struct VulkanRaggedDecode {
  static SmallVector<ConfigAttr>
  configSpace(RaggedDecodeAttentionOp op, const TargetInfo &target, bool full) {
    SmallVector<ConfigAttr> configs;
    for (const PagedAttentionConfig &c :
         vulkanPagedConfigSpace(readProblem(op), target, full))
      configs.push_back(c.toAttr(op.getContext()));
    return configs;
  }
  static ConfigAttr heuristicConfig(RaggedDecodeAttentionOp op,
                                    const TargetInfo &target) {
    return vulkanPagedHeuristic(readProblem(op), target)
        .toAttr(op.getContext());
  }
  static LogicalResult verifyConfig(RaggedDecodeAttentionOp op, ConfigAttr attr,
                                    const TargetInfo &target,
                                    raw_ostream &reason) {
    std::optional<PagedAttentionConfig> config =
        PagedAttentionConfig::read(attr, reason);
    if (!config)
      return failure();
    return success(
        getVulkanPagedLayout(readProblem(op), *config, target, reason)
            .has_value());
  }
  static LogicalResult tile(RaggedDecodeAttentionOp op, ConfigAttr attr,
                            DispatchRewriter &rewriter) {
    PagedAttentionBuffers buf = findBuffers(op, rewriter);
    if (failed(rewriter.checkDispatchForm(op)))
      return failure();
    std::optional<PagedAttentionConfig> config =
        PagedAttentionConfig::read(attr, llvm::nulls());
    if (!config)
      return op.emitOpError("has no Vulkan layout for its config");
    return tileVulkanPagedAttention(op, readProblem(op), *config, buf,
                                    rewriter);
  }
};

class RaggedDecodeModel final : public OpModel {
public:
  RaggedDecodeModel() {
    cpu = std::make_unique<
        TargetKernelOf<RaggedDecodeAttentionOp, CpuRaggedDecode>>();
    vulkan = std::make_unique<
        TargetKernelOf<RaggedDecodeAttentionOp, VulkanRaggedDecode>>();
  }
  StringRef getOperationName() const override {
    return RaggedDecodeAttentionOp::getOperationName();
  }
  std::string problemKey(Operation *operation) const override {
    auto op = cast<RaggedDecodeAttentionOp>(operation);
    PagedAttentionProblem p = readProblem(op);
    ProblemKey key(getOperationName());
    key.type("q", op.getQuery())
        .type("k", op.getKey())
        .flag("softcap", p.softCap.has_value())
        .flag("window", p.window.has_value())
        .flag("sinks", p.sinks != PagedAttentionProblem::Sinks::None);
    return key.str();
  }
  /// No key to read: every output is 0.
  std::optional<SmallVector<double>>
  constantResults(Operation *operation) const override {
    PagedAttentionProblem p =
        readProblem(cast<RaggedDecodeAttentionOp>(operation));
    if (p.pageSize > 0 && p.headDim > 0)
      return std::nullopt;
    return SmallVector<double>{0.0};
  }
  LogicalResult evaluateReference(Operation *op,
                                  ReferenceValues &values) const override {
    return evaluateRaggedDecodeAttention(cast<RaggedDecodeAttentionOp>(op),
                                         values);
  }
  /// Ends in [0, seq_len] (some 0, 1 or full), starts in [0, end] (mostly
  /// 0, some empty or of one key).
  std::optional<Distribution> inputDistribution(Operation *operation,
                                                Value operand) const override {
    auto op = cast<RaggedDecodeAttentionOp>(operation);
    PagedAttentionProblem p = readProblem(op);
    if (operand == op.getSequenceStart())
      return Distribution{Distribution::Kind::SequenceStarts,
                          static_cast<float>(p.pageSize), 0.0f,
                          "sequence_start"};
    if (operand == op.getSequenceEnd())
      return Distribution{Distribution::Kind::SequenceEnds,
                          static_cast<float>(p.pageSize), 16.0f,
                          "sequence_end"};
    return std::nullopt;
  }
};

} // namespace

void mlir::ejk::registerRaggedDecodeModel(DialectRegistry &registry) {
  registerOpModel(std::make_unique<RaggedDecodeModel>());
  registry.addExtension(+[](MLIRContext *context, EjkDialect *) {
    RaggedDecodeAttentionOp::attachInterface<
        TunableModel<RaggedDecodeAttentionOp>>(*context);
  });
}
