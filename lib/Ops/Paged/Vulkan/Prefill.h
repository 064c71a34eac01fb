//===- Prefill.h - ragged prefill rows on cooperative matrices --*- C++ -*-===//
//
// The rows of the sequences with several queries of a ragged, prefill or
// unified batch on a Vulkan device with cooperative matrices
// (docs/ops/paged-vulkan.md, "Prefill rows"): one workgroup takes block_q
// query tokens of one sequence and the G query heads of one KV head, i.e.
// block_q x G rows of 16x16 matrices (row r = token r / G, head r % G),
// one 16-row tile per subgroup. Its keys' K/V pages are gathered into
// workgroup memory once per block of prefill_block_k tokens, with 16-byte
// loads one block ahead; Q tiles stay in registers; the online softmax goes
// through a per-subgroup stage (any cooperative-matrix device).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_VULKAN_PREFILL_H
#define EJK_OPS_PAGED_VULKAN_PREFILL_H

#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Ops/Paged/RaggedProblem.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::ejk {

struct VulkanPrefillLayout {
  static constexpr int64_t kTile = 16;
  /// Query tokens of a block, G query heads each, and their rows.
  int64_t blockQ = 0, groupSize = 0, rows = 0;
  /// Keys per step.
  int64_t blockK = 0;
  /// One 16-row tile per subgroup.
  int64_t numSubgroups = 0, subgroupSize = 0, threads = 0;
  /// Lanes of a subgroup that share one row of the softmax.
  int64_t lanesPerRow = 0;
  int64_t headDim = 0;
  int64_t sharedBytes = 0;

  /// Row strides (f16 or f32 elements) of the stages, padded so that the
  /// rows of a 16x16 load start in different banks, 16-byte aligned.
  int64_t rowStride() const { return headDim + 8; }
  int64_t sStride() const { return blockK + 4; }
  int64_t pStride() const { return blockK + 8; }
  static int64_t alphaStride() { return kTile + 4; }
  /// f16 elements of the stage that first holds Q, then a step's K and V
  /// (K rows, then V rows at vOffset()).
  int64_t vOffset() const { return blockK * rowStride(); }
  int64_t stageElements() const {
    int64_t q = numSubgroups * kTile * rowStride();
    int64_t kv = 2 * blockK * rowStride();
    return q > kv ? q : kv;
  }
};

/// Why the cooperative kernel cannot run `p` on `target` whatever the
/// config (no cooperative matrices, dtypes, head_dim, subgroup size); null
/// when it can.
const char *vulkanPrefillExclusion(const RaggedPagedProblem &p,
                                   const TargetInfo &target);

/// The layout of block_q = `blockQ`, prefill_block_k = `blockK`, or nullopt
/// with the reason on `reason`.
std::optional<VulkanPrefillLayout>
getVulkanPrefillLayout(const RaggedPagedProblem &p, int64_t blockQ,
                       int64_t blockK, const TargetInfo &target,
                       llvm::raw_ostream &reason);

/// The heuristic's (block_q, prefill_block_k), or nullopt where the
/// cooperative kernel does not apply: blocks of 64 rows (128 for G > 32),
/// 32 keys a step (16 where 32 do not fit).
std::optional<std::pair<int64_t, int64_t>>
vulkanPrefillHeuristic(const RaggedPagedProblem &p, const TargetInfo &target);

/// Workgroups along x: enough for the query blocks of every sequence with
/// several queries (the rest find no block and end at once).
int64_t vulkanPrefillBlocks(const RaggedPagedProblem &p, int64_t blockQ);

/// Emits the kernel body (grid [vulkanPrefillBlocks, num_kv_heads, 1]).
void buildVulkanPrefillBody(OpBuilder &b, Location loc,
                            const RaggedPagedProblem &p,
                            const VulkanPrefillLayout &layout,
                            const RaggedPagedBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_VULKAN_PREFILL_H
