//===- Rules.cpp - latent attention configs on the CPU --------------------===//
//
// `block_k` cache tokens per step: a whole number of f32 vectors (the
// step's scores are exponentiated as vectors), at most 128 (the step's
// widened rows, block_k x (latent + rope) f32, stay within L2 next to the
// queries and accumulators of every head). The heuristic takes 32 tokens
// (about 72 KiB of rows at DeepSeek's 576-wide rows: L2-resident, read by
// every head of the row). `num_splits` divides a row's tokens among
// workgroups: the heuristic adds splits until there are a few workgroups
// per core, never leaving a split with less than four steps of work.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Latent/Cpu/Mla.h"

using namespace mlir;
using namespace mlir::ejk;

/// Splits beyond this add combine work and buy no parallelism on a CPU.
static constexpr int64_t kMaxSplits = 64;
static constexpr int64_t kMaxBlockK = 128;

LogicalResult CpuMla::verifyConfig(Operation *op, ConfigAttr attr,
                                   const TargetInfo &target,
                                   raw_ostream &reason) {
  std::optional<MlaConfig> config = MlaConfig::read(attr, reason);
  if (!config)
    return failure();
  // A 0-sized RoPE operand does not lower through the CPU dispatch ABI
  // yet (the dispatch keeps its 0-element buffers).
  if (readMlaProblem(op).ropeDim == 0) {
    reason << "rope_dim 0 has no kernel yet (pass a RoPE key of at least "
              "one element)";
    return failure();
  }
  int64_t lanes = target.f32Lanes();
  if (config->blockK % lanes != 0 || config->blockK > kMaxBlockK) {
    reason << "'" << MlaConfig::kBlockK << "' (" << config->blockK
           << ") must be a multiple of the " << lanes << " f32 lanes of a "
           << target.vectorBits << "-bit vector, at most " << kMaxBlockK;
    return failure();
  }
  if (config->numSplits > kMaxSplits) {
    reason << "'" << MlaConfig::kNumSplits << "' (" << config->numSplits
           << ") must be at most " << kMaxSplits;
    return failure();
  }
  if (config->blockH || config->headLanes || config->cooperative) {
    reason << "'" << MlaConfig::kBlockH << "', '" << MlaConfig::kHeadLanes
           << "' and '" << MlaConfig::kCooperative
           << "' are Vulkan entries; the CPU kernel takes every head of a row "
              "in one workgroup";
    return failure();
  }
  return success();
}

ConfigAttr CpuMla::heuristicConfig(Operation *op, const TargetInfo &target) {
  MlaProblem p = readMlaProblem(op);
  int64_t lanes = target.f32Lanes();
  int64_t tokens = std::max<int64_t>(1, p.maxContext());
  int64_t blockK =
      std::min<int64_t>(32, roundUp(std::min<int64_t>(tokens, 32), lanes));
  blockK = roundUp(blockK, lanes);
  int64_t cores = std::max<unsigned>(1, target.numCores);
  int64_t workgroups = std::max<int64_t>(1, p.rows());
  int64_t splits = 1;
  while (splits < kMaxSplits && workgroups * splits < 4 * cores &&
         tokens / (2 * splits) >= 4 * blockK)
    splits *= 2;
  MlaConfig c;
  c.blockK = blockK;
  c.numSplits = splits;
  return c.toAttr(op->getContext());
}

SmallVector<ConfigAttr>
CpuMla::configSpace(Operation *op, const TargetInfo &target, bool full) {
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> blocks = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                     : SmallVector<int64_t>{32, 64};
  SmallVector<int64_t> splits =
      full ? SmallVector<int64_t>{1, 2, 4, 8, 16} : SmallVector<int64_t>{1, 4};
  SmallVector<ConfigAttr> configs;
  for (int64_t k : blocks)
    for (int64_t s : splits) {
      MlaConfig c;
      c.blockK = std::min(roundUp(k, lanes), roundUp(kMaxBlockK, lanes));
      if (c.blockK > kMaxBlockK)
        continue;
      c.numSplits = s;
      configs.push_back(c.toAttr(op->getContext()));
    }
  return configs;
}
