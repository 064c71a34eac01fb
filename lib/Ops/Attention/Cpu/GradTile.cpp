//===- GradTile.cpp - flash attention backward dispatches on the CPU ------===//
//
// Replaces the op by the dK/dV pass (GradKernel.cpp) and adds, around it,
// the dispatches every caller then runs in order: delta (D = rowsum(dO *
// O), and the f32 Qs and dO rows per head), pack (K^T, V^T and K rows,
// f32), dK/dV, and dQ (with fuse_dq: the store of the f32 dQ the dK/dV
// pass accumulated). The temporaries (D, the packed rows, the packed K/V,
// the f32 dQ) are allocated by the callers.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/FlashAttentionGrad.h"
#include "Attention/Cpu/GradKernel.h"
#include "Attention/LiveBlocks.h"

#include "ejk/Ops/Attention/GradConfig.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
using Field = Value AttentionGradBuffers::*;

/// The op's buffers the dQ pass reads, those present of these, in order.
constexpr Field kQueryPassFields[] = {
    &AttentionGradBuffers::query,        &AttentionGradBuffers::dOutput,
    &AttentionGradBuffers::lse,          &AttentionGradBuffers::bias,
    &AttentionGradBuffers::mask,         &AttentionGradBuffers::qSegmentIds,
    &AttentionGradBuffers::kvSegmentIds, &AttentionGradBuffers::paddingMask,
    &AttentionGradBuffers::cumSeqlensQ,  &AttentionGradBuffers::cumSeqlensK};

/// The backward's dispatches around the dK/dV pass (the op's own dispatch)
/// and the temporaries the callers allocate for them.
class GradDispatches {
public:
  GradDispatches(DispatchRewriter &rewriter, const CpuAttentionGradPlan &plan,
                 CpuAttentionGradBuffers &buffers)
      : rewriter(rewriter), p(plan), buf(buffers) {
    Type f32 = Float32Type::get(rewriter.dispatch().getContext());
    int64_t keys = p.paddedSeqK(), pb = p.packBlock();
    deltaType = MemRefType::get({p.batch, p.numHeads, p.seqQ}, f32);
    keyTType =
        MemRefType::get({p.batch, p.numKvHeads, keys / pb, p.headDim, pb}, f32);
    valueRowsType =
        MemRefType::get({p.batch, p.numKvHeads, keys, p.paddedHeadDimV()}, f32);
    valueTType = MemRefType::get(
        {p.batch, p.numKvHeads, keys / pb, p.headDimV, pb}, f32);
    keyRowsType =
        MemRefType::get({p.batch, p.numKvHeads, keys, p.paddedHeadDim()}, f32);
    dqAccType = MemRefType::get(
        {p.batch, p.numHeads, p.paddedSeqQ(), p.paddedHeadDim()}, f32);
    queryRowsType = dqAccType;
    dOutputRowsType = MemRefType::get(
        {p.batch, p.numHeads, p.paddedSeqQ(), p.paddedHeadDimV()}, f32);
    rowsBytes =
        (queryRowsType.getNumElements() + dOutputRowsType.getNumElements()) * 4;
    packedBytes = (keyTType.getNumElements() + valueRowsType.getNumElements() +
                   valueTType.getNumElements() + keyRowsType.getNumElements()) *
                  4;
    dqAccBytes = p.fuseDq ? dqAccType.getNumElements() * 4 : 0;
    for (Field field : kQueryPassFields)
      if (buf.*field)
        queryPassReads.push_back(buf.*field);
  }

  /// Adds every dispatch, gives the dK/dV dispatch its temporaries and
  /// makes the callers run them all.
  LogicalResult add() {
    addDelta();
    addPack();
    if (p.sparse)
      addLists();
    addQuery();
    return rewrite();
  }

  /// Bytes of the packed K/V, of the fused f32 dQ and of the packed Qs and
  /// dO rows.
  int64_t packedBytes, dqAccBytes, rowsBytes;

private:
  /// D = rowsum(dO * O), the packed Qs and dO rows; zeroes the fused dQ.
  void addDelta() {
    SmallVector<Type> types = {buf.query.getType(),   buf.output.getType(),
                               buf.dOutput.getType(), deltaType,
                               queryRowsType,         dOutputRowsType};
    if (p.fuseDq)
      types.push_back(dqAccType);
    delta = rewriter.addDispatch(
        "delta", types, p.deltaGrid(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          buildCpuGradDeltaBody(b, loc, p, args[0], args[1], args[2], args[3],
                                args[4], args[5], p.fuseDq ? args[6] : Value());
        });
    DispatchRewriter::setWork(
        delta, 0,
        DispatchRewriter::bytesOf({buf.query, buf.output, buf.dOutput}) +
            deltaType.getNumElements() * 4 + rowsBytes + dqAccBytes);
  }

  /// The forward's pack run twice: (K, V) gives K^T (and V rows, unused),
  /// (V, K) gives V^T and K rows.
  void addPack() {
    pack = rewriter.addDispatch(
        "pack",
        {buf.key.getType(), buf.value.getType(), keyTType, valueRowsType,
         valueTType, keyRowsType},
        p.packGrid(), [&](OpBuilder &b, Location loc, ValueRange args) {
          buildCpuPackBody(b, loc, p.packPlan(false), args[0], args[1], args[2],
                           args[3]);
          buildCpuPackBody(b, loc, p.packPlan(true), args[1], args[0], args[4],
                           args[5]);
        });
    DispatchRewriter::setWork(
        pack, 0,
        2 * DispatchRewriter::bytesOf({buf.key, buf.value}) + packedBytes);
  }

  /// Block-sparse: the lists of each pass, at its own blocks (LiveBlocks.h):
  /// the query blocks that see each key block of the dK/dV pass and the
  /// live key blocks of each query block of the dQ pass.
  void addLists() {
    auto maskBlock = [&](bool keys) {
      return keys ? p.maskBlockK : p.maskBlockQ;
    };
    keyValueList = addLiveBlocksListDispatch(
        rewriter, p, {p.blockQ, p.blockK, maskBlock(false), maskBlock(true)},
        /*vulkan=*/false, buf.blockMask, /*transposed=*/true,
        "live_query_blocks");
    if (!p.fuseDq)
      queryList = addLiveBlocksListDispatch(
          rewriter, p,
          {p.dqBlockQ, p.dqBlockK, maskBlock(false), maskBlock(true)},
          /*vulkan=*/false, buf.blockMask, /*transposed=*/false, "live_blocks");
  }

  /// The dQ pass, or with fuse_dq the store of the f32 dQ.
  void addQuery() {
    if (p.fuseDq) {
      query = rewriter.addDispatch(
          "dq", {dqAccType, buf.dQuery.getType()}, p.deltaGrid(),
          [&](OpBuilder &b, Location loc, ValueRange args) {
            buildCpuGradStoreQueryBody(b, loc, p, args[0], args[1]);
          });
      DispatchRewriter::setWork(
          query, 0, dqAccBytes + DispatchRewriter::bytesOf(buf.dQuery));
      return;
    }
    SmallVector<Type> types;
    for (Value v : queryPassReads)
      types.push_back(v.getType());
    types.append(
        {deltaType, keyTType, valueTType, keyRowsType, buf.dQuery.getType()});
    if (p.sparse)
      types.push_back(queryList.type);
    query =
        rewriter.addDispatch("dq", types, p.queryGrid(),
                             [&](OpBuilder &b, Location loc, ValueRange args) {
                               CpuAttentionGradBuffers own;
                               unsigned next = 0;
                               for (Field field : kQueryPassFields)
                                 if (buf.*field)
                                   own.*field = args[next++];
                               own.delta = args[next++];
                               own.packedKeyT = args[next++];
                               own.packedValueT = args[next++];
                               own.packedKey = args[next++];
                               own.dQuery = args[next++];
                               if (p.sparse)
                                 own.liveBlocks = args[next++];
                               buildCpuGradQueryBody(b, loc, p, own);
                             });
    DispatchRewriter::setWork(query, attentionFlops(p) / 2,
                              DispatchRewriter::bytesOf(queryPassReads) +
                                  DispatchRewriter::bytesOf(buf.dQuery) +
                                  packedBytes);
  }

  /// Appends the dK/dV pass's temporaries to it (`buf` gets them) and
  /// rewrites the callers: allocate, delta, pack, dK/dV, dQ.
  LogicalResult rewrite() {
    SmallVector<MemRefType> appendedTypes = {deltaType, keyTType, valueTType,
                                             queryRowsType, dOutputRowsType};
    if (p.fuseDq)
      appendedTypes.append({keyRowsType, dqAccType});
    if (p.sparse)
      appendedTypes.push_back(keyValueList.type);
    FailureOr<SmallVector<Value>> appended =
        rewriter.appendArguments(appendedTypes);
    if (failed(appended))
      return failure();
    buf.delta = (*appended)[0];
    buf.packedKeyT = (*appended)[1];
    buf.packedValueT = (*appended)[2];
    buf.packedQuery = (*appended)[3];
    buf.packedDOutput = (*appended)[4];
    if (p.fuseDq) {
      buf.packedKey = (*appended)[5];
      buf.dqAccumulator = (*appended)[6];
    }
    if (p.sparse)
      buf.liveQueryBlocks = appended->back();

    // Temporaries: 0 D, 1 K^T, 2 V rows, 3 V^T, 4 K rows, 5 Qs rows, 6 dO
    // rows, 7 the f32 dQ, then the dK/dV pass's lists and the dQ pass's
    // (block-sparse).
    SmallVector<MemRefType> temporaries = {
        deltaType,   keyTType,      valueRowsType,  valueTType,
        keyRowsType, queryRowsType, dOutputRowsType};
    if (p.fuseDq)
      temporaries.push_back(dqAccType);
    unsigned keyValueListAt = temporaries.size();
    if (p.sparse) {
      temporaries.push_back(keyValueList.type);
      if (!p.fuseDq)
        temporaries.push_back(queryList.type);
    }
    auto index = [](Value buffer) {
      return DispatchRewriter::argumentIndex(buffer);
    };
    rewriter.rewriteCallers(temporaries, [&](OpBuilder &b, Location loc,
                                             DispatchOp call,
                                             ValueRange temps) {
      auto bound = [&](Value buffer) {
        return call.getBuffers()[index(buffer)];
      };
      if (p.sparse) {
        auto runList = [&](LiveBlocksDispatch list, Value temp) {
          SmallVector<Value> listBindings;
          if (buf.blockMask)
            listBindings.push_back(bound(buf.blockMask));
          listBindings.push_back(temp);
          DispatchOp::create(b, loc, list.fn.getSymName(), listBindings);
        };
        runList(keyValueList, temps[keyValueListAt]);
        if (!p.fuseDq)
          runList(queryList, temps[keyValueListAt + 1]);
      }
      SmallVector<Value> deltaBindings = {bound(buf.query),   bound(buf.output),
                                          bound(buf.dOutput), temps[0],
                                          temps[5],           temps[6]};
      if (p.fuseDq)
        deltaBindings.push_back(temps[7]);
      DispatchOp::create(b, loc, delta.getSymName(), deltaBindings);
      DispatchOp::create(b, loc, pack.getSymName(),
                         ValueRange{bound(buf.key), bound(buf.value), temps[1],
                                    temps[2], temps[3], temps[4]});
      SmallVector<Value> bindings(call.getBuffers());
      bindings.append({temps[0], temps[1], temps[3], temps[5], temps[6]});
      if (p.fuseDq)
        bindings.append({temps[4], temps[7]});
      if (p.sparse)
        bindings.push_back(temps[keyValueListAt]);
      DispatchOp::create(b, loc, call.getCallee(), bindings);
      SmallVector<Value> queryBindings;
      if (p.fuseDq) {
        queryBindings = {temps[7], bound(buf.dQuery)};
      } else {
        for (Value v : queryPassReads)
          queryBindings.push_back(bound(v));
        queryBindings.append(
            {temps[0], temps[1], temps[3], temps[4], bound(buf.dQuery)});
        if (p.sparse)
          queryBindings.push_back(temps[keyValueListAt + 1]);
      }
      DispatchOp::create(b, loc, query.getSymName(), queryBindings);
    });
    return success();
  }

  DispatchRewriter &rewriter;
  const CpuAttentionGradPlan &p;
  CpuAttentionGradBuffers &buf;
  MemRefType deltaType, keyTType, valueRowsType, valueTType, keyRowsType,
      dqAccType, queryRowsType, dOutputRowsType;
  SmallVector<Value> queryPassReads;
  func::FuncOp delta, pack, query;
  LiveBlocksDispatch keyValueList, queryList;
};
} // namespace

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
  return tileCpuAttentionGrad(rewriter, plan, buffers, op.getLoc());
}

LogicalResult mlir::ejk::tileCpuAttentionGrad(DispatchRewriter &rewriter,
                                              const CpuAttentionGradPlan &plan,
                                              CpuAttentionGradBuffers &buffers,
                                              Location loc) {
  GradDispatches dispatches(rewriter, plan, buffers);
  if (failed(dispatches.add()))
    return failure();

  OpBuilder b = rewriter.replaceBody();
  buildCpuGradKeyValueBody(b, loc, plan, buffers);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.keyValueGrid());
  // FLOPs: 2.5 forwards, less the dQ pass's (of the dense problem for a
  // block-sparse one: the live fraction is data).
  int64_t flops =
      attentionGradFlops(plan) - (plan.fuseDq ? 0 : attentionFlops(plan) / 2);
  DispatchRewriter::setWork(
      dispatch, flops,
      DispatchRewriter::bytesOf({buffers.lse, buffers.bias, buffers.mask,
                                 buffers.qSegmentIds, buffers.kvSegmentIds,
                                 buffers.paddingMask, buffers.dKey,
                                 buffers.dValue}) +
          dispatches.packedBytes + dispatches.rowsBytes +
          2 * dispatches.dqAccBytes);
  return success();
}
