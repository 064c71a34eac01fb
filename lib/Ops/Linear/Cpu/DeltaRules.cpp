//===- DeltaRules.cpp - delta_attention configs on the CPU ----------------===//
//
// Which configs are valid on a CPU (whole vectors of head_dim_v columns, a
// workgroup's chunk scratch within L2), the space the tuner tries, and the
// heuristic. The config is gla's (GlaConfig).
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Linear/Cpu/Delta.h"
#include "Linear/Cpu/DeltaKernel.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult CpuDelta::verifyConfig(DeltaAttentionOp op, ConfigAttr attr,
                                     const TargetInfo &target,
                                     raw_ostream &reason) {
  std::optional<GlaConfig> config = GlaConfig::read(attr, reason);
  if (!config)
    return failure();
  if (config->chunkParallel) {
    reason << "'" << GlaConfig::kChunkParallel
           << "' = 1 has no CPU kernel for the delta rule";
    return failure();
  }
  if (config->cooperative) {
    reason << "'" << GlaConfig::kCooperative
           << "' has no CPU kernel: cooperative matrices are Vulkan's";
    return failure();
  }
  if (config->chunkSize < 1 || config->chunkSize > 256) {
    reason << "'" << GlaConfig::kChunkSize << "' (" << config->chunkSize
           << ") must be in [1, 256]";
    return failure();
  }
  int64_t lanes = target.f32Lanes();
  if (config->blockV < lanes || config->blockV % lanes != 0) {
    reason << "'" << GlaConfig::kBlockV << "' (" << config->blockV
           << ") must be a positive multiple of the " << lanes
           << " f32 lanes of a " << target.vectorBits << "-bit vector";
    return failure();
  }
  std::optional<int64_t> bytes = deltaScratchBytes(
      readDeltaProblem(op), config->chunkSize, config->blockV, lanes);
  if (bytes && *bytes <= target.l2Bytes)
    return success();
  reason << "working set of ";
  if (bytes)
    reason << *bytes;
  else
    reason << "more than 2^63";
  reason << " bytes exceeds the " << target.l2Bytes << "-byte L2 cache";
  return failure();
}

SmallVector<ConfigAttr> CpuDelta::configSpace(DeltaAttentionOp op,
                                              const TargetInfo &target,
                                              bool full) {
  DeltaProblem p = readDeltaProblem(op);
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> chunks = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                     : SmallVector<int64_t>{32, 64};
  SmallVector<int64_t> blockVs = full ? SmallVector<int64_t>{1, 2, 4, 8, 16, 32}
                                      : SmallVector<int64_t>{2, 4, 8, 16};
  SmallVector<ConfigAttr> space;
  for (int64_t chunk : chunks) {
    if (chunk > ceilPow2(std::max<int64_t>(1, p.seq)) &&
        chunk != chunks.front())
      continue;
    for (int64_t vectors : blockVs) {
      int64_t blockV = vectors * lanes;
      if (blockV > roundUp(p.dimV, lanes) && vectors != blockVs.front())
        continue;
      ConfigAttr attr = GlaConfig{chunk, blockV}.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  }
  return space;
}

ConfigAttr CpuDelta::heuristicConfig(DeltaAttentionOp op,
                                     const TargetInfo &target) {
  DeltaProblem p = readDeltaProblem(op);
  int64_t lanes = target.f32Lanes();
  GlaConfig config;
  // 64-step chunks: the quadratic part (two score matrices, the solve and
  // P U, C/2 x (K + V) each per step) stays below the state's three
  // K x V products for head dims >= 64.
  config.chunkSize =
      std::min<int64_t>(64, ceilPow2(std::max<int64_t>(1, p.seq)));
  // The whole of head_dim_v per workgroup (every block recomputes the
  // chunk's scores and norms); split it only when (sequence, head) pairs
  // are too few to keep the cores busy.
  config.blockV = roundUp(std::max<int64_t>(1, p.dimV), lanes);
  int64_t cores = std::max<unsigned>(1, target.numCores);
  while (config.blockV > lanes && config.blockV % (2 * lanes) == 0 &&
         std::max<int64_t>(1, p.numSeqs) * p.heads *
                 ceilDiv(p.dimV, config.blockV) <
             2 * cores)
    config.blockV /= 2;
  ConfigAttr attr = config.toAttr(op.getContext());
  while (failed(verifyConfig(op, attr, target, llvm::nulls())) &&
         config.chunkSize > 1) {
    config.chunkSize /= 2;
    attr = config.toAttr(op.getContext());
  }
  return attr;
}
