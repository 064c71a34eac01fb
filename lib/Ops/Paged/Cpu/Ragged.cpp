//===- Ragged.cpp - ragged paged attention on the CPU ---------------------===//
//
// One workgroup per (KV head, packed query row): the decode kernel
// (Kernel.cpp) over the tokens the row sees. `block_q` is 1: a workgroup
// that took a block of a sequence's rows and shared each K/V read among
// them is the next step for long prefills (docs/ops/paged.md). `block_k`
// follows paged_attention's rule; there is no split.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Paged/CacheWrite.h"
#include "Paged/Cpu/Decode.h"
#include "Paged/RaggedKernels.h"
#include "Paged/RaggedRows.h"

#include "ejk/Ops/Paged/Config.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult CpuRaggedPaged::verifyConfig(const RaggedPagedProblem &p,
                                           ConfigAttr attr,
                                           const TargetInfo &target,
                                           raw_ostream &reason) {
  std::optional<RaggedPagedConfig> config =
      RaggedPagedConfig::read(attr, reason);
  if (!config)
    return failure();
  // The cache write runs in the attention's dispatch, which binds the
  // queries: with no query rows or heads it was dispatched over zero-sized
  // buffers, which neither lowering accepts.
  if (p.writesCache && (p.numHeads == 0 || p.numTokens == 0)) {
    reason << "writing 'new_kv' with no query "
           << (p.numHeads == 0 ? "heads" : "tokens")
           << " has no kernel: the cache write runs with the attention";
    return failure();
  }
  int64_t lanes = target.f32Lanes();
  if (config->blockQ != 1) {
    reason << "'" << RaggedPagedConfig::kBlockQ << "' (" << config->blockQ
           << ") must be 1: the kernel takes one query row a workgroup";
    return failure();
  }
  if (config->blockK % lanes != 0 || config->blockK > 512) {
    reason << "'" << RaggedPagedConfig::kBlockK << "' (" << config->blockK
           << ") must be a multiple of the " << lanes << " f32 lanes of a "
           << target.vectorBits << "-bit vector, at most 512";
    return failure();
  }
  if (config->numSubgroups || config->prefillBlockK) {
    reason << "'"
           << (config->numSubgroups ? RaggedPagedConfig::kNumSubgroups
                                    : RaggedPagedConfig::kPrefillBlockK)
           << "' is a Vulkan entry; the CPU kernel takes none";
    return failure();
  }
  return checkCpuPagedWorkingSet(raggedAsDecode(p), config->blockK, target,
                                 reason);
}

ConfigAttr CpuRaggedPaged::heuristicConfig(const RaggedPagedProblem &p,
                                           MLIRContext *context,
                                           const TargetInfo &target) {
  int64_t lanes = target.f32Lanes();
  int64_t tokens = std::max<int64_t>(1, p.maxContext());
  if (p.window)
    tokens = std::max<int64_t>(1, std::min(tokens, *p.window));
  int64_t blockK =
      std::min<int64_t>(64, roundUp(std::min<int64_t>(tokens, 64), lanes));
  return RaggedPagedConfig{1, blockK, std::nullopt}.toAttr(context);
}

SmallVector<ConfigAttr> CpuRaggedPaged::configSpace(const RaggedPagedProblem &p,
                                                    MLIRContext *context,
                                                    const TargetInfo &target,
                                                    bool full) {
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> blocks = full ? SmallVector<int64_t>{32, 64, 128, 256}
                                     : SmallVector<int64_t>{64, 128};
  SmallVector<ConfigAttr> configs;
  for (int64_t k : blocks)
    configs.push_back(
        RaggedPagedConfig{1, roundUp(k, lanes), std::nullopt}.toAttr(context));
  return configs;
}

LogicalResult CpuRaggedPaged::tile(Operation *op, const RaggedPagedProblem &p,
                                   ConfigAttr attr, RaggedPagedBuffers buf,
                                   DispatchRewriter &rewriter) {
  RaggedPagedConfig config = *RaggedPagedConfig::read(attr, llvm::nulls());
  if (p.writesCache) {
    if (failed(addRaggedCacheWrite(rewriter, p, buf, /*threads=*/0)))
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
  return tileCpuPagedAttention(op, raggedAsDecode(p), config.blockK,
                               /*numSplits=*/1, decode, rewriter);
}
