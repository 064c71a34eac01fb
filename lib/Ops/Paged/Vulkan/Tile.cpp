//===- Tile.cpp - paged attention dispatches on Vulkan --------------------===//
//
// One dispatch with one split; with num_splits > 1 the splits write
// partial outputs and log-sums to two temporaries and a combine dispatch
// merges them into the results.
//
//===----------------------------------------------------------------------===//

#include "Paged/Vulkan/Decode.h"
#include "Paged/Vulkan/Kernel.h"
#include "Paged/Vulkan/PagedAttention.h"

#include "ejk/Ops/Paged/Config.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

struct Temporaries {
  Value partialO, partialLse;
};

/// Adds the combine dispatch and the temporaries it reads; every caller
/// runs the attention, then the combine.
FailureOr<Temporaries> addCombineDispatch(DispatchRewriter &rewriter,
                                          const VulkanPagedPlan &plan,
                                          const PagedAttentionBuffers &buf) {
  Type f32 = Float32Type::get(rewriter.dispatch().getContext());
  int64_t splits = plan.layout.numSplits;
  auto partialOType =
      MemRefType::get({plan.batch, plan.numHeads, splits, plan.headDim}, f32);
  auto lseType = MemRefType::get({plan.batch, plan.numHeads, splits}, f32);
  SmallVector<Type> argTypes = {partialOType, lseType, buf.output.getType()};
  if (buf.lse)
    argTypes.push_back(buf.lse.getType());
  if (buf.sinks)
    argTypes.push_back(buf.sinks.getType());
  func::FuncOp combine = rewriter.addDispatch(
      "combine", argTypes, plan.combineGrid(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildVulkanPagedCombineBody(b, loc, plan, args[0], args[1], args[2],
                                    buf.lse ? args[3] : Value(),
                                    buf.sinks ? args.back() : Value());
      });
  DispatchRewriter::setVulkanLaunch(combine, plan.layout.combineThreads, 0);
  DispatchRewriter::setWork(
      combine, 0,
      (partialOType.getNumElements() + lseType.getNumElements()) * 4 +
          DispatchRewriter::bytesOf({buf.output, buf.lse}));

  FailureOr<SmallVector<Value>> parts =
      rewriter.appendArguments({partialOType, lseType});
  if (failed(parts))
    return failure();
  unsigned outputIndex = DispatchRewriter::argumentIndex(buf.output);
  std::optional<unsigned> lseIndex, sinksIndex;
  if (buf.lse)
    lseIndex = DispatchRewriter::argumentIndex(buf.lse);
  if (buf.sinks)
    sinksIndex = DispatchRewriter::argumentIndex(buf.sinks);
  rewriter.rewriteCallers(
      {partialOType, lseType},
      [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange temps) {
        SmallVector<Value> bindings(call.getBuffers());
        bindings.append(temps.begin(), temps.end());
        DispatchOp::create(b, loc, call.getCallee(), bindings);
        SmallVector<Value> combineBindings = {temps[0], temps[1],
                                              call.getBuffers()[outputIndex]};
        if (lseIndex)
          combineBindings.push_back(call.getBuffers()[*lseIndex]);
        if (sinksIndex)
          combineBindings.push_back(call.getBuffers()[*sinksIndex]);
        DispatchOp::create(b, loc, combine.getSymName(), combineBindings);
      });
  return Temporaries{(*parts)[0], (*parts)[1]};
}

} // namespace

LogicalResult mlir::ejk::tileVulkanPagedAttention(
    Operation *op, const PagedAttentionProblem &problem,
    const PagedAttentionConfig &config, const PagedAttentionBuffers &buf,
    DispatchRewriter &rewriter) {
  VulkanPagedPlan plan;
  static_cast<PagedAttentionProblem &>(plan) = problem;
  std::optional<VulkanPagedLayout> layout =
      getVulkanPagedLayout(plan, config, rewriter.target(), llvm::nulls());
  if (!layout)
    return op->emitOpError("has no Vulkan layout for its config");
  plan.layout = *layout;

  Temporaries temps;
  if (layout->numSplits > 1) {
    FailureOr<Temporaries> added = addCombineDispatch(rewriter, plan, buf);
    if (failed(added))
      return failure();
    temps = *added;
  }
  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildVulkanPagedAttentionBody(b, loc, plan, buf, temps.partialO,
                                temps.partialLse);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  // K and V as read: every visible token of every sequence, once per KV
  // head (the bound the kernel is built for).
  int64_t cacheBytes = plan.cacheType.getIntOrFloatBitWidth() / 8 * plan.batch *
                       plan.numKvHeads * visibleTokens(plan) * plan.headDim * 2;
  int64_t partialBytes = temps.partialO
                             ? (DispatchRewriter::bytesOf(temps.partialO) +
                                DispatchRewriter::bytesOf(temps.partialLse))
                             : DispatchRewriter::bytesOf({buf.output, buf.lse});
  DispatchRewriter::setWork(
      dispatch, pagedAttentionFlops(plan),
      cacheBytes + partialBytes +
          DispatchRewriter::bytesOf(
              {buf.query, buf.contextLens, buf.blockTables}));
  return success();
}

LogicalResult VulkanPagedAttention::tile(PagedAttentionOp op, ConfigAttr attr,
                                         DispatchRewriter &rewriter) {
  PagedAttentionBuffers buf = findPagedAttentionBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<PagedAttentionConfig> config =
      PagedAttentionConfig::read(attr, llvm::nulls());
  if (!config)
    return op.emitOpError("has no Vulkan layout for its config");
  return tileVulkanPagedAttention(op, readPagedAttentionProblem(op), *config,
                                  buf, rewriter);
}
