//===- BlockSparseGrad.cpp - block-sparse backward on the CPU -------------===//
//
// Configs: those of flash_attention_grad on the CPU (GradRules.cpp) whose
// blocks each lie in one block of the mask, in both passes (a listed block
// is live for every row and key it covers). The heuristic takes the
// largest blocks up to 64 x 64 that do, fusing dQ into the dK/dV pass as
// flash_attention_grad's heuristic does (B x Hkv >= 2 x cores). Dispatches:
// the two list dispatches, delta, pack, dK/dV, dQ (GradTile.cpp).
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/BlockSparseGrad.h"
#include "Attention/Cpu/FlashAttentionGrad.h"
#include "Attention/Cpu/GradKernel.h"
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

LogicalResult CpuBlockSparseAttentionGrad::verifyConfig(
    BlockSparseAttentionGradOp op, ConfigAttr attr, const TargetInfo &target,
    raw_ostream &reason) {
  AttentionProblem p = readAttentionProblem(op);
  if (failed(verifyCpuAttentionGradConfig(p, attr, target, reason)))
    return failure();
  std::optional<FlashAttentionGradConfig> config =
      FlashAttentionGradConfig::read(attr, reason);
  using C = FlashAttentionGradConfig;
  if (failed(checkPassAlignment(p, op, C::kBlockQ, config->blockQ, C::kBlockK,
                                config->blockK, reason)))
    return failure();
  if (config->fuseDq)
    return success();
  return checkPassAlignment(p, op, C::kDqBlockQ, config->dqBlockQ, C::kDqBlockK,
                            config->dqBlockK, reason);
}

SmallVector<ConfigAttr>
CpuBlockSparseAttentionGrad::configSpace(BlockSparseAttentionGradOp op,
                                         const TargetInfo &target, bool full) {
  SmallVector<int64_t> blockQs = full ? SmallVector<int64_t>{8, 16, 32, 64}
                                      : SmallVector<int64_t>{16, 32, 64};
  SmallVector<int64_t> blockKs =
      full ? SmallVector<int64_t>{8, 16, 32, 64} : SmallVector<int64_t>{32, 64};
  SmallVector<ConfigAttr> space;
  MLIRContext *context = op.getContext();
  auto add = [&](FlashAttentionGradConfig config) {
    ConfigAttr attr = config.toAttr(context);
    if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
      space.push_back(attr);
  };
  // The same blocks for both passes (each pass's blocks must lie in the
  // mask's anyway), separate and fused.
  for (int64_t blockQ : blockQs)
    for (int64_t blockK : blockKs) {
      add({blockQ, blockK, blockQ, blockK});
      add({blockQ, blockK, blockQ, blockK, true});
    }
  return space;
}

ConfigAttr
CpuBlockSparseAttentionGrad::heuristicConfig(BlockSparseAttentionGradOp op,
                                             const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  int64_t lanes = target.f32Lanes();
  bool fuse =
      p.batch * p.numKvHeads >= 2 * std::max<int64_t>(1, target.numCores);
  int64_t maxQ = std::min<int64_t>(64, ceilPow2(std::max<int64_t>(p.seqQ, 1)));
  int64_t maxK = std::max<int64_t>(
      lanes, std::min<int64_t>(64, ceilPow2(std::max<int64_t>(p.seqK, 1))));
  FlashAttentionGradConfig config;
  for (int64_t blockK = maxK; blockK >= lanes; blockK /= 2)
    for (int64_t blockQ = maxQ; blockQ >= 1; blockQ /= 2) {
      config = {blockQ, blockK, blockQ, blockK, fuse};
      ConfigAttr attr = config.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        return attr;
    }
  // Nothing fits (a kv_block_size no whole vector divides): the smallest,
  // which verification then reports.
  config = {1, lanes, 1, lanes, fuse};
  return config.toAttr(op.getContext());
}

LogicalResult CpuBlockSparseAttentionGrad::tile(BlockSparseAttentionGradOp op,
                                                ConfigAttr attr,
                                                DispatchRewriter &rewriter) {
  std::optional<FlashAttentionGradConfig> config =
      FlashAttentionGradConfig::read(attr, llvm::nulls());
  CpuAttentionGradPlan plan;
  static_cast<AttentionProblem &>(plan) = readAttentionProblem(op);
  plan.blockQ = config->blockQ;
  plan.blockK = config->blockK;
  plan.dqBlockQ = config->dqBlockQ;
  plan.dqBlockK = config->dqBlockK;
  plan.lanes = rewriter.target().f32Lanes();
  plan.fuseDq = config->fuseDq;

  CpuAttentionGradBuffers buffers;
  static_cast<AttentionGradBuffers &>(buffers) =
      findAttentionGradBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  return tileCpuAttentionGrad(rewriter, plan, buffers, op.getLoc());
}
