//===- Rules.cpp - paged attention configs on Vulkan ----------------------===//
//
// A config is valid when its layout exists (Layout.cpp). The heuristic
// takes eight subgroups of teams of D/8 lanes (at most a subgroup), two
// tokens per team and step, and as many splits as fill the device: TargetInfo
// has no count of compute units, so it aims at kTargetWorkgroups workgroups,
// about two per SM of an H100 or H200.
//
//===----------------------------------------------------------------------===//

#include "Paged/Vulkan/Decode.h"
#include "Paged/Vulkan/Layout.h"
#include "Paged/Vulkan/PagedAttention.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

constexpr int64_t kTargetWorkgroups = 256;
/// The most splits the heuristic picks: the combine reads each split's
/// partial output once.
constexpr int64_t kMaxHeuristicSplits = 32;

/// Splits that bring the grid to kTargetWorkgroups, each with at least one
/// step of `teams` tokens.
int64_t heuristicSplits(const PagedAttentionProblem &p, int64_t headChunks,
                        int64_t teams) {
  int64_t base = std::max<int64_t>(p.batch * p.numKvHeads * headChunks, 1);
  int64_t splits = llvm::divideCeil(kTargetWorkgroups, base);
  splits = std::min(splits, kMaxHeuristicSplits);
  splits = std::min(splits, visibleTokens(p) / std::max<int64_t>(teams, 1));
  return std::max<int64_t>(splits, 1);
}

/// `block_k` = `teamScale` x the natural teams of `subgroups` subgroups
/// (below 1: larger teams; above: several tokens per team).
PagedAttentionConfig makeConfig(const PagedAttentionProblem &p,
                                const TargetInfo &target, int64_t subgroups,
                                double teamScale,
                                std::optional<int64_t> splits) {
  PagedAttentionConfig c;
  c.numSubgroups = subgroups;
  int64_t teams = subgroups * target.subgroupSize / naturalTeamLanes(p, target);
  c.blockK = std::max<int64_t>(static_cast<int64_t>(teams * teamScale), 1);
  if (splits) {
    c.numSplits = *splits;
  } else {
    std::optional<VulkanPagedLayout> l =
        getVulkanPagedLayout(p, c, target, llvm::nulls());
    c.numSplits = heuristicSplits(p, l ? l->headChunks : 1, c.blockK);
  }
  return c;
}

bool isValid(const PagedAttentionProblem &p, const PagedAttentionConfig &c,
             const TargetInfo &target) {
  return getVulkanPagedLayout(p, c, target, llvm::nulls()).has_value();
}

} // namespace

PagedAttentionConfig
mlir::ejk::vulkanPagedHeuristic(const PagedAttentionProblem &p,
                                const TargetInfo &target) {
  // Eight subgroups of two tokens a team, fewer subgroups when the merge
  // would not fit in shared memory: on the H200 1.6x faster than four
  // subgroups of one token a team (docs/ops/paged-vulkan.md).
  for (int64_t subgroups : {8, 4, 2}) {
    PagedAttentionConfig c = makeConfig(p, target, subgroups, 2.0, {});
    if (isValid(p, c, target))
      return c;
  }
  return makeConfig(p, target, 1, 2.0, {});
}

SmallVector<PagedAttentionConfig>
mlir::ejk::vulkanPagedConfigSpace(const PagedAttentionProblem &p,
                                  const TargetInfo &target, bool full) {
  SmallVector<PagedAttentionConfig> configs = {vulkanPagedHeuristic(p, target)};
  auto add = [&](const PagedAttentionConfig &c) {
    if (!isValid(p, c, target))
      return;
    for (const PagedAttentionConfig &known : configs)
      if (known.blockK == c.blockK && known.numSplits == c.numSplits &&
          known.numSubgroups == c.numSubgroups)
        return;
    configs.push_back(c);
  };
  SmallVector<double> scales = {1.0, 2.0};
  if (full)
    scales.push_back(4.0);
  for (int64_t subgroups : {1, 2, 4, 8}) {
    for (double scale : scales) {
      PagedAttentionConfig c = makeConfig(p, target, subgroups, scale, {});
      add(c);
      if (!full)
        continue;
      for (int64_t splits : {int64_t(1), c.numSplits * 2})
        add(makeConfig(p, target, subgroups, scale, splits));
    }
  }
  return configs;
}

LogicalResult VulkanPagedAttention::verifyConfig(PagedAttentionOp op,
                                                 ConfigAttr attr,
                                                 const TargetInfo &target,
                                                 raw_ostream &reason) {
  std::optional<PagedAttentionConfig> config =
      PagedAttentionConfig::read(attr, reason);
  if (!config)
    return failure();
  return success(getVulkanPagedLayout(readPagedAttentionProblem(op), *config,
                                      target, reason)
                     .has_value());
}

ConfigAttr VulkanPagedAttention::heuristicConfig(PagedAttentionOp op,
                                                 const TargetInfo &target) {
  return vulkanPagedHeuristic(readPagedAttentionProblem(op), target)
      .toAttr(op.getContext());
}

SmallVector<ConfigAttr>
VulkanPagedAttention::configSpace(PagedAttentionOp op, const TargetInfo &target,
                                  bool full) {
  SmallVector<ConfigAttr> configs;
  for (const PagedAttentionConfig &c :
       vulkanPagedConfigSpace(readPagedAttentionProblem(op), target, full))
    configs.push_back(c.toAttr(op.getContext()));
  return configs;
}
