//===- BlockSparse.cpp - block-sparse attention on Vulkan -----------------===//
//
// Configs: the portable flash attention layouts (Layout.h) whose blocks each
// lie in one block of the mask; the heuristic prefers about 128 threads
// and the largest such blocks up to 64 x 64. The cooperative-matrix kernel
// prefetches key block kb + 1 and does not read lists yet: f16 runs the
// portable kernel here.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/BlockSparse.h"
#include "Attention/LiveBlocks.h"
#include "Attention/Vulkan/Kernel.h"
#include "Attention/Vulkan/Layout.h"

#include "ejk/Ops/Attention/Config.h"

using namespace mlir;
using namespace mlir::ejk;

static std::optional<VulkanAttentionLayout>
sparseLayout(const AttentionProblem &p, const FlashAttentionConfig &config,
             const TargetInfo &target, raw_ostream &reason) {
  return VulkanAttentionLayout::compute(
      p.headDim, p.headDimV, config.blockQ, config.blockK,
      config.numSubgroups.value_or(1), target.subgroupSize,
      target.maxWorkgroupInvocations, target.sharedMemoryBytes,
      /*cooperative=*/false, /*registerSoftmax=*/false,
      target.hasVulkanFeature("subgroup_shuffle"), reason);
}

LogicalResult VulkanBlockSparseAttention::verifyConfig(
    BlockSparseAttentionOp op, ConfigAttr attr, const TargetInfo &target,
    raw_ostream &reason) {
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, reason);
  if (!config)
    return failure();
  if (config->keySplits) {
    reason << "'" << FlashAttentionConfig::kKeySplits
           << "' applies to CPU targets only for block-sparse attention";
    return failure();
  }
  if (op.getQuery().getType().getElementType().isF16() &&
      !(target.hasVulkanFeature("float16") &&
        target.hasVulkanFeature("storage16"))) {
    reason << "f16 inputs need the device features 'float16' and "
              "'storage16'";
    return failure();
  }
  AttentionProblem p = readAttentionProblem(op);
  if (!sparseLayout(p, *config, target, reason))
    return failure();
  return checkLiveBlockAlignment(p,
                                 {config->blockQ, config->blockK,
                                  static_cast<int64_t>(op.getQBlockSize()),
                                  static_cast<int64_t>(op.getKvBlockSize())},
                                 reason);
}

SmallVector<ConfigAttr>
VulkanBlockSparseAttention::configSpace(BlockSparseAttentionOp op,
                                        const TargetInfo &target, bool full) {
  SmallVector<int64_t> blocks = full ? SmallVector<int64_t>{8, 16, 32, 64, 128}
                                     : SmallVector<int64_t>{16, 32, 64};
  SmallVector<int64_t> subgroupCounts =
      full ? SmallVector<int64_t>{1, 2, 4, 8} : SmallVector<int64_t>{2, 4};
  SmallVector<ConfigAttr> space;
  for (int64_t blockQ : blocks)
    for (int64_t blockK : blocks)
      for (int64_t subgroups : subgroupCounts) {
        FlashAttentionConfig config;
        config.blockQ = blockQ;
        config.blockK = blockK;
        config.numSubgroups = subgroups;
        ConfigAttr attr = config.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
  return space;
}

ConfigAttr
VulkanBlockSparseAttention::heuristicConfig(BlockSparseAttentionOp op,
                                            const TargetInfo &target) {
  int64_t subgroups =
      std::max<int64_t>(1, 128 / std::max<int64_t>(1, target.subgroupSize));
  FlashAttentionConfig config;
  for (int64_t w = subgroups; w >= 1; w /= 2)
    for (int64_t blockK : {64, 32, 16, 8, 4, 2, 1})
      for (int64_t blockQ : {64, 32, 16, 8, 4, 2, 1}) {
        config.blockQ = blockQ;
        config.blockK = blockK;
        config.numSubgroups = w;
        ConfigAttr attr = config.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          return attr;
      }
  // Nothing fits: the smallest, which verification then reports.
  config.blockQ = config.blockK = 1;
  config.numSubgroups = 1;
  return config.toAttr(op.getContext());
}

LogicalResult VulkanBlockSparseAttention::tile(BlockSparseAttentionOp op,
                                               ConfigAttr attr,
                                               DispatchRewriter &rewriter) {
  AttentionBuffers buffers = findAttentionBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, llvm::nulls());
  VulkanAttentionPlan plan;
  static_cast<AttentionProblem &>(plan) = readAttentionProblem(op);
  std::optional<VulkanAttentionLayout> layout =
      sparseLayout(plan, *config, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  plan.layout = *layout;
  if (failed(addLiveBlocksDispatch(rewriter, plan,
                                   {layout->blockQ, layout->blockK,
                                    static_cast<int64_t>(op.getQBlockSize()),
                                    static_cast<int64_t>(op.getKvBlockSize())},
                                   /*vulkan=*/true, buffers)))
    return failure();

  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildVulkanAttentionBody(b, loc, plan, buffers);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  DispatchRewriter::setWork(
      dispatch, attentionFlops(plan),
      DispatchRewriter::bytesOf({buffers.query, buffers.bias, buffers.mask,
                                 buffers.qSegmentIds, buffers.kvSegmentIds,
                                 buffers.output, buffers.lse, buffers.key,
                                 buffers.value, buffers.liveBlocks}));
  return success();
}
