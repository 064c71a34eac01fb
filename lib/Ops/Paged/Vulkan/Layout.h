//===- Layout.h - how paged attention maps onto Vulkan threads --*- C++ -*-===//
//
// The thread layout of the Vulkan paged-attention kernel, derived from the
// config and the target: read by the config rules (is it valid, how much
// shared memory) and by the kernel builder (docs/ops/paged-vulkan.md).
//
// A workgroup of `num_subgroups` subgroups holds `teams` teams of
// `teamLanes` lanes (a power of two inside one subgroup); every lane of a
// team owns `dimPerLane` elements of the head dim: the contiguous
// `lane * dimPerLane + j` when it loads them as 16-byte vectors
// (`vectorElems` > 0), else the interleaved `lane + teamLanes * j`. A step
// reads `block_k` tokens, `tokensPerTeam` per team.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_VULKAN_LAYOUT_H
#define EJK_OPS_PAGED_VULKAN_LAYOUT_H

#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Ops/Paged/Config.h"
#include "ejk/Ops/Paged/Problem.h"

#include <array>
#include <optional>

namespace mlir::ejk {

struct VulkanPagedLayout {
  int64_t subgroupSize = 0, numSubgroups = 0, threads = 0;
  /// Teams of the workgroup and tokens each reads per step (teams x
  /// tokensPerTeam = the config's `block_k`).
  int64_t teams = 0, tokensPerTeam = 1;
  /// Lanes of a team, and elements of the head dim each lane owns.
  int64_t teamLanes = 0, dimPerLane = 0;
  /// Cache elements per 16-byte load (8 f16/bf16, 4 f32) when every lane
  /// loads its K/V slices as vector<4xi32> words (dimPerLane a multiple of
  /// it, the slices contiguous); 0 for scalar loads.
  int64_t vectorElems = 0;
  /// Query heads of one KV head a workgroup handles (the last chunk may
  /// hold fewer), and the chunks per KV head.
  int64_t headChunk = 0, headChunks = 0;
  int64_t numSplits = 1;
  /// Workgroup memory of the merge across subgroups.
  int64_t sharedBytes = 0;
  /// Threads of the combine dispatch (num_splits > 1).
  int64_t combineThreads = 0;
};

/// The most elements of per-head state (queries, accumulators) one lane
/// keeps in registers; bounds the head chunk.
constexpr int64_t kMaxPagedLaneState = 64;
/// The most query heads one workgroup handles.
constexpr int64_t kMaxPagedHeadChunk = 8;

/// The most tokens a team reads per step (unrolled).
constexpr int64_t kMaxPagedTokensPerTeam = 16;

/// Lanes of a team when `block_k` leaves the choice: about 8 elements of
/// the head dim per lane (fewer shuffles per token than a whole subgroup
/// per token, registers for up to 8 query heads), a power of two dividing
/// head_dim, within a subgroup.
int64_t naturalTeamLanes(const PagedAttentionProblem &p,
                         const TargetInfo &target);

/// Tokens one query sees at most: the table's capacity, or the window.
int64_t visibleTokens(const PagedAttentionProblem &p);

/// The layout of `config`, or nullopt with the reason it is invalid on
/// `target`.
std::optional<VulkanPagedLayout>
getVulkanPagedLayout(const PagedAttentionProblem &p,
                     const PagedAttentionConfig &config,
                     const TargetInfo &target, llvm::raw_ostream &reason);

struct VulkanPagedPlan : PagedAttentionProblem {
  VulkanPagedLayout layout;

  /// Splits x (KV heads x head chunks) x batch.
  std::array<int64_t, 3> grid() const {
    return {layout.numSplits, numKvHeads * layout.headChunks, batch};
  }
  /// One workgroup per (query head, sequence).
  std::array<int64_t, 3> combineGrid() const { return {numHeads, batch, 1}; }
};

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_VULKAN_LAYOUT_H
