//===- TileAttention.cpp - the ejk-tile-attention pass --------------------===//
//
// Finds each dispatch function that holds an `ejk.flash_attention` (as made
// by ejk-form-dispatches), checks its config against the module's target,
// and replaces the op by the tiled attention (CpuAttentionKernel.cpp),
// preceded by a dispatch that packs K transposed into a temporary unless
// the kernel reads K/V in place (decode), and followed by a dispatch that
// combines split keys when the config splits them. Every caller of the
// dispatch gets the temporaries and the extra dispatches.
//
//===----------------------------------------------------------------------===//

#include "CpuAttentionKernel.h"
#include "DispatchUtils.h"
#include "GpuAttentionKernel.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKTILEATTENTION
#include "ejk/Transforms/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

/// Checks the op's config against the target; fails with a diagnostic.
static LogicalResult checkConfig(FlashAttentionOp op,
                                 const TargetInfo &target) {
  return checkedConfig(cast<TunableOpInterface>(op.getOperation()), target);
}

/// The sizes and options every kernel builder needs.
static AttentionProblem readProblem(FlashAttentionOp op) {
  auto q = op.getQuery().getType();
  auto k = op.getKey().getType();
  AttentionProblem plan;
  plan.batch = q.getDimSize(0);
  plan.seqQ = q.getDimSize(1);
  plan.numHeads = q.getDimSize(2);
  plan.headDim = q.getDimSize(3);
  plan.seqK = k.getDimSize(1);
  plan.numKvHeads = k.getDimSize(2);
  plan.headDimV = op.getValue().getType().getDimSize(3);
  plan.softmaxScale = op.getEffectiveSoftmaxScale();
  plan.causal = op.getCausal();
  if (std::optional<ArrayRef<int64_t>> window = op.getSlidingWindow())
    plan.slidingWindow = std::array<int64_t, 2>{(*window)[0], (*window)[1]};
  if (std::optional<APFloat> cap = op.getLogitsSoftCap())
    plan.softCap = cap->convertToFloat();
  if (std::optional<APFloat> prob = op.getDropoutProb()) {
    plan.dropoutProb = prob->convertToFloat();
    plan.dropoutSeed = static_cast<uint64_t>(*op.getDropoutSeed());
  }
  if (Value bias = op.getBias()) {
    auto type = cast<RankedTensorType>(bias.getType());
    plan.biasBroadcastsBatch = type.getDimSize(0) == 1 && plan.batch != 1;
    plan.biasBroadcastsHeads = type.getDimSize(1) == 1 && plan.numHeads != 1;
  }
  if (Value mask = op.getMask()) {
    auto type = cast<RankedTensorType>(mask.getType());
    plan.maskBroadcastsBatch = type.getDimSize(0) == 1 && plan.batch != 1;
    plan.maskBroadcastsHeads = type.getDimSize(1) == 1 && plan.numHeads != 1;
  }
  return plan;
}

static FailureOr<CpuAttentionPlan> makePlan(FlashAttentionOp op,
                                            const TargetInfo &target) {
  if (failed(checkConfig(op, target)))
    return failure();
  CpuAttentionPlan plan;
  static_cast<AttentionProblem &>(plan) = readProblem(op);
  ConfigAttr config = op.getConfigAttr();
  plan.blockQ = *config.lookup("block_q");
  plan.blockK = *config.lookup("block_k");
  plan.lanes = target.f32Lanes();
  plan.keySplits = config.lookupOr("key_splits", 1);
  return plan;
}

/// The dispatch's buffers for the op's operands and results; fails with a
/// diagnostic when the op is not in dispatch form.
static FailureOr<AttentionBuffers> findBuffers(FlashAttentionOp op) {
  AttentionBuffers buffers;
  buffers.query = bufferOf(op.getQuery());
  buffers.key = bufferOf(op.getKey());
  buffers.value = bufferOf(op.getValue());
  buffers.bias = bufferOf(op.getBias());
  buffers.mask = bufferOf(op.getMask());
  buffers.qSegmentIds = bufferOf(op.getQSegmentIds());
  buffers.kvSegmentIds = bufferOf(op.getKvSegmentIds());
  buffers.output = destinationOf(op.getOutput());
  buffers.lse = destinationOf(op.getLse());
  if (!buffers.query || !buffers.key || !buffers.value || !buffers.output ||
      (op.getBias() && !buffers.bias) || (op.getMask() && !buffers.mask) ||
      (op.getQSegmentIds() && !buffers.qSegmentIds) ||
      (op.getKvSegmentIds() && !buffers.kvSegmentIds) ||
      (op.getLse() && !buffers.lse))
    return op.emitOpError("is not in dispatch form; run ejk-form-dispatches "
                          "first");
  return buffers;
}

/// FLOPs of the two matmuls (FlashAttention's convention, halved when
/// causal).
static int64_t attentionFlops(const AttentionProblem &p) {
  int64_t flops =
      2 * p.batch * p.numHeads * p.seqQ * p.seqK * (p.headDim + p.headDimV);
  return p.causal ? flops / 2 : flops;
}

/// Rewrites one dispatch for a Vulkan target: one kernel, no pack.
static LogicalResult tileDispatchForVulkan(func::FuncOp dispatch,
                                           FlashAttentionOp op,
                                           const TargetInfo &target) {
  if (failed(checkConfig(op, target)))
    return failure();
  FailureOr<AttentionBuffers> buffers = findBuffers(op);
  if (failed(buffers))
    return failure();
  GpuAttentionPlan plan;
  static_cast<AttentionProblem &>(plan) = readProblem(op);
  std::optional<GpuAttentionLayout> layout =
      getGpuAttentionLayout(op, op.getConfigAttr(), target, llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  plan.layout = *layout;

  Location loc = op.getLoc();
  Block &body = clearBody(dispatch);
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  if (layout->cooperative)
    buildGpuCoopAttentionBody(b, loc, plan, *buffers);
  else
    buildGpuAttentionBody(b, loc, plan, *buffers);
  func::ReturnOp::create(b, loc);
  dispatch->setAttr(kGridAttrName, gridAttr(b, plan.grid()));
  dispatch->setAttr(kWorkgroupSizeAttrName,
                    b.getDenseI64ArrayAttr({layout->threads, 1, 1}));
  dispatch->setAttr(kSharedMemoryAttrName,
                    b.getI64IntegerAttr(layout->sharedBytes));
  // The register softmax relies on NVIDIA's matrix layout: the runtime
  // refuses a device without it before the kernel could run.
  if (layout->registerSoftmax)
    dispatch->setAttr("ejk.requires",
                      b.getStrArrayAttr({"cooperative_matrix_nv_layout"}));
  int64_t bytes = 0;
  for (Value buffer : {buffers->query, buffers->key, buffers->value,
                       buffers->bias, buffers->mask, buffers->qSegmentIds,
                       buffers->kvSegmentIds, buffers->output, buffers->lse})
    bytes += bytesOf(buffer);
  dispatch->setAttr(kFlopsAttrName, b.getI64IntegerAttr(attentionFlops(plan)));
  dispatch->setAttr(kBytesAttrName, b.getI64IntegerAttr(bytes));
  return success();
}

/// Adds the pack dispatch of `dispatch` (K transposed per key block, V per
/// head, both f32), passes the packed buffers to the attention dispatch as
/// its last arguments (`buffers` gets them) and makes every caller allocate
/// them and run the pack first.
static LogicalResult addPackDispatch(func::FuncOp dispatch,
                                     const CpuAttentionPlan &plan,
                                     CpuAttentionBuffers &buffers,
                                     ModuleOp module, SymbolTable &symbols) {
  OpBuilder builder(dispatch);
  Location loc = dispatch.getLoc();
  Type f32 = builder.getF32Type();
  auto packedKeyType =
      MemRefType::get({plan.batch, plan.numKvHeads, plan.numKeyBlocks(),
                       plan.headDim, plan.blockK},
                      f32);
  auto packedValueType = MemRefType::get(
      {plan.batch, plan.numKvHeads, plan.paddedSeqK(), plan.paddedHeadDimV()},
      f32);
  auto keyType = cast<MemRefType>(buffers.key.getType());
  auto valueType = cast<MemRefType>(buffers.value.getType());

  // The pack dispatch.
  auto pack = func::FuncOp::create(
      builder, loc, (dispatch.getSymName() + "_pack").str(),
      builder.getFunctionType(
          {keyType, valueType, packedKeyType, packedValueType}, {}));
  pack.setPrivate();
  pack->setAttr(kDispatchAttrName, builder.getUnitAttr());
  pack->setAttr(kGridAttrName, gridAttr(builder, plan.packGrid()));
  symbols.insert(pack);
  {
    Block *body = pack.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockEnd(body);
    buildCpuPackBody(b, loc, plan, body->getArgument(0), body->getArgument(1),
                     body->getArgument(2), body->getArgument(3));
    func::ReturnOp::create(b, loc);
  }

  // The attention dispatch takes the packed buffers as new last arguments.
  unsigned packedIndex = dispatch.getNumArguments();
  if (failed(dispatch.insertArgument(packedIndex, packedKeyType, {}, loc)) ||
      failed(
          dispatch.insertArgument(packedIndex + 1, packedValueType, {}, loc)))
    return failure();
  buffers.packedKeyT = dispatch.getArgument(packedIndex);
  buffers.packedValue = dispatch.getArgument(packedIndex + 1);
  unsigned keyIndex = cast<BlockArgument>(buffers.key).getArgNumber();
  unsigned valueIndex = cast<BlockArgument>(buffers.value).getArgNumber();

  // Callers allocate the buffers and run the pack first.
  rewriteCallers(
      module, dispatch, {packedKeyType, packedValueType},
      [&](OpBuilder &b, Location callLoc, DispatchOp call, ValueRange packed) {
        DispatchOp::create(b, callLoc, pack.getSymName(),
                           ValueRange{call.getBuffers()[keyIndex],
                                      call.getBuffers()[valueIndex], packed[0],
                                      packed[1]});
        SmallVector<Value> bindings(call.getBuffers());
        bindings.append(packed.begin(), packed.end());
        DispatchOp::create(b, callLoc, call.getCallee(), bindings);
      });
  pack->setAttr(kFlopsAttrName, builder.getI64IntegerAttr(0));
  pack->setAttr(kBytesAttrName,
                builder.getI64IntegerAttr(bytesOf(buffers.key) +
                                          bytesOf(buffers.value) +
                                          bytesOf(buffers.packedKeyT) +
                                          bytesOf(buffers.packedValue)));
  return success();
}

/// Adds the combine dispatch of split keys: the attention dispatch gets the
/// partial buffers as its last arguments (`buffers` gets them) and writes
/// them instead of the output; every caller allocates them and runs the
/// combine after it, which writes the output and the lse.
static LogicalResult addCombineDispatch(func::FuncOp dispatch,
                                        const CpuAttentionPlan &plan,
                                        CpuAttentionBuffers &buffers,
                                        ModuleOp module, SymbolTable &symbols) {
  OpBuilder builder(dispatch);
  Location loc = dispatch.getLoc();
  Type f32 = builder.getF32Type();
  int64_t heads = plan.gridHeads();
  auto partialOType = MemRefType::get(
      {plan.batch, heads, plan.keySplits, plan.blockQ, plan.paddedHeadDimV()},
      f32);
  auto statsType =
      MemRefType::get({plan.batch, heads, plan.keySplits, plan.blockQ, 2}, f32);
  auto outputType = cast<MemRefType>(buffers.output.getType());
  SmallVector<Type> argTypes = {partialOType, statsType, outputType};
  if (buffers.lse)
    argTypes.push_back(buffers.lse.getType());
  auto combine = func::FuncOp::create(
      builder, loc, (dispatch.getSymName() + "_combine").str(),
      builder.getFunctionType(argTypes, {}));
  combine.setPrivate();
  combine->setAttr(kDispatchAttrName, builder.getUnitAttr());
  combine->setAttr(kGridAttrName, gridAttr(builder, plan.combineGrid()));
  combine->setAttr(kFlopsAttrName, builder.getI64IntegerAttr(0));
  combine->setAttr(
      kBytesAttrName,
      builder.getI64IntegerAttr(
          (partialOType.getNumElements() + statsType.getNumElements()) * 4 +
          bytesOf(buffers.output) + bytesOf(buffers.lse)));
  symbols.insert(combine);
  {
    Block *body = combine.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockEnd(body);
    buildCpuCombineBody(b, loc, plan, body->getArgument(0),
                        body->getArgument(1), body->getArgument(2),
                        buffers.lse ? body->getArgument(3) : Value());
    func::ReturnOp::create(b, loc);
  }

  unsigned partialIndex = dispatch.getNumArguments();
  if (failed(dispatch.insertArgument(partialIndex, partialOType, {}, loc)) ||
      failed(dispatch.insertArgument(partialIndex + 1, statsType, {}, loc)))
    return failure();
  buffers.partialO = dispatch.getArgument(partialIndex);
  buffers.partialStats = dispatch.getArgument(partialIndex + 1);
  unsigned outputIndex = cast<BlockArgument>(buffers.output).getArgNumber();
  std::optional<unsigned> lseIndex;
  if (buffers.lse)
    lseIndex = cast<BlockArgument>(buffers.lse).getArgNumber();

  rewriteCallers(
      module, dispatch, {partialOType, statsType},
      [&](OpBuilder &b, Location callLoc, DispatchOp call, ValueRange parts) {
        SmallVector<Value> bindings(call.getBuffers());
        bindings.append(parts.begin(), parts.end());
        DispatchOp::create(b, callLoc, call.getCallee(), bindings);
        SmallVector<Value> combineBindings = {parts[0], parts[1],
                                              call.getBuffers()[outputIndex]};
        if (lseIndex)
          combineBindings.push_back(call.getBuffers()[*lseIndex]);
        DispatchOp::create(b, callLoc, combine.getSymName(), combineBindings);
      });
  return success();
}

/// Rewrites one dispatch function; `symbols` gets the new pack dispatch
/// (none when the plan reads K/V in place).
static LogicalResult tileDispatch(func::FuncOp dispatch, FlashAttentionOp op,
                                  const TargetInfo &target, ModuleOp module,
                                  SymbolTable &symbols) {
  FailureOr<CpuAttentionPlan> plan = makePlan(op, target);
  if (failed(plan))
    return failure();

  FailureOr<AttentionBuffers> found = findBuffers(op);
  if (failed(found))
    return failure();
  CpuAttentionBuffers buffers;
  static_cast<AttentionBuffers &>(buffers) = *found;

  Location loc = op.getLoc();
  if (!plan->readsKvInPlace() &&
      failed(addPackDispatch(dispatch, *plan, buffers, module, symbols)))
    return failure();
  if (plan->keySplits > 1 &&
      failed(addCombineDispatch(dispatch, *plan, buffers, module, symbols)))
    return failure();

  // Replace the body: drop the tensor-level ops, emit the kernel.
  OpBuilder b = OpBuilder::atBlockEnd(&clearBody(dispatch));
  buildCpuAttentionBody(b, loc, *plan, buffers);
  func::ReturnOp::create(b, loc);
  dispatch->setAttr(kGridAttrName, gridAttr(b, plan->attentionGrid()));

  // Work counts for reporting (K/V as the kernel reads them).
  int64_t bytes = 0;
  SmallVector<Value> read = {
      buffers.query,        buffers.bias,   buffers.mask, buffers.qSegmentIds,
      buffers.kvSegmentIds, buffers.output, buffers.lse};
  if (plan->readsKvInPlace())
    read.append({buffers.key, buffers.value});
  else
    read.append({buffers.packedKeyT, buffers.packedValue});
  for (Value buffer : read)
    bytes += bytesOf(buffer);
  dispatch->setAttr(kFlopsAttrName, b.getI64IntegerAttr(attentionFlops(*plan)));
  dispatch->setAttr(kBytesAttrName, b.getI64IntegerAttr(bytes));
  return success();
}

namespace {
struct TileAttentionPass
    : public mlir::ejk::impl::EjkTileAttentionBase<TileAttentionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<func::FuncOp, FlashAttentionOp>> work;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(kDispatchAttrName))
        continue;
      func.walk([&](FlashAttentionOp op) { work.emplace_back(func, op); });
    }
    if (work.empty())
      return;
    FailureOr<TargetInfo> target = getModuleTarget(module);
    if (failed(target))
      return signalPassFailure();
    if (target->isVulkan()) {
      for (auto [func, op] : work)
        if (failed(tileDispatchForVulkan(func, op, *target)))
          return signalPassFailure();
      return;
    }
    SymbolTable symbols(module);
    for (auto [func, op] : work)
      if (failed(tileDispatch(func, op, *target, module, symbols)))
        return signalPassFailure();
  }
};
} // namespace
