//===- GradTile.cpp - flash attention backward dispatches on Vulkan -------===//
//
// Replaces the op by the dK/dV pass (GradKernel.cpp) and adds, around it,
// the dispatches every caller then runs in order: delta (D = rowsum(dO *
// O)) into an f32 temporary the callers allocate, dK/dV, and dQ. No pack:
// the kernels read K and V where they are.
//
//===----------------------------------------------------------------------===//

#include "Attention/LiveBlocks.h"
#include "Attention/Vulkan/FlashAttentionGrad.h"
#include "Attention/Vulkan/GradKernel.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
using Field = Value AttentionGradBuffers::*;

/// The op's buffers the dQ pass reads, those present of these, in order.
constexpr Field kQueryPassFields[] = {
    &AttentionGradBuffers::query,        &AttentionGradBuffers::key,
    &AttentionGradBuffers::value,        &AttentionGradBuffers::dOutput,
    &AttentionGradBuffers::lse,          &AttentionGradBuffers::bias,
    &AttentionGradBuffers::mask,         &AttentionGradBuffers::qSegmentIds,
    &AttentionGradBuffers::kvSegmentIds, &AttentionGradBuffers::paddingMask,
    &AttentionGradBuffers::cumSeqlensQ,  &AttentionGradBuffers::cumSeqlensK};
} // namespace

LogicalResult VulkanFlashAttentionGrad::tile(FlashAttentionGradOp op,
                                             ConfigAttr attr,
                                             DispatchRewriter &rewriter) {
  std::optional<VulkanAttentionGradPlan> planOr =
      getVulkanAttentionGradPlan(op, attr, rewriter.target(), llvm::nulls());
  if (!planOr)
    return op.emitOpError("has no Vulkan layout for its config");
  VulkanAttentionGradBuffers buf;
  static_cast<AttentionGradBuffers &>(buf) =
      findAttentionGradBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  return tileVulkanAttentionGrad(rewriter, *planOr, buf, op.getLoc());
}

LogicalResult mlir::ejk::tileVulkanAttentionGrad(
    DispatchRewriter &rewriter, const VulkanAttentionGradPlan &p,
    VulkanAttentionGradBuffers &buf, Location loc) {
  MLIRContext *context = rewriter.dispatch().getContext();
  auto deltaType =
      MemRefType::get({p.batch, p.numHeads, p.seqQ}, Float32Type::get(context));
  int64_t deltaBytes = deltaType.getNumElements() * 4;

  func::FuncOp delta = rewriter.addDispatch(
      "delta", {buf.output.getType(), buf.dOutput.getType(), deltaType},
      p.deltaGrid(), [&](OpBuilder &b, Location loc, ValueRange args) {
        buildVulkanGradDeltaBody(b, loc, p, args[0], args[1], args[2]);
      });
  DispatchRewriter::setVulkanLaunch(delta, p.delta.threads, 0);
  DispatchRewriter::setWork(
      delta, 0,
      DispatchRewriter::bytesOf({buf.output, buf.dOutput}) + deltaBytes);

  // Block-sparse: the lists of each pass, at its own blocks (LiveBlocks.h).
  LiveBlocksDispatch keyValueList, queryList;
  if (p.sparse) {
    keyValueList = addLiveBlocksListDispatch(
        rewriter, p,
        {p.keyValue.blockQ, p.keyValue.blockK, p.maskBlockQ, p.maskBlockK},
        /*vulkan=*/true, buf.blockMask, /*transposed=*/true,
        "live_query_blocks");
    queryList = addLiveBlocksListDispatch(
        rewriter, p,
        {p.query.blockQ, p.query.blockK, p.maskBlockQ, p.maskBlockK},
        /*vulkan=*/true, buf.blockMask, /*transposed=*/false, "live_blocks");
  }

  SmallVector<Value> queryReads;
  for (Field field : kQueryPassFields)
    if (buf.*field)
      queryReads.push_back(buf.*field);
  SmallVector<Type> queryTypes;
  for (Value v : queryReads)
    queryTypes.push_back(v.getType());
  queryTypes.append({deltaType, buf.dQuery.getType()});
  if (p.sparse)
    queryTypes.push_back(queryList.type);
  func::FuncOp query =
      rewriter.addDispatch("dq", queryTypes, p.queryGrid(),
                           [&](OpBuilder &b, Location loc, ValueRange args) {
                             VulkanAttentionGradBuffers own;
                             unsigned next = 0;
                             for (Field field : kQueryPassFields)
                               if (buf.*field)
                                 own.*field = args[next++];
                             own.delta = args[next++];
                             own.dQuery = args[next++];
                             if (p.sparse)
                               own.liveBlocks = args[next++];
                             if (p.cooperative)
                               buildVulkanCoopGradQueryBody(b, loc, p, own);
                             else
                               buildVulkanGradQueryBody(b, loc, p, own);
                           });
  DispatchRewriter::setVulkanLaunch(query, p.query.threads,
                                    p.query.sharedBytes);
  DispatchRewriter::setWork(query, attentionFlops(p) / 2,
                            DispatchRewriter::bytesOf(queryReads) + deltaBytes +
                                DispatchRewriter::bytesOf(buf.dQuery));

  SmallVector<MemRefType> appendedTypes = {deltaType};
  // Temporaries: D, then (block-sparse) the lists of both passes.
  SmallVector<MemRefType> temporaries = {deltaType};
  if (p.sparse) {
    appendedTypes.push_back(keyValueList.type);
    temporaries.append({keyValueList.type, queryList.type});
  }
  FailureOr<SmallVector<Value>> appended =
      rewriter.appendArguments(appendedTypes);
  if (failed(appended))
    return failure();
  buf.delta = (*appended)[0];
  if (p.sparse)
    buf.liveQueryBlocks = (*appended)[1];
  auto index = [](Value buffer) {
    return DispatchRewriter::argumentIndex(buffer);
  };
  rewriter.rewriteCallers(temporaries, [&](OpBuilder &b, Location loc,
                                           DispatchOp call, ValueRange temps) {
    auto bound = [&](Value buffer) { return call.getBuffers()[index(buffer)]; };
    if (p.sparse) {
      auto runList = [&](LiveBlocksDispatch list, Value temp) {
        SmallVector<Value> listBindings;
        if (buf.blockMask)
          listBindings.push_back(bound(buf.blockMask));
        listBindings.push_back(temp);
        DispatchOp::create(b, loc, list.fn.getSymName(), listBindings);
      };
      runList(keyValueList, temps[1]);
      runList(queryList, temps[2]);
    }
    DispatchOp::create(
        b, loc, delta.getSymName(),
        ValueRange{bound(buf.output), bound(buf.dOutput), temps[0]});
    SmallVector<Value> bindings(call.getBuffers());
    bindings.push_back(temps[0]);
    if (p.sparse)
      bindings.push_back(temps[1]);
    DispatchOp::create(b, loc, call.getCallee(), bindings);
    SmallVector<Value> queryBindings;
    for (Value v : queryReads)
      queryBindings.push_back(bound(v));
    queryBindings.append({temps[0], bound(buf.dQuery)});
    if (p.sparse)
      queryBindings.push_back(temps[2]);
    DispatchOp::create(b, loc, query.getSymName(), queryBindings);
  });

  OpBuilder b = rewriter.replaceBody();
  if (p.cooperative)
    buildVulkanCoopGradKeyValueBody(b, loc, p, buf);
  else
    buildVulkanGradKeyValueBody(b, loc, p, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  // The cooperative bodies rely on NVIDIA's matrix layout: the runtime
  // refuses a device without it before the kernels could run.
  if (p.cooperative)
    for (func::FuncOp fn : {dispatch, query})
      fn->setAttr("ejk.requires",
                  b.getStrArrayAttr({"cooperative_matrix_nv_layout"}));
  DispatchRewriter::setGrid(dispatch, p.keyValueGrid());
  DispatchRewriter::setVulkanLaunch(dispatch, p.keyValue.threads,
                                    p.keyValue.sharedBytes);
  // FLOPs: 2.5 forwards, less the dQ pass's.
  DispatchRewriter::setWork(
      dispatch, attentionGradFlops(p) - attentionFlops(p) / 2,
      DispatchRewriter::bytesOf({buf.query, buf.key, buf.value, buf.dOutput,
                                 buf.lse, buf.bias, buf.mask, buf.qSegmentIds,
                                 buf.kvSegmentIds, buf.dKey, buf.dValue}) +
          deltaBytes);
  return success();
}
