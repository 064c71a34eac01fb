//===- Ragged.cpp - ragged paged attention on Vulkan ----------------------===//
//
// One workgroup per (KV head x head chunk, packed query row): the decode
// kernel (Kernel.cpp) over the tokens the row sees, the query heads of a KV
// head sharing each K/V read. `block_q` is 1 (the cooperative-matrix path
// for the prefill rows is the next step, docs/ops/paged-vulkan.md);
// `block_k` and `num_subgroups` are paged_attention's; there is no split.
//
//===----------------------------------------------------------------------===//

#include "Paged/CacheWrite.h"
#include "Paged/RaggedKernels.h"
#include "Paged/RaggedRows.h"
#include "Paged/Vulkan/Decode.h"
#include "Paged/Vulkan/Layout.h"

#include "ejk/Ops/Paged/Config.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::ejk;

/// Threads of the cache-write dispatches: lanes over a row's head dim.
static constexpr int64_t kWriteThreads = 64;

static PagedAttentionConfig asDecodeConfig(const RaggedPagedConfig &c) {
  PagedAttentionConfig d;
  d.blockK = c.blockK;
  d.numSplits = 1;
  d.numSubgroups = c.numSubgroups;
  return d;
}

LogicalResult VulkanRaggedPaged::verifyConfig(const RaggedPagedProblem &p,
                                              ConfigAttr attr,
                                              const TargetInfo &target,
                                              raw_ostream &reason) {
  std::optional<RaggedPagedConfig> config =
      RaggedPagedConfig::read(attr, reason);
  if (!config)
    return failure();
  if (config->blockQ != 1) {
    reason << "'" << RaggedPagedConfig::kBlockQ << "' (" << config->blockQ
           << ") must be 1: the kernel takes one query row a workgroup";
    return failure();
  }
  if (!getVulkanPagedLayout(raggedAsDecode(p), asDecodeConfig(*config), target,
                            reason))
    return failure();
  return success();
}

ConfigAttr VulkanRaggedPaged::heuristicConfig(const RaggedPagedProblem &p,
                                              MLIRContext *context,
                                              const TargetInfo &target) {
  PagedAttentionConfig d = vulkanPagedHeuristic(raggedAsDecode(p), target);
  return RaggedPagedConfig{1, d.blockK, d.numSubgroups}.toAttr(context);
}

SmallVector<ConfigAttr>
VulkanRaggedPaged::configSpace(const RaggedPagedProblem &p,
                               MLIRContext *context, const TargetInfo &target,
                               bool full) {
  SmallVector<ConfigAttr> configs;
  for (const PagedAttentionConfig &d :
       vulkanPagedConfigSpace(raggedAsDecode(p), target, full)) {
    ConfigAttr attr =
        RaggedPagedConfig{1, d.blockK, d.numSubgroups}.toAttr(context);
    if (!llvm::is_contained(configs, attr))
      configs.push_back(attr);
  }
  return configs;
}

LogicalResult VulkanRaggedPaged::tile(Operation *op,
                                      const RaggedPagedProblem &p,
                                      ConfigAttr attr, RaggedPagedBuffers buf,
                                      DispatchRewriter &rewriter) {
  std::optional<RaggedPagedConfig> config =
      RaggedPagedConfig::read(attr, llvm::nulls());
  if (!config)
    return op->emitOpError("has no Vulkan layout for its config");
  if (p.writesCache) {
    if (failed(addRaggedCacheWrite(rewriter, p, buf, kWriteThreads)))
      return failure();
    buf.keyCache = buf.updatedKeys;
    buf.valueCache = buf.updatedValues;
  }
  RaggedRowSource rows(p, buf);
  PagedAttentionBuffers decode;
  decode.query = buf.queries;
  decode.keyCache = buf.keyCache;
  decode.valueCache = buf.valueCache;
  decode.blockTables = buf.pageIndices;
  decode.output = buf.output;
  decode.ragged = &rows;
  return tileVulkanPagedAttention(op, raggedAsDecode(p),
                                  asDecodeConfig(*config), decode, rewriter);
}
