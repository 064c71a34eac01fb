//===- BlockSparseGrad.cpp - block-sparse backward on Vulkan --------------===//
//
// Configs: the portable layouts of flash_attention_grad (GradRules.cpp)
// whose blocks each lie in one block of the mask, in both passes. Every
// element type runs the portable path (f32 arithmetic): the cooperative
// backward (GradCoopKernel.cpp) has no list loop yet. The heuristic keeps
// flash_attention_grad's portable blocks (16 x 32 for dK/dV, 32 x 32 for
// dQ) where they lie in the mask's blocks, else the largest smaller ones
// that do and fit the device.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/BlockSparseGrad.h"
#include "Attention/Vulkan/GradKernel.h"
#include "Common/Arithmetic.h"

#include "ejk/Ops/Attention/GradConfig.h"

using namespace mlir;
using namespace mlir::ejk;

/// Why the blocks `blockQ` x `blockK` of one pass (named by their config
/// entries) do not each lie in one block of the mask; success when they do.
/// A mask block that covers the whole axis holds any block.
static LogicalResult checkPassAlignment(const AttentionProblem &p,
                                        BlockSparseAttentionGradOp op,
                                        StringRef qName, int64_t blockQ,
                                        StringRef kName, int64_t blockK,
                                        raw_ostream &reason) {
  int64_t maskQ = op.getQBlockSize(), maskK = op.getKvBlockSize();
  if (maskQ < p.seqQ && maskQ % blockQ != 0) {
    reason << "'" << qName << "' (" << blockQ
           << ") must divide 'q_block_size' (" << maskQ
           << "): a query block reads one block-mask row";
    return failure();
  }
  if (maskK < p.seqK && maskK % blockK != 0) {
    reason << "'" << kName << "' (" << blockK
           << ") must divide 'kv_block_size' (" << maskK
           << "): a key block is live or dead as a whole";
    return failure();
  }
  return success();
}

/// The plan of `op` under `attr`, or nullopt with the reason.
static std::optional<VulkanAttentionGradPlan>
getPlan(BlockSparseAttentionGradOp op, ConfigAttr attr,
        const TargetInfo &target, raw_ostream &reason) {
  AttentionProblem p = readAttentionProblem(op);
  std::optional<VulkanAttentionGradPlan> plan =
      getVulkanAttentionGradPlan(p, op.getQuery().getType().getElementType(),
                                 /*cooperative=*/false, attr, target, reason);
  if (!plan)
    return std::nullopt;
  using C = FlashAttentionGradConfig;
  if (failed(checkPassAlignment(p, op, C::kBlockQ, plan->keyValue.blockQ,
                                C::kBlockK, plan->keyValue.blockK, reason)) ||
      failed(checkPassAlignment(p, op, C::kDqBlockQ, plan->query.blockQ,
                                C::kDqBlockK, plan->query.blockK, reason)))
    return std::nullopt;
  return plan;
}

LogicalResult VulkanBlockSparseAttentionGrad::verifyConfig(
    BlockSparseAttentionGradOp op, ConfigAttr attr, const TargetInfo &target,
    raw_ostream &reason) {
  return success(getPlan(op, attr, target, reason).has_value());
}

SmallVector<ConfigAttr> VulkanBlockSparseAttentionGrad::configSpace(
    BlockSparseAttentionGradOp op, const TargetInfo &target, bool full) {
  SmallVector<int64_t> blockQs =
      full ? SmallVector<int64_t>{8, 16, 32, 64} : SmallVector<int64_t>{16, 32};
  SmallVector<int64_t> blockKs =
      full ? SmallVector<int64_t>{8, 16, 32, 64} : SmallVector<int64_t>{16, 32};
  SmallVector<ConfigAttr> space;
  for (int64_t blockQ : blockQs)
    for (int64_t blockK : blockKs)
      for (int64_t dqBlockQ : blockQs) {
        FlashAttentionGradConfig config{blockQ, blockK, dqBlockQ, blockK};
        ConfigAttr attr = config.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
  return space;
}

ConfigAttr
VulkanBlockSparseAttentionGrad::heuristicConfig(BlockSparseAttentionGradOp op,
                                                const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  int64_t maskQ = op.getQBlockSize(), maskK = op.getKvBlockSize();
  auto divides = [](int64_t block, int64_t mask, int64_t size) {
    return mask >= size || mask % block == 0;
  };
  // Per pass: the largest blocks up to the preferred ones (clamped to the
  // problem) that lie in the mask's blocks and have a layout.
  auto pick = [&](bool keyValue, int64_t preferQ, int64_t preferK,
                  int64_t &blockQ, int64_t &blockK) {
    int64_t maxQ = std::min(preferQ, ceilPow2(std::max<int64_t>(p.seqQ, 1)));
    int64_t maxK = std::min(preferK, ceilPow2(std::max<int64_t>(p.seqK, 1)));
    for (int64_t k = maxK; k >= 1; k /= 2)
      for (int64_t q = maxQ; q >= 1; q /= 2)
        if (divides(q, maskQ, p.seqQ) && divides(k, maskK, p.seqK) &&
            VulkanGradPassLayout::compute(keyValue, p.headDim, p.headDimV, q, k,
                                          target.maxWorkgroupInvocations,
                                          target.sharedMemoryBytes,
                                          llvm::nulls())) {
          blockQ = q;
          blockK = k;
          return;
        }
    // Nothing fits: the smallest, which verification then reports.
    blockQ = blockK = 1;
  };
  FlashAttentionGradConfig config;
  pick(true, 16, 32, config.blockQ, config.blockK);
  pick(false, 32, 32, config.dqBlockQ, config.dqBlockK);
  return config.toAttr(op.getContext());
}

LogicalResult
VulkanBlockSparseAttentionGrad::tile(BlockSparseAttentionGradOp op,
                                     ConfigAttr attr,
                                     DispatchRewriter &rewriter) {
  std::optional<VulkanAttentionGradPlan> plan =
      getPlan(op, attr, rewriter.target(), llvm::nulls());
  if (!plan)
    return op.emitOpError("has no Vulkan layout for its config");
  VulkanAttentionGradBuffers buf;
  static_cast<AttentionGradBuffers &>(buf) =
      findAttentionGradBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  return tileVulkanAttentionGrad(rewriter, *plan, buf, op.getLoc());
}
