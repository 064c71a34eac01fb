//===- GradTile.cpp - flash attention backward dispatches on the CPU ------===//
//
// Replaces the op by the dK/dV pass (GradKernel.cpp) and adds, around it,
// the dispatches every caller then runs in order: delta (D = rowsum(dO *
// O)), pack (K^T, V^T and K rows, f32), dK/dV, and dQ (with fuse_dq: the
// store of the f32 dQ the dK/dV pass accumulated). The temporaries (D, the
// packed K/V, the f32 dQ) are allocated by the callers.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/FlashAttentionGrad.h"
#include "Attention/Cpu/GradKernel.h"

#include "ejk/Ops/Attention/GradConfig.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult CpuFlashAttentionGrad::tile(FlashAttentionGradOp op,
                                          ConfigAttr attr,
                                          DispatchRewriter &rewriter) {
  std::optional<FlashAttentionGradConfig> config =
      FlashAttentionGradConfig::read(attr, llvm::nulls());
  CpuAttentionGradPlan plan;
  static_cast<AttentionProblem &>(plan) = readAttentionProblem(op);
  plan.blockQ = config->blockQ;
  plan.blockK = config->blockK;
  plan.dqBlockQ = config->dqBlockQ;
  plan.dqBlockK = config->dqBlockK;
  plan.lanes = rewriter.target().f32Lanes();
  plan.fuseDq = config->fuseDq;

  CpuAttentionGradBuffers buffers;
  static_cast<AttentionGradBuffers &>(buffers) =
      findAttentionGradBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  Location loc = op.getLoc();

  Type f32 = Float32Type::get(op.getContext());
  int64_t keys = plan.paddedSeqK();
  auto deltaType = MemRefType::get({plan.batch, plan.numHeads, plan.seqQ}, f32);
  int64_t packBlock = plan.packBlock();
  auto keyTType = MemRefType::get(
      {plan.batch, plan.numKvHeads, keys / packBlock, plan.headDim, packBlock},
      f32);
  auto valueRowsType = MemRefType::get(
      {plan.batch, plan.numKvHeads, keys, plan.paddedHeadDimV()}, f32);
  auto valueTType = MemRefType::get(
      {plan.batch, plan.numKvHeads, keys / packBlock, plan.headDimV, packBlock},
      f32);
  auto keyRowsType = MemRefType::get(
      {plan.batch, plan.numKvHeads, keys, plan.paddedHeadDim()}, f32);

  auto dqAccType = MemRefType::get(
      {plan.batch, plan.numHeads, plan.paddedSeqQ(), plan.paddedHeadDim()},
      f32);
  SmallVector<Type> deltaTypes = {buffers.output.getType(),
                                  buffers.dOutput.getType(), deltaType};
  if (plan.fuseDq)
    deltaTypes.push_back(dqAccType);
  func::FuncOp delta = rewriter.addDispatch(
      "delta", deltaTypes, plan.deltaGrid(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildCpuGradDeltaBody(b, loc, plan, args[0], args[1], args[2],
                              plan.fuseDq ? args[3] : Value());
      });
  int64_t dqAccBytes = plan.fuseDq ? dqAccType.getNumElements() * 4 : 0;
  DispatchRewriter::setWork(
      delta, 0,
      DispatchRewriter::bytesOf({buffers.output, buffers.dOutput}) +
          deltaType.getNumElements() * 4 + dqAccBytes);

  // The forward's pack run twice: (K, V) gives K^T (and V rows, unused),
  // (V, K) gives V^T and K rows.
  func::FuncOp pack = rewriter.addDispatch(
      "pack",
      {buffers.key.getType(), buffers.value.getType(), keyTType, valueRowsType,
       valueTType, keyRowsType},
      plan.packGrid(), [&](OpBuilder &b, Location loc, ValueRange args) {
        buildCpuPackBody(b, loc, plan.packPlan(false), args[0], args[1],
                         args[2], args[3]);
        buildCpuPackBody(b, loc, plan.packPlan(true), args[1], args[0], args[4],
                         args[5]);
      });
  int64_t packedBytes =
      (keyTType.getNumElements() + valueRowsType.getNumElements() +
       valueTType.getNumElements() + keyRowsType.getNumElements()) *
      4;
  DispatchRewriter::setWork(
      pack, 0,
      2 * DispatchRewriter::bytesOf({buffers.key, buffers.value}) +
          packedBytes);

  // The dQ pass reads the op's rows (those it has of these), D and the
  // packed K/V.
  using Field = Value AttentionGradBuffers::*;
  const Field dqFields[] = {
      &AttentionGradBuffers::query,       &AttentionGradBuffers::dOutput,
      &AttentionGradBuffers::lse,         &AttentionGradBuffers::bias,
      &AttentionGradBuffers::mask,        &AttentionGradBuffers::qSegmentIds,
      &AttentionGradBuffers::kvSegmentIds};
  SmallVector<Value> dqReads;
  for (Field field : dqFields)
    if (buffers.*field)
      dqReads.push_back(buffers.*field);
  SmallVector<Type> dqTypes;
  for (Value v : dqReads)
    dqTypes.push_back(v.getType());
  dqTypes.append(
      {deltaType, keyTType, valueTType, keyRowsType, buffers.dQuery.getType()});
  int64_t scoreFlops = attentionFlops(plan);
  func::FuncOp dq;
  if (plan.fuseDq) {
    dq = rewriter.addDispatch(
        "dq", {dqAccType, buffers.dQuery.getType()}, plan.deltaGrid(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          buildCpuGradStoreQueryBody(b, loc, plan, args[0], args[1]);
        });
    DispatchRewriter::setWork(
        dq, 0, dqAccBytes + DispatchRewriter::bytesOf(buffers.dQuery));
  } else {
    dq = rewriter.addDispatch("dq", dqTypes, plan.queryGrid(),
                              [&](OpBuilder &b, Location loc, ValueRange args) {
                                CpuAttentionGradBuffers dqBuffers;
                                unsigned next = 0;
                                for (Field field : dqFields)
                                  if (buffers.*field)
                                    dqBuffers.*field = args[next++];
                                dqBuffers.delta = args[next++];
                                dqBuffers.packedKeyT = args[next++];
                                dqBuffers.packedValueT = args[next++];
                                dqBuffers.packedKey = args[next++];
                                dqBuffers.dQuery = args[next++];
                                buildCpuGradQueryBody(b, loc, plan, dqBuffers);
                              });
    DispatchRewriter::setWork(dq, scoreFlops / 2,
                              DispatchRewriter::bytesOf(dqReads) +
                                  DispatchRewriter::bytesOf(buffers.dQuery) +
                                  packedBytes);
  }
  // FLOPs of the dK/dV pass: 2.5 forwards, less the dQ pass's.
  int64_t keyValueFlops =
      attentionGradFlops(plan) - (plan.fuseDq ? 0 : scoreFlops / 2);

  SmallVector<MemRefType> appendedTypes = {deltaType, keyTType, valueTType};
  if (plan.fuseDq)
    appendedTypes.append({keyRowsType, dqAccType});
  FailureOr<SmallVector<Value>> appended =
      rewriter.appendArguments(appendedTypes);
  if (failed(appended))
    return failure();
  buffers.delta = (*appended)[0];
  buffers.packedKeyT = (*appended)[1];
  buffers.packedValueT = (*appended)[2];
  if (plan.fuseDq) {
    buffers.packedKey = (*appended)[3];
    buffers.dqAccumulator = (*appended)[4];
  }

  auto index = [](Value buffer) {
    return DispatchRewriter::argumentIndex(buffer);
  };
  SmallVector<unsigned> dqIndices;
  for (Value v : dqReads)
    dqIndices.push_back(index(v));
  SmallVector<MemRefType> temporaries = {deltaType, keyTType, valueRowsType,
                                         valueTType, keyRowsType};
  if (plan.fuseDq)
    temporaries.push_back(dqAccType);
  rewriter.rewriteCallers(temporaries, [&](OpBuilder &b, Location loc,
                                           DispatchOp call, ValueRange temps) {
    auto bound = [&](Value buffer) { return call.getBuffers()[index(buffer)]; };
    SmallVector<Value> deltaBindings = {bound(buffers.output),
                                        bound(buffers.dOutput), temps[0]};
    if (plan.fuseDq)
      deltaBindings.push_back(temps[5]);
    DispatchOp::create(b, loc, delta.getSymName(), deltaBindings);
    DispatchOp::create(b, loc, pack.getSymName(),
                       ValueRange{bound(buffers.key), bound(buffers.value),
                                  temps[1], temps[2], temps[3], temps[4]});
    SmallVector<Value> bindings(call.getBuffers());
    bindings.append({temps[0], temps[1], temps[3]});
    if (plan.fuseDq)
      bindings.append({temps[4], temps[5]});
    DispatchOp::create(b, loc, call.getCallee(), bindings);
    SmallVector<Value> dqBindings;
    if (plan.fuseDq) {
      dqBindings = {temps[5], bound(buffers.dQuery)};
    } else {
      for (unsigned i : dqIndices)
        dqBindings.push_back(call.getBuffers()[i]);
      dqBindings.append(
          {temps[0], temps[1], temps[3], temps[4], bound(buffers.dQuery)});
    }
    DispatchOp::create(b, loc, dq.getSymName(), dqBindings);
  });

  OpBuilder b = rewriter.replaceBody();
  buildCpuGradKeyValueBody(b, loc, plan, buffers);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.keyValueGrid());
  DispatchRewriter::setWork(
      dispatch, keyValueFlops,
      DispatchRewriter::bytesOf({buffers.query, buffers.dOutput, buffers.lse,
                                 buffers.bias, buffers.mask,
                                 buffers.qSegmentIds, buffers.kvSegmentIds,
                                 buffers.dKey, buffers.dValue}) +
          packedBytes + 2 * dqAccBytes);
  return success();
}
