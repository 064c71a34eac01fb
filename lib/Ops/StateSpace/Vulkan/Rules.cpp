//===- Rules.cpp - state-space configs on Vulkan --------------------------===//
//
// Which configs are valid on a Vulkan device (a layout of Layout.h exists
// for them), the spaces the tuner tries, and the heuristics.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "StateSpace/StateTiles.h"
#include "StateSpace/Vulkan/Layout.h"
#include "StateSpace/Vulkan/StateSpace.h"

#include "ejk/Ops/StateSpace/Config.h"
#include "ejk/Ops/StateSpace/Problem.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ejk;

static VulkanLimits limitsOf(const TargetInfo &target) {
  VulkanLimits limits;
  limits.subgroupSize = std::max<unsigned>(1, target.subgroupSize);
  limits.maxInvocations = target.maxWorkgroupInvocations;
  limits.sharedBytes = target.sharedMemoryBytes;
  return limits;
}

//===----------------------------------------------------------------------===//
// selective_scan
//===----------------------------------------------------------------------===//

std::optional<VulkanScanLayout>
mlir::ejk::getVulkanScanLayout(SelectiveScanOp op, ConfigAttr config,
                               const TargetInfo &target, raw_ostream &reason) {
  SelectiveScanProblem p = readSelectiveScanProblem(op);
  return VulkanScanLayout::compute(
      p.seq, p.channels, p.groups, p.state,
      config.lookupOr(SelectiveScanConfig::kBlockD, 0),
      config.lookupOr(SelectiveScanConfig::kChunkL, 0),
      config.lookupOr(SelectiveScanConfig::kStateLanes, 0),
      config.lookupOr(SelectiveScanConfig::kSplitL, 0), limitsOf(target),
      reason, config.lookupOr(SelectiveScanConfig::kTimeLanes, 0),
      config.lookupOr(SelectiveScanConfig::kLaneBatch, 0),
      config.lookupOr(SelectiveScanConfig::kDoubleBuffer, 0),
      config.lookupOr(SelectiveScanConfig::kTimeSegments, 0),
      config.lookupOr(SelectiveScanConfig::kChannelLanes, 0),
      config.lookupOr(SelectiveScanConfig::kPolyExp, 0),
      config.lookupOr(SelectiveScanConfig::kFetchAhead, 0),
      config.lookupOr(SelectiveScanConfig::kCarryPass, 0));
}

LogicalResult VulkanSelectiveScan::verifyConfig(SelectiveScanOp op,
                                                ConfigAttr attr,
                                                const TargetInfo &target,
                                                raw_ostream &reason) {
  if (!SelectiveScanConfig::read(attr, reason) ||
      !getVulkanScanLayout(op, attr, target, reason))
    return failure();
  return success();
}

/// Threads per channel of the scan (VulkanScanLayout).
static int64_t threadsPerChannel(const SelectiveScanProblem &p,
                                 const TargetInfo &target) {
  return std::min<int64_t>(ceilPow2(p.state),
                           std::max<unsigned>(1, target.subgroupSize));
}

static std::optional<SelectiveScanConfig>
splitHeuristic(const SelectiveScanProblem &p, const TargetInfo &target);
static std::optional<SelectiveScanConfig>
timeLanesHeuristic(SelectiveScanOp op, const SelectiveScanProblem &p,
                   const TargetInfo &target);

SmallVector<ConfigAttr>
VulkanSelectiveScan::configSpace(SelectiveScanOp op, const TargetInfo &target,
                                 bool full) {
  SelectiveScanProblem p = readSelectiveScanProblem(op);
  int64_t perChannel = threadsPerChannel(p, target);
  SmallVector<int64_t> threadCounts =
      full ? SmallVector<int64_t>{32, 64, 128, 256, 512}
           : SmallVector<int64_t>{64, 128, 256};
  SmallVector<int64_t> chunkLs = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                      : SmallVector<int64_t>{32, 64};
  SmallVector<ConfigAttr> space;
  int64_t lastBlockD = 0;
  for (int64_t threads : threadCounts) {
    int64_t blockD = std::max<int64_t>(1, threads / perChannel);
    if (blockD == lastBlockD ||
        (blockD > ceilPow2(p.channels) && lastBlockD != 0))
      continue;
    lastBlockD = blockD;
    for (int64_t chunkL : chunkLs) {
      if (chunkL > ceilPow2(p.seq) && chunkL != chunkLs.front())
        continue;
      ConfigAttr attr =
          SelectiveScanConfig{blockD, chunkL}.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  }
  // The time-lanes heuristic's config (with state groups, also the one
  // group of its lanes: half the threads, 16 channels), and the split scan
  // around the split heuristic's when it splits.
  if (std::optional<SelectiveScanConfig> lanes =
          timeLanesHeuristic(op, p, target)) {
    space.push_back(lanes->toAttr(op.getContext()));
    if (lanes->stateLanes) {
      SelectiveScanConfig oneGroup = *lanes;
      oneGroup.stateLanes.reset();
      ConfigAttr attr = oneGroup.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  }
  std::optional<SelectiveScanConfig> splitConfig = splitHeuristic(p, target);
  if (!splitConfig)
    return space;
  SelectiveScanConfig split = *splitConfig;
  int64_t base = *split.splitL;
  SmallVector<int64_t> splitLs =
      full ? SmallVector<int64_t>{base / 2, base, base * 2}
           : SmallVector<int64_t>{base};
  SmallVector<int64_t> lanes = {*split.stateLanes};
  if (full && perChannel != *split.stateLanes)
    lanes.push_back(perChannel);
  for (int64_t splitL : splitLs)
    for (int64_t stateLanes : lanes) {
      SelectiveScanConfig c = split;
      c.splitL = splitL;
      c.stateLanes = stateLanes;
      c.blockD =
          std::max<int64_t>(split.blockD * *split.stateLanes / stateLanes, 1);
      ConfigAttr attr = c.toAttr(op.getContext());
      if (splitL >= 1 && !llvm::is_contained(space, attr) &&
          succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  return space;
}

/// Threads a scan should expose to keep a large GPU busy (an H100 keeps
/// 132 x 2048 resident): below it the sequence is split.
static constexpr int64_t kWantedThreads = int64_t(1) << 17;
/// Lanes per channel of the split scan: four states per thread give each
/// thread independent chains and cost two shuffles per step, and the
/// splits give back the parallelism.
static constexpr int64_t kSplitLanes = 4;
/// At most this many splits: a split's workgroup first carries the states
/// of every earlier split in, work that grows with their count.
static constexpr int64_t kMaxSplits = 32;

/// The split (chunked) scan for a problem whose channels alone leave the
/// device short of threads, or nullopt: lanes of kSplitLanes, 128 threads,
/// chunks of 16 steps (8 KiB of shared memory: 16 workgroups fill an SM
/// of 2048 threads; on an H100 chunks of 16, 32 and 64 took 0.100, 0.115
/// and 0.358 ms for mamba1, docs/ops/state-space-vulkan.md),
/// as many splits of whole chunks as reach kWantedThreads (at most
/// kMaxSplits).
static std::optional<SelectiveScanConfig>
splitHeuristic(const SelectiveScanProblem &p, const TargetInfo &target) {
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  if (p.batch * p.channels == 0 || p.seq <= 1 ||
      p.batch * p.channels * threadsPerChannel(p, target) >= kWantedThreads)
    return std::nullopt;
  SelectiveScanConfig c;
  c.stateLanes =
      std::min<int64_t>({kSplitLanes, threadsPerChannel(p, target), subgroup});
  c.blockD = std::max<int64_t>(subgroup, 128) / *c.stateLanes;
  c.chunkL = std::min<int64_t>(16, ceilPow2(p.seq));
  int64_t threads = p.batch * roundUp(p.channels, c.blockD) * *c.stateLanes;
  int64_t splits = std::min(kMaxSplits, ceilDiv(kWantedThreads, threads));
  int64_t splitL = roundUp(ceilDiv(p.seq, splits), c.chunkL);
  if (splitL >= p.seq)
    return std::nullopt;
  c.splitL = splitL;
  return c;
}

/// Lanes per channel (at most), steps per thread, state groups (at most)
/// and threads per workgroup and state group of the time-lanes scan the
/// heuristic picks.
static constexpr int64_t kTimeLanes = 16;
static constexpr int64_t kTimeLaneItems = 8;
static constexpr int64_t kTimeStateGroups = 2;
static constexpr int64_t kTimeLaneThreads = 256;

/// The time-lanes scan (SelectiveScanLanes.cpp) where the split would
/// apply and it fits: 16 lanes per channel (or the subgroup's), 8 steps
/// per thread, 2 state groups where the subgroup holds both and they
/// divide d_state, 16 channels (512 threads with the groups, else 256),
/// fewer channels while the stages do not fit shared memory. One pass,
/// each exp once, against the split's two. On the H200 (2026-11-27, one
/// process, docs/ops/state-space-vulkan.md) mamba1 took 0.0676 ms with two
/// state groups against 0.0783 with one (the heuristic before) and 0.0884
/// split; 0.074-0.24 ms with 4 or 8 groups, 8 lanes or other blocks; 0.11
/// to 0.19 ms with fewer channels per workgroup or shorter chunks (each
/// workgroup stages all of B and C, so channels per workgroup amortize
/// it).
static std::optional<SelectiveScanConfig>
timeLanesHeuristic(SelectiveScanOp op, const SelectiveScanProblem &p,
                   const TargetInfo &target) {
  // Every state in one thread without groups: more states (which the
  // groups would fit) are untimed, they stay on the split scan.
  if (!splitHeuristic(p, target) ||
      p.state > VulkanScanLayout::kMaxStatesPerThread)
    return std::nullopt;
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  SelectiveScanConfig c;
  c.timeLanes = std::min<int64_t>(subgroup, kTimeLanes);
  c.chunkL = kTimeLaneItems * *c.timeLanes;
  int64_t groups = std::min<int64_t>(kTimeStateGroups, subgroup / *c.timeLanes);
  if (groups > 1 && p.state % groups == 0)
    c.stateLanes = groups;
  int64_t perChannel = *c.timeLanes * c.stateLanes.value_or(1);
  int64_t threads =
      std::min<int64_t>(kTimeLaneThreads * c.stateLanes.value_or(1),
                        target.maxWorkgroupInvocations);
  for (c.blockD = std::max<int64_t>(1, threads / perChannel);
       c.blockD * perChannel >= subgroup; c.blockD /= 2)
    if (succeeded(VulkanSelectiveScan::verifyConfig(
            op, c.toAttr(op.getContext()), target, llvm::nulls())))
      return c;
  return std::nullopt;
}

/// The time-lanes scan when it applies (timeLanesHeuristic), the split
/// scan when it applies (splitHeuristic); else about 128
/// threads per workgroup (whole subgroups), fewer channels per workgroup
/// while the grid is small, shorter chunks when shared memory is short.
ConfigAttr VulkanSelectiveScan::heuristicConfig(SelectiveScanOp op,
                                                const TargetInfo &target) {
  SelectiveScanProblem p = readSelectiveScanProblem(op);
  if (std::optional<SelectiveScanConfig> lanes =
          timeLanesHeuristic(op, p, target))
    return lanes->toAttr(op.getContext());
  if (std::optional<SelectiveScanConfig> split = splitHeuristic(p, target)) {
    ConfigAttr attr = split->toAttr(op.getContext());
    if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
      return attr;
  }
  int64_t perChannel = threadsPerChannel(p, target);
  int64_t minBlockD = std::max<int64_t>(
      1, std::max<unsigned>(1, target.subgroupSize) / perChannel);
  SelectiveScanConfig config;
  config.blockD = std::max<int64_t>(minBlockD, 128 / perChannel);
  while (config.blockD > minBlockD &&
         p.batch * ceilDiv(p.channels, config.blockD) < 64)
    config.blockD /= 2;
  config.chunkL = std::min<int64_t>(64, ceilPow2(p.seq));
  ConfigAttr attr = config.toAttr(op.getContext());
  while (failed(verifyConfig(op, attr, target, llvm::nulls())) &&
         config.chunkL > 1) {
    config.chunkL /= 2;
    attr = config.toAttr(op.getContext());
  }
  return attr;
}

//===----------------------------------------------------------------------===//
// ssd
//===----------------------------------------------------------------------===//

/// Whether x, B and C are f16 (what the cooperative kernels stage).
static bool hasF16Inputs(SsdOp op) {
  for (Value v : {op.getX(), op.getB(), op.getC()})
    if (!cast<ShapedType>(v.getType()).getElementType().isF16())
      return false;
  return true;
}

std::optional<VulkanSsdLayout>
mlir::ejk::getVulkanSsdLayout(SsdOp op, ConfigAttr config,
                              const TargetInfo &target, raw_ostream &reason) {
  SsdProblem p = readSsdProblem(op);
  int64_t cooperative = config.lookupOr(SsdConfig::kCooperative, 0);
  if (cooperative < 0 || cooperative > 2) {
    reason << "'cooperative' (" << cooperative
           << ") must be 0, 1 or 2 (padded matrix stages)";
    return std::nullopt;
  }
  if (cooperative && config.lookupOr(SsdConfig::kChunkParallel, 0) != 1) {
    reason << "'cooperative' needs 'chunk_parallel' = 1";
    return std::nullopt;
  }
  std::optional<VulkanSsdLayout> layout = VulkanSsdLayout::compute(
      p.seq, p.state, config.lookupOr(SsdConfig::kChunkSize, 0),
      config.lookupOr(SsdConfig::kBlockP, 0),
      config.lookupOr(SsdConfig::kBlockN, 0),
      config.lookupOr(SsdConfig::kNumSubgroups, 1),
      config.lookupOr(SsdConfig::kSplitL, 0),
      config.lookupOr(SsdConfig::kChunkParallel, 0), limitsOf(target), reason,
      cooperative != 0);
  if (!layout || cooperative == 0)
    return layout;
  return layout->withCooperative(p.state, hasF16Inputs(op),
                                 target.hasCooperativeMatrix, cooperative == 2,
                                 limitsOf(target), reason);
}

LogicalResult VulkanSsd::verifyConfig(SsdOp op, ConfigAttr attr,
                                      const TargetInfo &target,
                                      raw_ostream &reason) {
  std::optional<SsdConfig> config = SsdConfig::read(attr, reason);
  if (!config)
    return failure();
  int64_t state = readSsdProblem(op).state;
  if (config->blockN < 1 || state % config->blockN != 0) {
    reason << "'block_n' (" << config->blockN << ") must divide d_state ("
           << state << ")";
    return failure();
  }
  if (!getVulkanSsdLayout(op, attr, target, reason))
    return failure();
  return success();
}

static ConfigAttr firstFitting(SsdOp op, const TargetInfo &target,
                               bool parallelChunks, ConfigAttr &fallback);

/// Scan workgroups an SSD would expose to fill an H100 (about four of 256
/// threads and ~46 KiB resident per SM, 132 SMs): the split candidates the
/// tuner tries aim for it.
static constexpr int64_t kWantedSsdWorkgroups = 512;

/// `config` with the split scan when its grid has fewer than
/// kWantedSsdWorkgroups workgroups and the sequence has several chunks:
/// splits of whole chunks, as many as reach kWantedSsdWorkgroups.
static SsdConfig withSsdSplit(const SsdProblem &p, SsdConfig config) {
  int64_t workgroups = p.batch * p.heads *
                       ceilDiv(p.headDim, std::max<int64_t>(1, config.blockP));
  int64_t chunks = ceilDiv(p.seq, std::max<int64_t>(1, config.chunkSize));
  if (workgroups == 0 || workgroups >= kWantedSsdWorkgroups || chunks < 2)
    return config;
  int64_t splits = std::min(chunks, ceilDiv(kWantedSsdWorkgroups, workgroups));
  int64_t splitChunks = ceilDiv(chunks, splits);
  if (splitChunks >= chunks)
    return config;
  config.splitL = splitChunks * config.chunkSize;
  return config;
}

SmallVector<ConfigAttr>
VulkanSsd::configSpace(SsdOp op, const TargetInfo &target, bool full) {
  SsdProblem p = readSsdProblem(op);
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  SmallVector<int64_t> chunks = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                     : SmallVector<int64_t>{32, 64};
  SmallVector<int64_t> blockPs =
      full ? SmallVector<int64_t>{8, 16, 32, 64} : SmallVector<int64_t>{16, 32};
  SmallVector<int64_t> blockNs = stateTiles(
      p.state, full ? ArrayRef<int64_t>{8, 16, 32} : ArrayRef<int64_t>{16, 32});
  SmallVector<int64_t> threadCounts =
      full ? SmallVector<int64_t>{64, 128, 256, 512}
           : SmallVector<int64_t>{128, 256};
  SmallVector<ConfigAttr> space;
  for (int64_t chunk : chunks) {
    if (chunk > ceilPow2(p.seq) && chunk != chunks.front())
      continue;
    for (int64_t blockP : blockPs) {
      if (blockP > ceilPow2(p.headDim) && blockP != blockPs.front())
        continue;
      for (int64_t blockN : blockNs)
        for (int64_t threads : threadCounts) {
          if (threads < subgroup)
            continue;
          SsdConfig config;
          config.chunkSize = chunk;
          config.blockP = blockP;
          config.blockN = blockN;
          config.numSubgroups = threads / subgroup;
          ConfigAttr attr = config.toAttr(op.getContext());
          if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
            space.push_back(attr);
          if (p.seq <= chunk)
            continue;
          config.parallelChunks = 1;
          attr = config.toAttr(op.getContext());
          if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
            space.push_back(attr);
        }
    }
  }
  // The heuristic's choice (chunk_parallel's blocks lie outside the grid
  // above).
  ConfigAttr heuristic = heuristicConfig(op, target);
  if (!llvm::is_contained(space, heuristic) &&
      succeeded(verifyConfig(op, heuristic, target, llvm::nulls())))
    space.push_back(heuristic);
  // The split scan (the one-pass heuristic's blocks, split as withSsdSplit
  // would) for the tuner to try: the heuristic itself does not split.
  ConfigAttr fallback;
  ConfigAttr onePass = firstFitting(op, target, false, fallback);
  SsdConfig split = withSsdSplit(
      readSsdProblem(op),
      *SsdConfig::read(onePass ? onePass : fallback, llvm::nulls()));
  if (!split.splitL)
    return space;
  int64_t base = *split.splitL;
  SmallVector<int64_t> splitLs =
      full ? SmallVector<int64_t>{base / 2, base, base * 2}
           : SmallVector<int64_t>{base};
  for (int64_t splitL : splitLs) {
    SsdConfig c = split;
    c.splitL = splitL;
    ConfigAttr attr = c.toAttr(op.getContext());
    if (splitL >= 1 && !llvm::is_contained(space, attr) &&
        succeeded(verifyConfig(op, attr, target, llvm::nulls())))
      space.push_back(attr);
  }
  return space;
}

/// The first config that fits, in order of preference: 256 threads;
/// chunks of 64 (each chunk is a sequential step of the one-pass
/// workgroup, and the quadratic part stays small next to the state work);
/// head_dim blocks halved from 64 (one-pass: until the grid has about 128
/// workgroups, as the workgroups of a head recompute its C B^T, so smaller
/// blocks cost work); n-chunks of up to 32 states. Null when none fits,
/// with the first candidate in `fallback`.
static ConfigAttr firstFitting(SsdOp op, const TargetInfo &target,
                               bool parallelChunks, ConfigAttr &fallback) {
  SsdProblem p = readSsdProblem(op);
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  // 512 threads for the chunk kernels (on the H200 mamba2 took 0.261 ms
  // with 512, 0.286 with 256 and 0.461 with 128), 256 for one pass.
  int64_t preferred =
      std::max<int64_t>(1, (parallelChunks ? 512 : 256) / subgroup);
  int64_t chunk0 = std::min<int64_t>(64, ceilPow2(p.seq));
  int64_t blockP0 = std::min<int64_t>(64, ceilPow2(p.headDim));
  while (!parallelChunks && blockP0 > 16 &&
         p.batch * p.heads * ceilDiv(p.headDim, blockP0) < 128)
    blockP0 /= 2;
  SmallVector<int64_t> blockNs =
      stateTiles(std::max<int64_t>(1, p.state), {8, 16, 32});
  std::reverse(blockNs.begin(), blockNs.end());
  SmallVector<int64_t> subgroupCounts = {preferred, preferred * 2,
                                         preferred * 4};
  for (int64_t w = preferred / 2; w >= 1; w /= 2)
    subgroupCounts.push_back(w);
  for (int64_t chunk = chunk0; chunk >= 1; chunk /= 2) {
    for (int64_t blockP = blockP0; blockP >= 1; blockP /= 2)
      for (int64_t blockN : blockNs) {
        if (blockN > 32 && blockN != blockNs.back())
          continue;
        for (int64_t w : subgroupCounts) {
          SsdConfig config;
          config.chunkSize = chunk;
          config.blockP = blockP;
          config.blockN = blockN;
          config.numSubgroups = w;
          if (parallelChunks)
            config.parallelChunks = 1;
          ConfigAttr attr = config.toAttr(op.getContext());
          if (!fallback)
            fallback = attr;
          if (failed(VulkanSsd::verifyConfig(op, attr, target, llvm::nulls())))
            continue;
          return attr;
        }
      }
    if (chunk < 8)
      break;
  }
  return {};
}

/// The cooperative chunk kernels' config: chunks of 64 (down to 16),
/// head_dim blocks of 64 (down to 16), n-chunks of 32 (or 16), 512 threads
/// (or 256, 128), each with padded matrix stages (`cooperative = 2`) where
/// they fit, else unpadded; the first that verifies, else null. Padding
/// each f16 stage's rows by 8 halves (bank conflicts of the 16x16 loads
/// at 128-256-byte strides): f16 mamba2 0.1327 ms against 0.1889 ms
/// unpadded, the same outputs (H200, one process, 2026-11-27,
/// bench/results/h200/ssm-coop2-2026-11-27.json). On the H200, f16
/// mamba2 took 0.218 ms with 512 threads, 0.380 with 256, 0.706 with 128;
/// 0.267 with chunks of 32 and 0.432 with head_dim blocks of 32; with the
/// 1024-thread pass 0.196 ms (2026-11-27, call 2). Reading the pass's
/// states as f16 matrices straight from memory instead of staging them
/// was slower (0.229-0.231 ms: the outputs 119-122 against 89 us) and was
/// not kept (docs/ops/state-space-vulkan.md).
static ConfigAttr cooperativeConfig(SsdOp op, const TargetInfo &target) {
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  int64_t preferred = std::max<int64_t>(1, 512 / subgroup);
  for (int64_t chunk : {64, 32, 16})
    for (int64_t blockP : {64, 32, 16})
      for (int64_t blockN : {32, 16})
        for (int64_t w : {preferred, preferred / 2, preferred / 4})
          for (int64_t cooperative : {2, 1}) {
            SsdConfig config;
            config.chunkSize = chunk;
            config.blockP = blockP;
            config.blockN = blockN;
            config.numSubgroups = std::max<int64_t>(1, w);
            config.parallelChunks = 1;
            config.cooperative = cooperative;
            ConfigAttr attr = config.toAttr(op.getContext());
            if (succeeded(
                    VulkanSsd::verifyConfig(op, attr, target, llvm::nulls())))
              return attr;
          }
  return {};
}

/// Parallel chunks (SsdChunkedKernel.cpp) whenever the sequence has more
/// than one chunk, on cooperative matrices for f16 inputs where the device
/// has them: on the H200 mamba2 took 0.261 ms (f32), 0.218 ms (f16, coop)
/// against 0.501 / 0.482 ms in one pass, and at batch 4 1.04 against 2.22
/// ms (bench/results/h200/ssm-chunk-parallel-2026-11-27-run2.json); else
/// the one-pass scan
/// (firstFitting's order), with no temporaries. Never the split scan: on
/// the H100 it was slower than one pass for mamba2 at every split tried
/// (one pass 0.515 ms; splits of 1024/512/256/128 steps
/// 0.640/0.669/0.709/0.802 ms,
/// bench/results/h100/ssm-split-2026-11-27-run2.json): the end-state pass
/// costs more than the parallelism gives back. The tuner still tries it.
ConfigAttr VulkanSsd::heuristicConfig(SsdOp op, const TargetInfo &target) {
  SsdProblem p = readSsdProblem(op);
  ConfigAttr fallback;
  if (p.seq > 64) {
    if (target.hasCooperativeMatrix && hasF16Inputs(op))
      if (ConfigAttr attr = cooperativeConfig(op, target))
        return attr;
    ConfigAttr ignored;
    if (ConfigAttr attr = firstFitting(op, target, true, ignored))
      return attr;
  }
  if (ConfigAttr attr = firstFitting(op, target, false, fallback))
    return attr;
  // Nothing fits: the first choice, which verification then reports.
  return fallback;
}
