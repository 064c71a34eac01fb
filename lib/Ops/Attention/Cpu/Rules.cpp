//===- Rules.cpp - flash attention configs on the CPU ---------------------===//
//
// Which configs are valid on a CPU (the working set fits L2, key blocks are
// whole vectors, key splits need one row block per head), the space the
// tuner tries, and the heuristic.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/FlashAttention.h"
#include "Attention/Cpu/Rows.h"
#include "Common/Arithmetic.h"
#include "Common/CpuWorkingSet.h"

#include "ejk/Ops/Attention/Config.h"
#include "ejk/Ops/Attention/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

static CpuAttentionRows cpuRows(const AttentionProblem &p, int64_t blockQ) {
  return {p.seqQ, p.numHeads, p.numKvHeads, blockQ};
}

/// Working set of one CPU workgroup: the query tile, one key/value block,
/// the score tile and the accumulator, all in f32; nullopt on overflow.
static std::optional<int64_t> workingSetBytes(const AttentionProblem &p,
                                              int64_t blockQ, int64_t blockK) {
  std::optional<int64_t> elements = checkedSum(
      {checkedProduct({blockQ, p.headDim}),
       checkedProduct({blockK, p.headDim + p.headDimV}),
       checkedProduct({blockQ, blockK}), checkedProduct({blockQ, p.headDimV})});
  if (!elements)
    return std::nullopt;
  return checkedProduct({4, *elements});
}

LogicalResult CpuFlashAttention::verifyConfig(FlashAttentionOp op,
                                              ConfigAttr attr,
                                              const TargetInfo &target,
                                              raw_ostream &reason) {
  return verifyCpuAttentionConfig(readAttentionProblem(op), attr, target,
                                  reason);
}

LogicalResult mlir::ejk::verifyCpuAttentionConfig(const AttentionProblem &p,
                                                  ConfigAttr attr,
                                                  const TargetInfo &target,
                                                  raw_ostream &reason) {
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, reason);
  if (!config)
    return failure();
  if (config->numSubgroups || config->cm2 || config->rowBlocks) {
    reason << "'"
           << (config->cm2         ? FlashAttentionConfig::kCm2
               : config->rowBlocks ? FlashAttentionConfig::kRowBlocks
                                   : FlashAttentionConfig::kNumSubgroups)
           << "' applies to Vulkan targets only";
    return failure();
  }
  if (config->blockK % target.f32Lanes() != 0) {
    reason << "'block_k' (" << config->blockK << ") must be a multiple of the "
           << target.f32Lanes() << " f32 lanes of a " << target.vectorBits
           << "-bit vector";
    return failure();
  }
  if (failed(checkL2WorkingSet(
          workingSetBytes(p, config->blockQ, config->blockK), target, reason)))
    return failure();
  if (config->keySplits) {
    int64_t splits = *config->keySplits;
    int64_t keyBlocks = ceilDiv(p.seqK, config->blockK);
    if (splits < 1 || splits > keyBlocks) {
      reason << "'key_splits' (" << splits << ") must be in [1, " << keyBlocks
             << "], the number of key blocks";
      return failure();
    }
    CpuAttentionRows rows = cpuRows(p, config->blockQ);
    if (splits > 1 && !rows.oneRowBlockPerHead()) {
      reason << "'key_splits' > 1 needs one row block per head: "
             << rows.rowsPerHead() << " rows per head exceed 'block_q' ("
             << config->blockQ << ")";
      return failure();
    }
  }
  return success();
}

SmallVector<ConfigAttr> CpuFlashAttention::configSpace(FlashAttentionOp op,
                                                       const TargetInfo &target,
                                                       bool full) {
  AttentionProblem p = readAttentionProblem(op);
  SmallVector<int64_t> blockQs =
      full ? SmallVector<int64_t>{4, 8, 16, 32, 64, 128}
           : SmallVector<int64_t>{8, 16, 32};
  SmallVector<int64_t> blockKs =
      full ? SmallVector<int64_t>{32, 64, 128, 256, 512}
           : SmallVector<int64_t>{64, 128, 256};
  SmallVector<ConfigAttr> space;
  MLIRContext *context = op.getContext();
  for (int64_t blockQ : blockQs) {
    // Blocks much larger than the problem only add remainder work.
    if (blockQ > std::max(ceilPow2(p.seqQ), blockQs.front()))
      continue;
    for (int64_t blockK : blockKs) {
      if (blockK > ceilPow2(p.seqK) && blockK != blockKs.front())
        continue;
      FlashAttentionConfig config;
      config.blockQ = blockQ;
      config.blockK = blockK;
      ConfigAttr attr = config.toAttr(context);
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
      // Decode shapes: the keys split across workgroups too.
      if (!cpuRows(p, blockQ).oneRowBlockPerHead())
        continue;
      for (int64_t splits :
           full ? SmallVector<int64_t>{2, 4, 8} : SmallVector<int64_t>{2, 4}) {
        config.keySplits = splits;
        ConfigAttr split = config.toAttr(context);
        if (succeeded(verifyConfig(op, split, target, llvm::nulls())))
          space.push_back(split);
      }
    }
  }
  return space;
}

ConfigAttr CpuFlashAttention::heuristicConfig(FlashAttentionOp op,
                                              const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  // Masked key blocks on the causal / window boundary are computed in
  // full: smaller key blocks waste less there (measured on fa-d128:
  // 0.93x instead of 0.88x of the non-causal rate; docs/ops/attention.md).
  int64_t maxBlockK = p.causal || p.slidingWindow ? 64 : 128;
  // Short queries (decode) with grouped KV heads: the block takes the
  // rows of all query heads of a KV head, which the kernel then packs
  // together so that K/V are read once per group (CpuAttentionPlan::
  // packsGroupRows).
  int64_t group = p.numKvHeads > 0 ? p.numHeads / p.numKvHeads : 1;
  int64_t rows = p.seqQ < 16 && group > 1 ? p.seqQ * group : p.seqQ;
  // Up to 64 grouped rows (MQA decode) still fit one row block, which
  // keeps K/V read in place.
  FlashAttentionConfig config;
  config.blockQ = std::min<int64_t>(rows == p.seqQ ? 16 : 64, ceilPow2(rows));
  config.blockK = std::max<int64_t>(
      target.f32Lanes(), std::min<int64_t>(maxBlockK, ceilPow2(p.seqK)));
  // Decode: with one row block per head the grid has only heads x batch
  // workgroups; split the keys (flash-decoding) until every core has two.
  CpuAttentionRows layout = cpuRows(p, config.blockQ);
  if (layout.oneRowBlockPerHead()) {
    int64_t workgroups = std::max<int64_t>(
        1, p.batch * (layout.packsGroupRows() ? p.numKvHeads : p.numHeads));
    int64_t wanted = 2 * std::max<int64_t>(1, target.numCores);
    int64_t keyBlocks = ceilDiv(p.seqK, config.blockK);
    int64_t splits = std::min<int64_t>(keyBlocks, ceilDiv(wanted, workgroups));
    if (splits > 1)
      config.keySplits = splits;
  }
  // Large head dims can overflow a small device's limits; halve block_k
  // until the config fits.
  ConfigAttr attr = config.toAttr(op.getContext());
  while (failed(verifyConfig(op, attr, target, llvm::nulls())) &&
         config.blockK > 1) {
    config.blockK /= 2;
    attr = config.toAttr(op.getContext());
  }
  return attr;
}
