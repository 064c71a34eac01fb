//===- Layout.cpp - how paged attention maps onto Vulkan threads ----------===//

#include "Paged/Vulkan/Layout.h"

#include "Common/VulkanFeatureChecks.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ejk;

int64_t mlir::ejk::visibleTokens(const PagedAttentionProblem &p) {
  int64_t tokens = p.maxContext();
  if (p.window)
    tokens = std::min(tokens, *p.window);
  return tokens;
}

int64_t mlir::ejk::naturalTeamLanes(const PagedAttentionProblem &p,
                                    const TargetInfo &target) {
  int64_t lanes = 1;
  while (lanes * 2 <= target.subgroupSize && p.headDim % (lanes * 2) == 0 &&
         p.headDim / (lanes * 2) >= 8)
    lanes *= 2;
  while (p.headDim / lanes > kMaxPagedLaneState &&
         lanes * 2 <= target.subgroupSize && p.headDim % (lanes * 2) == 0)
    lanes *= 2;
  return lanes;
}

std::optional<VulkanPagedLayout>
mlir::ejk::getVulkanPagedLayout(const PagedAttentionProblem &p,
                                const PagedAttentionConfig &config,
                                const TargetInfo &target, raw_ostream &reason) {
  VulkanPagedLayout l;
  l.subgroupSize = target.subgroupSize;
  l.numSubgroups = config.numSubgroups.value_or(1);
  l.threads = l.numSubgroups * l.subgroupSize;
  int64_t maxThreads = std::min<int64_t>(target.maxWorkgroupInvocations,
                                         target.maxWorkgroupSize[0]);
  if (l.threads > maxThreads) {
    reason << "'" << PagedAttentionConfig::kNumSubgroups << "' ("
           << l.numSubgroups << ") gives " << l.threads
           << " threads (subgroups of " << l.subgroupSize
           << "), more than the target's " << maxThreads << " per workgroup";
    return std::nullopt;
  }
  // Teams of the natural size when block_k has as many tokens as they, or
  // more (several tokens per team), larger teams when it has fewer.
  int64_t natural = naturalTeamLanes(p, target);
  int64_t naturalTeams = l.threads / natural;
  if (config.blockK < naturalTeams) {
    l.teams = config.blockK;
    l.teamLanes = l.threads / l.teams;
    if (l.threads % l.teams != 0 || !llvm::isPowerOf2_64(l.teamLanes) ||
        l.teamLanes > l.subgroupSize || p.headDim % l.teamLanes != 0) {
      reason << "'" << PagedAttentionConfig::kBlockK << "' (" << config.blockK
             << ") tokens per step over " << l.threads
             << " threads make teams of " << l.threads << " / " << config.blockK
             << " lanes; a team must be a power of two of "
             << "at most " << l.subgroupSize << " lanes that divides head_dim "
             << p.headDim;
      return std::nullopt;
    }
  } else {
    // Several tokens per team: natural teams, or smaller ones (more of
    // them) when a team would read more than kMaxPagedTokensPerTeam.
    l.teamLanes = natural;
    while (l.teamLanes > 1 &&
           config.blockK > (l.threads / l.teamLanes) * kMaxPagedTokensPerTeam)
      l.teamLanes /= 2;
    l.teams = l.threads / l.teamLanes;
    l.tokensPerTeam = config.blockK / l.teams;
    if (config.blockK % l.teams != 0 ||
        l.tokensPerTeam > kMaxPagedTokensPerTeam) {
      reason << "'" << PagedAttentionConfig::kBlockK << "' (" << config.blockK
             << ") tokens per step must be a multiple of the " << l.teams
             << " teams of " << l.teamLanes << " lanes, at most "
             << kMaxPagedTokensPerTeam << " per team";
      return std::nullopt;
    }
  }
  l.dimPerLane = p.headDim / l.teamLanes;
  if (l.dimPerLane > kMaxPagedLaneState) {
    reason << "teams of " << l.teamLanes << " lanes leave " << l.dimPerLane
           << " elements of head_dim " << p.headDim
           << " to each lane, more than " << kMaxPagedLaneState << " (lower '"
           << PagedAttentionConfig::kBlockK << "')";
    return std::nullopt;
  }
  // 16-byte loads when a lane's slice is whole vectors: every row starts at
  // a multiple of head_dim elements, so a contiguous slice of a multiple of
  // 16 bytes is 16-byte aligned.
  if (p.cacheType.isF16() || p.cacheType.isBF16() || p.cacheType.isF32()) {
    int64_t elems = 128 / p.cacheType.getIntOrFloatBitWidth();
    if (l.dimPerLane % elems == 0)
      l.vectorElems = elems;
  }
  // No query heads (an empty output, never dispatched) still gets a layout:
  // a group of 0 divided by 0 chunks (SIGFPE in config selection).
  int64_t group = std::max<int64_t>(p.groupSize(), 1);
  int64_t maxChunk = std::clamp<int64_t>(kMaxPagedLaneState / l.dimPerLane, 1,
                                         kMaxPagedHeadChunk);
  l.headChunks = llvm::divideCeil(group, maxChunk);
  l.headChunk = llvm::divideCeil(group, l.headChunks);

  l.numSplits = config.numSplits;
  int64_t tokens = visibleTokens(p);
  if (l.numSplits > std::max<int64_t>(tokens, 1)) {
    reason << "'" << PagedAttentionConfig::kNumSplits << "' (" << l.numSplits
           << ") is more than the " << tokens << " tokens a query can see";
    return std::nullopt;
  }
  // Vulkan guarantees 65535 workgroups along each dimension of a grid.
  if (l.numSplits > 65535 || p.numKvHeads * l.headChunks > 65535 ||
      p.batch > 65535) {
    reason << "the grid (" << l.numSplits << " x "
           << p.numKvHeads * l.headChunks << " x " << p.batch
           << ") exceeds 65535 workgroups along a dimension";
    return std::nullopt;
  }

  // The subgroups of a workgroup merge (max, sum, accumulator) per head.
  if (l.numSubgroups > 1)
    l.sharedBytes = l.numSubgroups * l.headChunk * (p.headDim + 2) * 4;
  if (l.sharedBytes > target.sharedMemoryBytes) {
    reason << "merging " << l.numSubgroups << " subgroups of " << l.headChunk
           << " heads of head_dim " << p.headDim << " takes " << l.sharedBytes
           << " bytes of workgroup memory, more than the target's "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  if (l.subgroupSize > 1 && !target.hasVulkanFeature("subgroup_shuffle")) {
    reason << "the kernel reduces across the lanes of a subgroup with "
              "shuffles, which the target lacks ('subgroup_shuffle')";
    return std::nullopt;
  }
  if (failed(checkVulkanBufferFeatures({p.queryType, p.cacheType}, target,
                                       reason)))
    return std::nullopt;
  if (p.cacheType.isInteger(8) && !(target.hasVulkanFeature("storage8") &&
                                    target.hasVulkanFeature("int8"))) {
    reason << "i8 caches need the device features 'storage8' and 'int8'";
    return std::nullopt;
  }
  l.combineThreads = std::min<int64_t>(
      llvm::alignTo(p.headDim, l.subgroupSize),
      std::max<int64_t>(maxThreads / l.subgroupSize, 1) * l.subgroupSize);
  l.combineThreads = std::min<int64_t>(l.combineThreads, 256);
  l.combineThreads = std::max<int64_t>(l.combineThreads, l.subgroupSize);
  return l;
}
