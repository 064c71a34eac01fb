//===- Rules.cpp - native sparse attention configs and tiling on Vulkan ---===//
//
// `block_t` is the workgroup's thread count, one token each. With the
// compression branch the select dispatch keeps two rows of `blocks` f32 per
// thread in workgroup memory, which bounds it. The heuristic takes the
// largest of 64, 32, ... 1 that fits.
//
//===----------------------------------------------------------------------===//

#include "Sparse/Kernels.h"
#include "Sparse/Vulkan/NativeSparse.h"

#include "ejk/Ops/Sparse/Config.h"

using namespace mlir;
using namespace mlir::ejk;

static NativeSparsePlan makePlan(NativeSparseAttentionOp op, int64_t blockT) {
  NativeSparsePlan plan;
  static_cast<NativeSparseProblem &>(plan) = readNativeSparseProblem(op);
  plan.vulkan = true;
  plan.lanes = 1;
  plan.blockT = blockT;
  return plan;
}

LogicalResult VulkanNativeSparseAttention::verifyConfig(
    NativeSparseAttentionOp op, ConfigAttr attr, const TargetInfo &target,
    raw_ostream &reason) {
  std::optional<NativeSparseConfig> config =
      NativeSparseConfig::read(attr, reason);
  if (!config)
    return failure();
  int64_t maxThreads = std::min<int64_t>(target.maxWorkgroupInvocations,
                                         target.maxWorkgroupSize[0]);
  if (config->blockT > maxThreads) {
    reason << "'" << NativeSparseConfig::kBlockT << "' (" << config->blockT
           << ") is the workgroup's thread count: at most " << maxThreads;
    return failure();
  }
  NativeSparsePlan plan = makePlan(op, config->blockT);
  // SPIR-V indexes with 32-bit integers (the positions the kernels form
  // from these stay below 2^31 too).
  constexpr int64_t kMaxIndex = (int64_t(1) << 30);
  if (plan.blockSize > kMaxIndex || plan.windowSize > kMaxIndex) {
    reason << "'block_size' (" << plan.blockSize << ") and 'window_size' ("
           << plan.windowSize << ") must be at most " << kMaxIndex
           << " on Vulkan (32-bit indices)";
    return failure();
  }
  if (plan.compress && plan.selectSharedBytes() > target.sharedMemoryBytes) {
    reason << "'" << NativeSparseConfig::kBlockT << "' (" << config->blockT
           << ") needs " << plan.selectSharedBytes()
           << " bytes of workgroup memory for the selection (two rows of "
           << plan.numBlocks() << " blocks per token), more than the "
           << target.sharedMemoryBytes << " of the device";
    return failure();
  }
  return success();
}

SmallVector<ConfigAttr>
VulkanNativeSparseAttention::configSpace(NativeSparseAttentionOp op,
                                         const TargetInfo &target, bool full) {
  SmallVector<ConfigAttr> space;
  for (int64_t t : {1, 8, 16, 32, 64, 128}) {
    ConfigAttr attr = NativeSparseConfig{t}.toAttr(op.getContext());
    if ((full || t >= 16) &&
        succeeded(verifyConfig(op, attr, target, llvm::nulls())))
      space.push_back(attr);
  }
  if (space.empty())
    space.push_back(heuristicConfig(op, target));
  return space;
}

ConfigAttr
VulkanNativeSparseAttention::heuristicConfig(NativeSparseAttentionOp op,
                                             const TargetInfo &target) {
  for (int64_t t = 64; t > 1; t /= 2) {
    ConfigAttr attr = NativeSparseConfig{t}.toAttr(op.getContext());
    if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
      return attr;
  }
  // Even one thread may not fit: verification then reports it.
  return NativeSparseConfig{1}.toAttr(op.getContext());
}

LogicalResult VulkanNativeSparseAttention::tile(NativeSparseAttentionOp op,
                                                ConfigAttr attr,
                                                DispatchRewriter &rewriter) {
  NativeSparsePlan plan =
      makePlan(op, NativeSparseConfig::read(attr, llvm::nulls())->blockT);
  return tileNativeSparseAttention(op, plan, rewriter);
}
