//===- Rules.cpp - state-space configs on the CPU -------------------------===//
//
// Which configs are valid on a CPU (whole vectors of channels or head_dim
// columns, a working set that fits L2), the spaces the tuner tries, and the
// heuristics.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/CpuWorkingSet.h"
#include "StateSpace/Cpu/StateSpace.h"
#include "StateSpace/StateTiles.h"

#include "ejk/Ops/StateSpace/Config.h"
#include "ejk/Ops/StateSpace/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

/// Reports a block that is not a whole number of f32 vectors.
static LogicalResult checkWholeVectors(StringRef name, int64_t block,
                                       const TargetInfo &target,
                                       raw_ostream &reason) {
  if (block % target.f32Lanes() == 0)
    return success();
  reason << "'" << name << "' (" << block << ") must be a multiple of the "
         << target.f32Lanes() << " f32 lanes of a " << target.vectorBits
         << "-bit vector";
  return failure();
}

//===----------------------------------------------------------------------===//
// selective_scan
//===----------------------------------------------------------------------===//

/// Bytes of a workgroup's scratch: dt, dt * u and y per chunk, A^T and the
/// state, all f32; nullopt on overflow.
static std::optional<int64_t> scanScratchBytes(const SelectiveScanProblem &p,
                                               int64_t blockD, int64_t chunkL) {
  std::optional<int64_t> perChannel =
      checkedSum({checkedProduct({3, chunkL}), checkedProduct({2, p.state})});
  if (!perChannel)
    return std::nullopt;
  return checkedProduct({4, blockD, *perChannel});
}

LogicalResult CpuSelectiveScan::verifyConfig(SelectiveScanOp op,
                                             ConfigAttr attr,
                                             const TargetInfo &target,
                                             raw_ostream &reason) {
  std::optional<SelectiveScanConfig> config =
      SelectiveScanConfig::read(attr, reason);
  if (!config)
    return failure();
  if (config->splitL || config->stateLanes || config->timeLanes ||
      config->laneBatch || config->doubleBuffer || config->timeSegments ||
      config->channelLanes || config->polyExp || config->fetchAhead ||
      config->carryPass) {
    reason << "'" << SelectiveScanConfig::kSplitL << "', '"
           << SelectiveScanConfig::kStateLanes << "', '"
           << SelectiveScanConfig::kTimeLanes << "', '"
           << SelectiveScanConfig::kLaneBatch << "', '"
           << SelectiveScanConfig::kDoubleBuffer << "', '"
           << SelectiveScanConfig::kTimeSegments << "', '"
           << SelectiveScanConfig::kChannelLanes << "', '"
           << SelectiveScanConfig::kPolyExp << "', '"
           << SelectiveScanConfig::kFetchAhead << "' and '"
           << SelectiveScanConfig::kCarryPass
           << "' apply to Vulkan targets only";
    return failure();
  }
  if (failed(checkWholeVectors(SelectiveScanConfig::kBlockD, config->blockD,
                               target, reason)))
    return failure();
  return checkL2WorkingSet(scanScratchBytes(readSelectiveScanProblem(op),
                                            config->blockD, config->chunkL),
                           target, reason);
}

SmallVector<ConfigAttr> CpuSelectiveScan::configSpace(SelectiveScanOp op,
                                                      const TargetInfo &target,
                                                      bool full) {
  SelectiveScanProblem p = readSelectiveScanProblem(op);
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> blockDs =
      full ? SmallVector<int64_t>{1, 2, 4, 8, 16} : SmallVector<int64_t>{2, 4};
  SmallVector<int64_t> chunkLs = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                      : SmallVector<int64_t>{32, 64};
  SmallVector<ConfigAttr> space;
  for (int64_t vectors : blockDs) {
    int64_t blockD = vectors * lanes;
    if (blockD > roundUp(p.channels, lanes) && vectors != blockDs.front())
      continue;
    for (int64_t chunkL : chunkLs) {
      if (chunkL > ceilPow2(p.seq) && chunkL != chunkLs.front())
        continue;
      ConfigAttr attr =
          SelectiveScanConfig{blockD, chunkL}.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  }
  return space;
}

ConfigAttr CpuSelectiveScan::heuristicConfig(SelectiveScanOp op,
                                             const TargetInfo &target) {
  SelectiveScanProblem p = readSelectiveScanProblem(op);
  int64_t lanes = target.f32Lanes();
  // Four vectors of channels amortize the per-step loads of B and C; halve
  // while there are too few workgroups to keep every core busy.
  int64_t blockD = std::max<int64_t>(
      lanes, std::min<int64_t>(4 * lanes, roundUp(p.channels, lanes)));
  int64_t cores = std::max<unsigned>(1, target.numCores);
  while (blockD > lanes && p.batch * ceilDiv(p.channels, blockD) < 4 * cores)
    blockD -= lanes * std::max<int64_t>(1, blockD / lanes / 2);
  int64_t chunkL = std::min<int64_t>(64, ceilPow2(p.seq));
  return SelectiveScanConfig{blockD, chunkL}.toAttr(op.getContext());
}

//===----------------------------------------------------------------------===//
// ssd
//===----------------------------------------------------------------------===//

/// Bytes of a workgroup's scratch: the decay-weighted scores (Q x Q), x and
/// the weighted x (Q x block_p each), the state tile (N x block_p); nullopt
/// on overflow.
static std::optional<int64_t> ssdScratchBytes(const SsdProblem &p,
                                              int64_t chunk, int64_t blockP,
                                              int64_t lanes) {
  std::optional<int64_t> paddedChunk = checkedSum({chunk, int64_t(lanes - 1)});
  std::optional<int64_t> elements = checkedSum(
      {paddedChunk ? checkedProduct({chunk, *paddedChunk / lanes * lanes})
                   : std::nullopt,
       checkedProduct({2, chunk, blockP}), checkedProduct({p.state, blockP}),
       checkedProduct({2, chunk})});
  if (!elements)
    return std::nullopt;
  return checkedProduct({4, *elements});
}

/// Checks what both targets require of an SSD config.
static std::optional<SsdConfig> readSsdConfig(SsdOp op, ConfigAttr attr,
                                              raw_ostream &reason) {
  std::optional<SsdConfig> config = SsdConfig::read(attr, reason);
  if (!config)
    return std::nullopt;
  int64_t state = readSsdProblem(op).state;
  if (config->blockN < 1 || state % config->blockN != 0) {
    reason << "'block_n' (" << config->blockN << ") must divide d_state ("
           << state << ")";
    return std::nullopt;
  }
  return config;
}

LogicalResult CpuSsd::verifyConfig(SsdOp op, ConfigAttr attr,
                                   const TargetInfo &target,
                                   raw_ostream &reason) {
  std::optional<SsdConfig> config = readSsdConfig(op, attr, reason);
  if (!config)
    return failure();
  if (config->numSubgroups || config->splitL || config->parallelChunks ||
      config->cooperative) {
    reason << "'"
           << (config->numSubgroups     ? SsdConfig::kNumSubgroups
               : config->splitL         ? SsdConfig::kSplitL
               : config->parallelChunks ? SsdConfig::kChunkParallel
                                        : SsdConfig::kCooperative)
           << "' applies to Vulkan targets only";
    return failure();
  }
  if (failed(checkWholeVectors(SsdConfig::kBlockP, config->blockP, target,
                               reason)))
    return failure();
  return checkL2WorkingSet(ssdScratchBytes(readSsdProblem(op),
                                           config->chunkSize, config->blockP,
                                           target.f32Lanes()),
                           target, reason);
}

SmallVector<ConfigAttr> CpuSsd::configSpace(SsdOp op, const TargetInfo &target,
                                            bool full) {
  SsdProblem p = readSsdProblem(op);
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> chunks = full
                                    ? SmallVector<int64_t>{16, 32, 64, 128, 256}
                                    : SmallVector<int64_t>{32, 64, 128};
  SmallVector<int64_t> blockPs =
      full ? SmallVector<int64_t>{1, 2, 4, 8} : SmallVector<int64_t>{2, 4};
  SmallVector<int64_t> blockNs = stateTiles(
      p.state, full ? ArrayRef<int64_t>{16, 32, 64} : ArrayRef<int64_t>{32});
  SmallVector<ConfigAttr> space;
  for (int64_t chunk : chunks) {
    if (chunk > ceilPow2(p.seq) && chunk != chunks.front())
      continue;
    for (int64_t vectors : blockPs) {
      int64_t blockP = vectors * lanes;
      if (blockP > roundUp(p.headDim, lanes) && vectors != blockPs.front())
        continue;
      for (int64_t blockN : blockNs) {
        SsdConfig config;
        config.chunkSize = chunk;
        config.blockP = blockP;
        config.blockN = blockN;
        ConfigAttr attr = config.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
    }
  }
  return space;
}

ConfigAttr CpuSsd::heuristicConfig(SsdOp op, const TargetInfo &target) {
  SsdProblem p = readSsdProblem(op);
  int64_t lanes = target.f32Lanes();
  SsdConfig config;
  // Small chunks keep the quadratic intra-chunk part (~chunk/(4 d_state) of
  // the state work) cheap; 64 still gives the matmuls long inner loops.
  config.chunkSize = std::min<int64_t>(64, ceilPow2(p.seq));
  // A whole head per workgroup avoids recomputing the decay matrix per
  // column block; split head_dim only when there are too few workgroups.
  config.blockP = std::max<int64_t>(lanes, roundUp(p.headDim, lanes));
  int64_t cores = std::max<unsigned>(1, target.numCores);
  while (config.blockP > lanes && config.blockP % (2 * lanes) == 0 &&
         p.batch * p.heads * ceilDiv(p.headDim, config.blockP) < 2 * cores)
    config.blockP /= 2;
  config.blockN = stateTiles(std::max<int64_t>(1, p.state), {64}).front();
  // Large chunks can overflow a small cache; halve the chunk size.
  ConfigAttr attr = config.toAttr(op.getContext());
  while (failed(verifyConfig(op, attr, target, llvm::nulls())) &&
         config.chunkSize > 1) {
    config.chunkSize /= 2;
    attr = config.toAttr(op.getContext());
  }
  return attr;
}
