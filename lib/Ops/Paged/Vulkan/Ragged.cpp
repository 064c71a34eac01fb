//===- Ragged.cpp - ragged paged attention on Vulkan ----------------------===//
//
// With `block_q` = 1, one workgroup per (KV head x head chunk, packed query
// row): the decode kernel (Kernel.cpp) over the tokens the row sees, the
// query heads of a KV head sharing each K/V read; `block_k` and
// `num_subgroups` are paged_attention's; there is no split. With `block_q`
// above 1 (f16, a device with cooperative matrices) the rows of sequences
// with several queries run on the cooperative-matrix kernel (Prefill.h) in
// a second dispatch, and the decode dispatch skips them; a prefill of one
// query per sequence is decodes only, one of several has no decode
// dispatch (docs/ops/paged-vulkan.md, "Prefill rows").
//
//===----------------------------------------------------------------------===//

#include "Paged/CacheWrite.h"
#include "Paged/RaggedKernels.h"
#include "Paged/RaggedRows.h"
#include "Paged/Vulkan/Decode.h"
#include "Paged/Vulkan/Layout.h"
#include "Paged/Vulkan/Prefill.h"

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
  // The cache write runs in the attention's dispatch, which binds the
  // queries: with no query rows or heads it was dispatched over zero-sized
  // buffers, which neither lowering accepts.
  if (p.writesCache && (p.numHeads == 0 || p.numTokens == 0)) {
    reason << "writing 'new_kv' with no query "
           << (p.numHeads == 0 ? "heads" : "tokens")
           << " has no kernel: the cache write runs with the attention";
    return failure();
  }
  if (config->blockQ > 1 &&
      !getVulkanPrefillLayout(p, config->blockQ, config->coopBlockK(), target,
                              reason))
    return failure();
  if (config->blockQ == 1 && config->prefillBlockK) {
    reason << "'" << RaggedPagedConfig::kPrefillBlockK
           << "' is the cooperative-matrix kernel's, which 'block_q' = 1 "
              "does not run";
    return failure();
  }
  if (!getVulkanPagedLayout(raggedAsDecode(p), asDecodeConfig(*config), target,
                            reason))
    return failure();
  return success();
}

/// The decode config `d` with the cooperative kernel's entries where it
/// applies.
static RaggedPagedConfig withPrefill(const RaggedPagedProblem &p,
                                     const TargetInfo &target,
                                     const PagedAttentionConfig &d) {
  RaggedPagedConfig c{1, d.blockK, d.numSubgroups, std::nullopt};
  if (std::optional<std::pair<int64_t, int64_t>> coop =
          vulkanPrefillHeuristic(p, target)) {
    c.blockQ = coop->first;
    c.prefillBlockK = coop->second;
  }
  return c;
}

ConfigAttr VulkanRaggedPaged::heuristicConfig(const RaggedPagedProblem &p,
                                              MLIRContext *context,
                                              const TargetInfo &target) {
  return withPrefill(p, target, vulkanPagedHeuristic(raggedAsDecode(p), target))
      .toAttr(context);
}

SmallVector<ConfigAttr>
VulkanRaggedPaged::configSpace(const RaggedPagedProblem &p,
                               MLIRContext *context, const TargetInfo &target,
                               bool full) {
  SmallVector<ConfigAttr> configs;
  auto add = [&](const RaggedPagedConfig &c) {
    ConfigAttr attr = c.toAttr(context);
    if (!llvm::is_contained(configs, attr))
      configs.push_back(attr);
  };
  PagedAttentionConfig heuristic =
      vulkanPagedHeuristic(raggedAsDecode(p), target);
  RaggedPagedConfig best = withPrefill(p, target, heuristic);
  add(best);
  // The cooperative kernel's steps and blocks around the heuristic's, with
  // the heuristic's decode entries.
  if (best.blockQ > 1) {
    for (int64_t rows : {64, 128})
      for (int64_t blockK : {16, 32, 64}) {
        RaggedPagedConfig c = best;
        c.blockQ = rows / p.groupSize();
        c.prefillBlockK = blockK;
        if (c.blockQ > 1 &&
            getVulkanPrefillLayout(p, c.blockQ, blockK, target, llvm::nulls()))
          add(c);
      }
  }
  for (const PagedAttentionConfig &d :
       vulkanPagedConfigSpace(raggedAsDecode(p), target, full)) {
    RaggedPagedConfig c = best;
    c.blockK = d.blockK;
    c.numSubgroups = d.numSubgroups;
    add(c);
  }
  return configs;
}

namespace {

/// The buffers the cooperative kernel reads and writes, in its dispatch's
/// argument order (those that are set).
constexpr Value RaggedPagedBuffers::*kPrefillBuffers[] = {
    &RaggedPagedBuffers::queries,     &RaggedPagedBuffers::keyCache,
    &RaggedPagedBuffers::valueCache,  &RaggedPagedBuffers::kvLens,
    &RaggedPagedBuffers::pageIndices, &RaggedPagedBuffers::cuQLens,
    &RaggedPagedBuffers::numSeqs,     &RaggedPagedBuffers::sinks,
    &RaggedPagedBuffers::alibi,       &RaggedPagedBuffers::qqBias,
    &RaggedPagedBuffers::output};

void setPrefillWork(func::FuncOp fn, const RaggedPagedProblem &p,
                    const VulkanPrefillLayout &l,
                    const RaggedPagedBuffers &buf) {
  DispatchRewriter::setVulkanLaunch(fn, l.threads, l.sharedBytes);
  // bf16 inputs reach the cooperative matrices as staged bits.
  if (p.queryType.isBF16())
    DispatchRewriter::setBF16Matrices(fn);
  DispatchRewriter::setWork(
      fn, raggedPagedFlops(p),
      DispatchRewriter::bytesOf({buf.queries, buf.keyCache, buf.valueCache,
                                 buf.kvLens, buf.pageIndices, buf.cuQLens,
                                 buf.output}));
}

/// Adds the cooperative kernel as a dispatch that runs after the decode one.
void addPrefillDispatch(DispatchRewriter &rewriter, const RaggedPagedProblem &p,
                        const VulkanPrefillLayout &l,
                        const RaggedPagedBuffers &buf) {
  SmallVector<Type> types;
  SmallVector<unsigned> at;
  for (Value RaggedPagedBuffers::*member : kPrefillBuffers)
    if (Value v = buf.*member) {
      types.push_back(v.getType());
      at.push_back(DispatchRewriter::argumentIndex(v));
    }
  func::FuncOp prefill = rewriter.addDispatch(
      "prefill", types, {vulkanPrefillBlocks(p, l.blockQ), p.numKvHeads, 1},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        RaggedPagedBuffers mine;
        unsigned i = 0;
        for (Value RaggedPagedBuffers::*member : kPrefillBuffers)
          if (buf.*member)
            mine.*member = args[i++];
        buildVulkanPrefillBody(b, loc, p, l, mine);
      });
  setPrefillWork(prefill, p, l, buf);
  rewriter.rewriteCallers(
      {}, [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange) {
        DispatchOp::create(b, loc, call.getCallee(), call.getBuffers());
        SmallVector<Value> bindings;
        for (unsigned i : at)
          bindings.push_back(call.getBuffers()[i]);
        DispatchOp::create(b, loc, prefill.getSymName(), bindings);
      });
}

} // namespace

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
  // A prefill of one query per sequence has no prefill rows.
  bool coop = config->blockQ > 1 && p.uniformQ != 1;
  std::optional<VulkanPrefillLayout> layout;
  if (coop) {
    layout = getVulkanPrefillLayout(p, config->blockQ, config->coopBlockK(),
                                    rewriter.target(), llvm::nulls());
    if (!layout)
      return op->emitOpError("has no Vulkan layout for its config");
  }
  // A prefill of several queries per sequence is prefill rows only.
  if (coop && p.uniformQ) {
    // replaceBody erases the op: its location is read first.
    Location loc = op->getLoc();
    OpBuilder b = rewriter.replaceBody();
    buildVulkanPrefillBody(b, loc, p, *layout, buf);
    rewriter.finish(b);
    DispatchRewriter::setGrid(
        rewriter.dispatch(),
        {vulkanPrefillBlocks(p, layout->blockQ), p.numKvHeads, 1});
    setPrefillWork(rewriter.dispatch(), p, *layout, buf);
    return success();
  }
  if (coop)
    addPrefillDispatch(rewriter, p, *layout, buf);
  RaggedRowSource rows(p, buf, /*skipsMultiQueryRows=*/coop);
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
