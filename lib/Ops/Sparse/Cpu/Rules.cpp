//===- Rules.cpp - native sparse attention configs and tiling on the CPU --===//
//
// `block_t` tokens per workgroup of the select and attend dispatches. The
// heuristic takes 16 (the group's K/V rows of neighbouring tokens overlap
// in cache) and halves it while there are fewer than four workgroups per
// core.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/CpuWorkingSet.h"
#include "Sparse/Cpu/NativeSparse.h"
#include "Sparse/Kernels.h"

#include "ejk/Ops/Sparse/Config.h"

using namespace mlir;
using namespace mlir::ejk;

/// Largest `block_t` the CPU accepts.
static constexpr int64_t kMaxBlockT = 1024;

LogicalResult CpuNativeSparseAttention::verifyConfig(NativeSparseAttentionOp op,
                                                     ConfigAttr attr,
                                                     const TargetInfo &target,
                                                     raw_ostream &reason) {
  std::optional<NativeSparseConfig> config =
      NativeSparseConfig::read(attr, reason);
  if (!config)
    return failure();
  for (auto [key, set] :
       {std::pair(NativeSparseConfig::kCooperative, config->cooperative),
        std::pair(NativeSparseConfig::kSubgroupSelect, config->subgroupSelect)})
    if (set) {
      reason << "'" << key << "' applies to Vulkan targets only";
      return failure();
    }
  if (config->blockT > kMaxBlockT) {
    reason << "'" << NativeSparseConfig::kBlockT << "' (" << config->blockT
           << ") must be at most " << kMaxBlockT;
    return failure();
  }
  // The kernels unroll a token's rows over head_dim (its query, the
  // branches' accumulators) next to a block of scores: in f32 they must fit
  // L2, as every CPU kernel's working set does (a head_dim of 2^40 ran the
  // compiler out of memory).
  NativeSparseProblem p = readNativeSparseProblem(op);
  std::optional<int64_t> rows = checkedProduct({4, p.headDim});
  std::optional<int64_t> elements =
      rows ? checkedSum({*rows, p.blockSize}) : std::nullopt;
  std::optional<int64_t> bytes =
      elements ? checkedProduct({4, *elements}) : std::nullopt;
  return checkL2WorkingSet(bytes, target, reason,
                           "working set of a token's rows");
}

SmallVector<ConfigAttr>
CpuNativeSparseAttention::configSpace(NativeSparseAttentionOp op,
                                      const TargetInfo &target, bool full) {
  SmallVector<ConfigAttr> space;
  // Owned lists: an ArrayRef of a braced list would dangle past this line.
  SmallVector<int64_t> sizes = full ? SmallVector<int64_t>{1, 4, 8, 16, 32, 64}
                                    : SmallVector<int64_t>{8, 16, 32};
  for (int64_t t : sizes)
    space.push_back(NativeSparseConfig{t}.toAttr(op.getContext()));
  return space;
}

ConfigAttr CpuNativeSparseAttention::heuristicConfig(NativeSparseAttentionOp op,
                                                     const TargetInfo &target) {
  NativeSparseProblem p = readNativeSparseProblem(op);
  int64_t cores = std::max<unsigned>(1, target.numCores);
  int64_t blockT = 16;
  auto workgroups = [&](int64_t t) {
    return (p.seq + t - 1) / t * p.numKvHeads * p.batch;
  };
  while (blockT > 1 && workgroups(blockT) < 4 * cores)
    blockT /= 2;
  return NativeSparseConfig{blockT}.toAttr(op.getContext());
}

LogicalResult CpuNativeSparseAttention::tile(NativeSparseAttentionOp op,
                                             ConfigAttr attr,
                                             DispatchRewriter &rewriter) {
  NativeSparsePlan plan;
  static_cast<NativeSparseProblem &>(plan) = readNativeSparseProblem(op);
  plan.vulkan = false;
  plan.lanes = rewriter.target().f32Lanes();
  plan.blockT = NativeSparseConfig::read(attr, llvm::nulls())->blockT;
  return tileNativeSparseAttention(op, plan, rewriter);
}
