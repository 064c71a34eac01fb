//===- BlockSparse.cpp - block-sparse attention on the CPU ----------------===//
//
// Configs: those of flash attention on the CPU (Rules.cpp) whose blocks each
// lie in one block of the mask; the heuristic takes the largest such key
// block up to 128 (64 under a positional mask, as flash attention) and
// query blocks of 16. Dispatches: live blocks, pack, attention, combine.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/BlockSparse.h"
#include "Attention/Cpu/FlashAttention.h"
#include "Attention/Cpu/Kernel.h"
#include "Attention/LiveBlocks.h"
#include "Common/Arithmetic.h"

#include "ejk/Ops/Attention/Config.h"

using namespace mlir;
using namespace mlir::ejk;

static LiveBlockGrid liveBlockGrid(BlockSparseAttentionOp op, int64_t blockQ,
                                   int64_t blockK) {
  return {blockQ, blockK, static_cast<int64_t>(op.getQBlockSize()),
          static_cast<int64_t>(op.getKvBlockSize())};
}

LogicalResult CpuBlockSparseAttention::verifyConfig(BlockSparseAttentionOp op,
                                                    ConfigAttr attr,
                                                    const TargetInfo &target,
                                                    raw_ostream &reason) {
  AttentionProblem p = readAttentionProblem(op);
  if (failed(verifyCpuAttentionConfig(p, attr, target, reason)))
    return failure();
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, reason);
  CpuAttentionRows rows = {p.seqQ, p.numHeads, p.numKvHeads, config->blockQ};
  if (rows.packsGroupRows()) {
    reason << "'block_q' (" << config->blockQ << ") must not exceed seq_q ("
           << p.seqQ
           << ") with grouped heads: a block-sparse query block holds the "
              "rows of one head";
    return failure();
  }
  return checkLiveBlockAlignment(
      p, liveBlockGrid(op, config->blockQ, config->blockK), reason);
}

SmallVector<ConfigAttr>
CpuBlockSparseAttention::configSpace(BlockSparseAttentionOp op,
                                     const TargetInfo &target, bool full) {
  SmallVector<int64_t> blockQs =
      full ? SmallVector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128}
           : SmallVector<int64_t>{8, 16, 32};
  SmallVector<int64_t> blockKs =
      full ? SmallVector<int64_t>{8, 16, 32, 64, 128, 256}
           : SmallVector<int64_t>{32, 64, 128};
  SmallVector<ConfigAttr> space;
  for (int64_t blockQ : blockQs)
    for (int64_t blockK : blockKs) {
      FlashAttentionConfig config;
      config.blockQ = blockQ;
      config.blockK = blockK;
      ConfigAttr attr = config.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  return space;
}

ConfigAttr CpuBlockSparseAttention::heuristicConfig(BlockSparseAttentionOp op,
                                                    const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  // Masked key blocks on a positional boundary are computed in full:
  // smaller key blocks waste less there (as flash attention's heuristic).
  int64_t maxBlockK = p.causal || p.slidingWindow || p.chunkSize ? 64 : 128;
  FlashAttentionConfig config;
  for (int64_t blockK = maxBlockK; blockK >= 1; blockK /= 2)
    for (int64_t blockQ : {16, 8, 32, 4, 2, 1}) {
      config.blockQ = blockQ;
      config.blockK = blockK;
      ConfigAttr attr = config.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        return attr;
    }
  // Nothing fits (a kv_block_size no whole vector divides): the smallest,
  // which verification then reports.
  config.blockQ = 1;
  config.blockK = target.f32Lanes();
  return config.toAttr(op.getContext());
}

LogicalResult CpuBlockSparseAttention::tile(BlockSparseAttentionOp op,
                                            ConfigAttr attr,
                                            DispatchRewriter &rewriter) {
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, llvm::nulls());
  CpuAttentionPlan plan;
  static_cast<AttentionProblem &>(plan) = readAttentionProblem(op);
  plan.blockQ = config->blockQ;
  plan.blockK = config->blockK;
  plan.lanes = rewriter.target().f32Lanes();
  plan.keySplits = config->keySplits.value_or(1);

  CpuAttentionBuffers buffers;
  static_cast<AttentionBuffers &>(buffers) = findAttentionBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();

  Location loc = op.getLoc();
  if (!plan.readsKvInPlace() &&
      failed(addCpuPackDispatch(rewriter, plan, buffers)))
    return failure();
  if (failed(addLiveBlocksDispatch(rewriter, plan,
                                   liveBlockGrid(op, plan.blockQ, plan.blockK),
                                   /*vulkan=*/false, buffers)))
    return failure();
  if (plan.keySplits > 1 &&
      failed(addCpuCombineDispatch(rewriter, plan, buffers)))
    return failure();

  OpBuilder b = rewriter.replaceBody();
  buildCpuAttentionBody(b, loc, plan, buffers);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.attentionGrid());
  // FLOPs and bytes of the dense problem: the live fraction is data.
  SmallVector<Value> read = {
      buffers.query,        buffers.bias,   buffers.mask, buffers.qSegmentIds,
      buffers.kvSegmentIds, buffers.output, buffers.lse,  buffers.liveBlocks};
  if (plan.readsKvInPlace())
    read.append({buffers.key, buffers.value});
  else
    read.append({buffers.packedKeyT, buffers.packedValue});
  DispatchRewriter::setWork(dispatch, attentionFlops(plan),
                            DispatchRewriter::bytesOf(read));
  return success();
}
