//===- PrefillRules.cpp - the cooperative prefill kernel's configs --------===//
//
// When the cooperative-matrix kernel of Prefill.h can run a ragged problem,
// and which (block_q, prefill_block_k) are valid: threads, workgroup
// memory, 16-key steps.
//
//===----------------------------------------------------------------------===//

#include "Paged/Vulkan/Prefill.h"

#include "ejk/Ops/Paged/Config.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ejk;

static constexpr int64_t kTile = VulkanPrefillLayout::kTile;

const char *mlir::ejk::vulkanPrefillExclusion(const RaggedPagedProblem &p,
                                              const TargetInfo &target) {
  if (!target.hasCooperativeMatrix)
    return "the target has no cooperative matrices";
  bool f16 =
      p.queryType && p.queryType.isF16() && p.cacheType && p.cacheType.isF16();
  bool bf16 = p.queryType && p.queryType.isBF16() && p.cacheType &&
              p.cacheType.isBF16();
  if (!f16 && !bf16)
    return "it takes f16 queries and caches (or bf16 ones)";
  if (bf16 && !target.hasVulkanFeature("cooperative_matrix_bf16"))
    return "bf16 queries and caches need bf16 cooperative matrices";
  if (p.headDim % kTile != 0)
    return "it takes a head_dim that is a multiple of 16";
  if (target.subgroupSize % kTile != 0)
    return "it takes subgroups of a multiple of 16 lanes";
  if (!target.hasVulkanFeature("float16") ||
      !target.hasVulkanFeature("storage16"))
    return "it needs the 'float16' and 'storage16' features";
  if (target.subgroupSize > kTile &&
      !target.hasVulkanFeature("subgroup_shuffle"))
    return "it needs the 'subgroup_shuffle' feature";
  return nullptr;
}

std::optional<VulkanPrefillLayout>
mlir::ejk::getVulkanPrefillLayout(const RaggedPagedProblem &p, int64_t blockQ,
                                  int64_t blockK, const TargetInfo &target,
                                  raw_ostream &reason) {
  if (const char *why = vulkanPrefillExclusion(p, target)) {
    reason << "'" << RaggedPagedConfig::kBlockQ << "' (" << blockQ
           << ") above 1 runs the cooperative-matrix prefill kernel, but "
           << why << "; 'block_q' = 1 runs every row on the decode kernel";
    return std::nullopt;
  }
  VulkanPrefillLayout l;
  l.blockQ = blockQ;
  l.groupSize = p.groupSize();
  l.rows = blockQ * l.groupSize;
  l.blockK = blockK;
  l.numSubgroups = (l.rows + kTile - 1) / kTile;
  l.subgroupSize = target.subgroupSize;
  l.threads = l.numSubgroups * l.subgroupSize;
  l.lanesPerRow = l.subgroupSize / kTile;
  l.headDim = p.headDim;
  if (blockK % kTile != 0) {
    reason << "'" << RaggedPagedConfig::kPrefillBlockK << "' (" << blockK
           << ") must be a multiple of 16 (the cooperative-matrix kernel's "
              "key tiles)";
    return std::nullopt;
  }
  int64_t maxThreads = std::min<int64_t>(target.maxWorkgroupInvocations,
                                         target.maxWorkgroupSize[0]);
  if (l.threads > maxThreads) {
    reason << "'" << RaggedPagedConfig::kBlockQ << "' (" << blockQ
           << ") tokens of " << l.groupSize << " query heads are " << l.rows
           << " rows, " << l.numSubgroups
           << " subgroups of 16 rows: " << l.threads
           << " threads, more than the target's " << maxThreads
           << " per workgroup";
    return std::nullopt;
  }
  int64_t rows = l.numSubgroups * kTile;
  l.sharedBytes = 2 * l.stageElements() + 4 * rows * l.sStride() +
                  2 * rows * l.pStride() + 4 * rows * l.alphaStride();
  if (l.sharedBytes > target.sharedMemoryBytes) {
    reason << "'" << RaggedPagedConfig::kBlockQ << "' (" << blockQ << ") and '"
           << RaggedPagedConfig::kPrefillBlockK << "' (" << blockK << ") need "
           << l.sharedBytes
           << " bytes of workgroup memory, more than the target's "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  return l;
}

std::optional<std::pair<int64_t, int64_t>>
mlir::ejk::vulkanPrefillHeuristic(const RaggedPagedProblem &p,
                                  const TargetInfo &target) {
  // Only a batch with a sequence of several queries has prefill rows; one
  // with no query heads has none either (and a group of 0 heads divided
  // the rows below by 0: SIGFPE).
  if (p.uniformQ == 1 || (!p.uniformQ && p.numTokens <= p.numSeqs) ||
      p.groupSize() < 1)
    return std::nullopt;
  if (vulkanPrefillExclusion(p, target))
    return std::nullopt;
  for (int64_t rows : {64, 128}) {
    int64_t blockQ = rows / p.groupSize();
    if (blockQ < 2)
      continue;
    for (int64_t blockK : {32, 16})
      if (getVulkanPrefillLayout(p, blockQ, blockK, target, llvm::nulls()))
        return std::make_pair(blockQ, blockK);
  }
  return std::nullopt;
}

int64_t mlir::ejk::vulkanPrefillBlocks(const RaggedPagedProblem &p,
                                       int64_t blockQ) {
  if (p.uniformQ)
    return p.numSeqs * ((p.uniformQ + blockQ - 1) / blockQ);
  // Sequences of q >= 2 queries hold at most ceil(q / block_q) <= q / block_q
  // + 1 blocks each, and there are at most min(seqs, tokens / 2) of them.
  return std::max<int64_t>(1,
                           (p.numTokens + blockQ - 1) / blockQ +
                               std::min<int64_t>(p.numSeqs, p.numTokens / 2));
}
