//===- Tile.cpp - flash attention dispatches on the CPU -------------------===//
//
// Replaces the op by the tiled attention (Kernel.cpp), preceded by a
// dispatch that packs K transposed into a temporary unless the kernel reads
// K/V in place (decode), and followed by a dispatch that combines split
// keys when the config splits them. Every caller of the dispatch gets the
// temporaries and the extra dispatches.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/FlashAttention.h"
#include "Attention/Cpu/Kernel.h"
#include "Paged/Cpu/Decode.h"

#include "ejk/Ops/Attention/Config.h"

using namespace mlir;
using namespace mlir::ejk;

/// Adds the pack dispatch (K transposed per key block, V per head, both
/// f32), passes the packed buffers to the attention dispatch as its last
/// arguments (`buffers` gets them) and makes every caller allocate them and
/// run the pack first.
LogicalResult mlir::ejk::addCpuPackDispatch(DispatchRewriter &rewriter,
                                            const CpuAttentionPlan &plan,
                                            CpuAttentionBuffers &buffers) {
  Type f32 = Float32Type::get(rewriter.dispatch().getContext());
  auto packedKeyType =
      MemRefType::get({plan.batch, plan.numKvHeads, plan.numKeyBlocks(),
                       plan.headDim, plan.blockK},
                      f32);
  auto packedValueType = MemRefType::get(
      {plan.batch, plan.numKvHeads, plan.paddedSeqK(), plan.paddedHeadDimV()},
      f32);
  func::FuncOp pack = rewriter.addDispatch(
      "pack",
      {buffers.key.getType(), buffers.value.getType(), packedKeyType,
       packedValueType},
      plan.packGrid(), [&](OpBuilder &b, Location loc, ValueRange args) {
        buildCpuPackBody(b, loc, plan, args[0], args[1], args[2], args[3]);
      });

  FailureOr<SmallVector<Value>> packed =
      rewriter.appendArguments({packedKeyType, packedValueType});
  if (failed(packed))
    return failure();
  buffers.packedKeyT = (*packed)[0];
  buffers.packedValue = (*packed)[1];
  unsigned keyIndex = DispatchRewriter::argumentIndex(buffers.key);
  unsigned valueIndex = DispatchRewriter::argumentIndex(buffers.value);
  rewriter.rewriteCallers(
      {packedKeyType, packedValueType},
      [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange temps) {
        DispatchOp::create(b, loc, pack.getSymName(),
                           ValueRange{call.getBuffers()[keyIndex],
                                      call.getBuffers()[valueIndex], temps[0],
                                      temps[1]});
        SmallVector<Value> bindings(call.getBuffers());
        bindings.append(temps.begin(), temps.end());
        DispatchOp::create(b, loc, call.getCallee(), bindings);
      });
  DispatchRewriter::setWork(
      pack, 0,
      DispatchRewriter::bytesOf({buffers.key, buffers.value, buffers.packedKeyT,
                                 buffers.packedValue}));
  return success();
}

/// Adds the combine dispatch of split keys: the attention dispatch gets the
/// partial buffers as its last arguments (`buffers` gets them) and writes
/// them instead of the output; every caller allocates them and runs the
/// combine after it, which writes the output and the lse.
LogicalResult mlir::ejk::addCpuCombineDispatch(DispatchRewriter &rewriter,
                                               const CpuAttentionPlan &plan,
                                               CpuAttentionBuffers &buffers) {
  Type f32 = Float32Type::get(rewriter.dispatch().getContext());
  int64_t heads = plan.gridHeads();
  auto partialOType = MemRefType::get(
      {plan.batch, heads, plan.keySplits, plan.blockQ, plan.paddedHeadDimV()},
      f32);
  auto statsType =
      MemRefType::get({plan.batch, heads, plan.keySplits, plan.blockQ, 2}, f32);
  SmallVector<Type> argTypes = {partialOType, statsType,
                                buffers.output.getType()};
  if (buffers.lse)
    argTypes.push_back(buffers.lse.getType());
  func::FuncOp combine = rewriter.addDispatch(
      "combine", argTypes, plan.combineGrid(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildCpuCombineBody(b, loc, plan, args[0], args[1], args[2],
                            buffers.lse ? args[3] : Value());
      });
  DispatchRewriter::setWork(
      combine, 0,
      (partialOType.getNumElements() + statsType.getNumElements()) * 4 +
          DispatchRewriter::bytesOf({buffers.output, buffers.lse}));

  FailureOr<SmallVector<Value>> parts =
      rewriter.appendArguments({partialOType, statsType});
  if (failed(parts))
    return failure();
  buffers.partialO = (*parts)[0];
  buffers.partialStats = (*parts)[1];
  unsigned outputIndex = DispatchRewriter::argumentIndex(buffers.output);
  std::optional<unsigned> lseIndex;
  if (buffers.lse)
    lseIndex = DispatchRewriter::argumentIndex(buffers.lse);
  rewriter.rewriteCallers(
      {partialOType, statsType},
      [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange temps) {
        SmallVector<Value> bindings(call.getBuffers());
        bindings.append(temps.begin(), temps.end());
        DispatchOp::create(b, loc, call.getCallee(), bindings);
        SmallVector<Value> combineBindings = {temps[0], temps[1],
                                              call.getBuffers()[outputIndex]};
        if (lseIndex)
          combineBindings.push_back(call.getBuffers()[*lseIndex]);
        DispatchOp::create(b, loc, combine.getSymName(), combineBindings);
      });
  return success();
}

LogicalResult CpuFlashAttention::tile(FlashAttentionOp op, ConfigAttr attr,
                                      DispatchRewriter &rewriter) {
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, llvm::nulls());
  CpuAttentionPlan plan;
  static_cast<AttentionProblem &>(plan) = readAttentionProblem(op);
  plan.blockQ = config->blockQ;
  plan.blockK = config->blockK;
  plan.lanes = rewriter.target().f32Lanes();
  plan.keySplits = config->keySplits.value_or(1);

  CpuAttentionBuffers buffers;
  static_cast<AttentionBuffers &>(buffers) = findAttentionBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();

  // One query row per sequence with no per-score inputs: the paged family's
  // decode kernel, the sequences as pages (prefetched rows, one pass of
  // K/V per KV head; docs/ops/paged.md).
  if (std::optional<PagedAttentionProblem> decode = denseDecodeAsPaged(
          plan, op.getQuery().getType().getElementType(),
          op.getKey().getType().getElementType(), op.getLse() != nullptr,
          op.getBias() || op.getMask() || op.getQSegmentIds() ||
              op.getKvSegmentIds() || plan.usesPortableOnlyOptions())) {
    PagedAttentionBuffers paged;
    paged.query = buffers.query;
    paged.keyCache = buffers.key;
    paged.valueCache = buffers.value;
    paged.output = buffers.output;
    paged.lse = buffers.lse;
    return tileCpuPagedAttention(
        op, *decode, std::min<int64_t>(plan.blockK, 512),
        std::min<int64_t>(plan.keySplits, 64), paged, rewriter);
  }

  Location loc = op.getLoc();
  if (!plan.readsKvInPlace() &&
      failed(addCpuPackDispatch(rewriter, plan, buffers)))
    return failure();
  if (plan.keySplits > 1 &&
      failed(addCpuCombineDispatch(rewriter, plan, buffers)))
    return failure();

  OpBuilder b = rewriter.replaceBody();
  buildCpuAttentionBody(b, loc, plan, buffers);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.attentionGrid());

  // Work counts for reporting (K/V as the kernel reads them).
  SmallVector<Value> read = {
      buffers.query,       buffers.bias,         buffers.mask,
      buffers.qSegmentIds, buffers.kvSegmentIds, buffers.softmaxAux,
      buffers.paddingMask, buffers.cumSeqlensQ,  buffers.cumSeqlensK,
      buffers.output,      buffers.lse};
  if (plan.readsKvInPlace())
    read.append({buffers.key, buffers.value});
  else
    read.append({buffers.packedKeyT, buffers.packedValue});
  DispatchRewriter::setWork(dispatch, attentionFlops(plan),
                            DispatchRewriter::bytesOf(read));
  return success();
}
