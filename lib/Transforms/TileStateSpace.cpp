//===- TileStateSpace.cpp - the ejk-tile-state-space pass -----------------===//
//
// Finds each dispatch function that holds an `ejk.selective_scan` or an
// `ejk.ssd` (as made by ejk-form-dispatches), checks its config against the
// module's target and replaces the op by its tiled form. CPU
// (CpuSelectiveScanKernel.cpp, CpuSsdKernel.cpp): an SSD also gets a
// pre-pass dispatch that computes the per-chunk C B^T scores once per
// group; every caller allocates their buffer and runs it first. Vulkan
// (GpuSelectiveScanKernel.cpp, GpuSsdKernel.cpp): the same dispatches, each
// with its workgroup size and shared memory.
//
//===----------------------------------------------------------------------===//

#include "CpuStateSpaceKernels.h"
#include "DispatchUtils.h"
#include "GpuStateSpaceKernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKTILESTATESPACE
#include "ejk/Transforms/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

static LogicalResult notInDispatchForm(Operation *op) {
  return op->emitOpError("is not in dispatch form; run ejk-form-dispatches "
                         "first");
}

/// The dispatch arguments a selective scan reads and writes.
static FailureOr<CpuSelectiveScanBuffers> scanBuffers(SelectiveScanOp op) {
  CpuSelectiveScanBuffers buf;
  buf.u = bufferOf(op.getU());
  buf.delta = bufferOf(op.getDelta());
  buf.a = bufferOf(op.getA());
  buf.b = bufferOf(op.getB());
  buf.c = bufferOf(op.getC());
  buf.d = bufferOf(op.getD());
  buf.z = bufferOf(op.getZ());
  buf.deltaBias = bufferOf(op.getDeltaBias());
  buf.initialState = bufferOf(op.getInitialState());
  buf.y = destinationOf(op.getY());
  buf.finalState = destinationOf(op.getFinalState());
  if (!buf.u || !buf.delta || !buf.a || !buf.b || !buf.c || !buf.y ||
      (op.getD() && !buf.d) || (op.getZ() && !buf.z) ||
      (op.getDeltaBias() && !buf.deltaBias) ||
      (op.getInitialState() && !buf.initialState) ||
      (op.getFinalState() && !buf.finalState))
    return notInDispatchForm(op);
  return buf;
}

/// The dispatch arguments an SSD reads and writes (no scores yet).
static FailureOr<CpuSsdBuffers> ssdBuffers(SsdOp op) {
  CpuSsdBuffers buf;
  buf.x = bufferOf(op.getX());
  buf.dt = bufferOf(op.getDt());
  buf.a = bufferOf(op.getA());
  buf.b = bufferOf(op.getB());
  buf.c = bufferOf(op.getC());
  buf.d = bufferOf(op.getD());
  buf.z = bufferOf(op.getZ());
  buf.dtBias = bufferOf(op.getDtBias());
  buf.initialState = bufferOf(op.getInitialState());
  buf.y = destinationOf(op.getY());
  buf.finalState = destinationOf(op.getFinalState());
  if (!buf.x || !buf.dt || !buf.a || !buf.b || !buf.c || !buf.y ||
      (op.getD() && !buf.d) || (op.getZ() && !buf.z) ||
      (op.getDtBias() && !buf.dtBias) ||
      (op.getInitialState() && !buf.initialState) ||
      (op.getFinalState() && !buf.finalState))
    return notInDispatchForm(op);
  return buf;
}

/// Adds the dispatch `<dispatch>_scores` (grid `grid`, body from `build`
/// on (B, C, scores)) that fills a `scoresType` temporary from the SSD's B
/// and C, appends the scores to `dispatch`'s arguments (`buf.scores`) and
/// rewrites every call: allocate the scores, run the pre-pass, run the
/// scan, free them.
static FailureOr<func::FuncOp>
addScoresPrePass(func::FuncOp dispatch, ModuleOp module, SymbolTable &symbols,
                 CpuSsdBuffers &buf, MemRefType scoresType,
                 std::array<int64_t, 3> grid,
                 function_ref<void(OpBuilder &, Value, Value, Value)> build) {
  OpBuilder builder(dispatch);
  Location loc = dispatch.getLoc();
  auto scoresFn = func::FuncOp::create(
      builder, loc, (dispatch.getSymName() + "_scores").str(),
      builder.getFunctionType({buf.b.getType(), buf.c.getType(), scoresType},
                              {}));
  scoresFn.setPrivate();
  scoresFn->setAttr(kDispatchAttrName, builder.getUnitAttr());
  scoresFn->setAttr(kGridAttrName, gridAttr(builder, grid));
  symbols.insert(scoresFn);
  {
    Block *body = scoresFn.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockEnd(body);
    build(b, body->getArgument(0), body->getArgument(1), body->getArgument(2));
    func::ReturnOp::create(b, loc);
  }

  // The scan takes the scores as a new last argument.
  unsigned scoresIndex = dispatch.getNumArguments();
  if (failed(dispatch.insertArgument(scoresIndex, scoresType, {}, loc)))
    return failure();
  buf.scores = dispatch.getArgument(scoresIndex);
  unsigned bIndex = cast<BlockArgument>(buf.b).getArgNumber();
  unsigned cIndex = cast<BlockArgument>(buf.c).getArgNumber();

  rewriteCallers(
      module, dispatch, {scoresType},
      [&](OpBuilder &b, Location callLoc, DispatchOp call, ValueRange temps) {
        DispatchOp::create(b, callLoc, scoresFn.getSymName(),
                           ValueRange{call.getBuffers()[bIndex],
                                      call.getBuffers()[cIndex], temps[0]});
        SmallVector<Value> bindings(call.getBuffers());
        bindings.push_back(temps[0]);
        DispatchOp::create(b, callLoc, call.getCallee(), bindings);
      });
  return scoresFn;
}

/// Sets the attributes every Vulkan dispatch carries.
static void setVulkanAttrs(func::FuncOp dispatch, Builder &b,
                           std::array<int64_t, 3> grid, int64_t threads,
                           int64_t sharedBytes, int64_t flops, int64_t bytes) {
  dispatch->setAttr(kGridAttrName, gridAttr(b, grid));
  dispatch->setAttr(kWorkgroupSizeAttrName,
                    b.getDenseI64ArrayAttr({threads, 1, 1}));
  dispatch->setAttr(kSharedMemoryAttrName, b.getI64IntegerAttr(sharedBytes));
  dispatch->setAttr(kFlopsAttrName, b.getI64IntegerAttr(flops));
  dispatch->setAttr(kBytesAttrName, b.getI64IntegerAttr(bytes));
}

/// A selective scan as one Vulkan dispatch (GpuSelectiveScanKernel.cpp).
static LogicalResult tileSelectiveScanForVulkan(func::FuncOp dispatch,
                                                SelectiveScanOp op,
                                                const TargetInfo &target) {
  FailureOr<ConfigAttr> config = checkedConfig(op, target);
  if (failed(config))
    return failure();
  FailureOr<CpuSelectiveScanBuffers> buf = scanBuffers(op);
  if (failed(buf))
    return failure();
  std::optional<GpuScanLayout> layout =
      getGpuScanLayout(op, *config, target, llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  auto u = op.getU().getType();
  auto bType = op.getB().getType();
  GpuSelectiveScanPlan plan{u.getDimSize(0),
                            u.getDimSize(1),
                            u.getDimSize(2),
                            bType.getDimSize(2),
                            bType.getDimSize(3),
                            op.getDeltaSoftplus(),
                            *layout};
  Location loc = op.getLoc();
  Block &body = clearBody(dispatch);
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  buildGpuSelectiveScanBody(b, loc, plan, *buf);
  func::ReturnOp::create(b, loc);
  int64_t flops = 6 * plan.batch * plan.seq * plan.channels * plan.state;
  int64_t bytes = 0;
  for (Value buffer :
       {buf->u, buf->delta, buf->a, buf->b, buf->c, buf->d, buf->z,
        buf->deltaBias, buf->initialState, buf->y, buf->finalState})
    bytes += bytesOf(buffer);
  setVulkanAttrs(dispatch, b, plan.grid(), layout->threads, layout->sharedBytes,
                 flops, bytes);
  return success();
}

/// An SSD as two Vulkan dispatches (GpuSsdKernel.cpp): the C B^T scores
/// per group, then the scan.
static LogicalResult tileSsdForVulkan(func::FuncOp dispatch, SsdOp op,
                                      const TargetInfo &target, ModuleOp module,
                                      SymbolTable &symbols) {
  FailureOr<ConfigAttr> config = checkedConfig(op, target);
  if (failed(config))
    return failure();
  FailureOr<CpuSsdBuffers> found = ssdBuffers(op);
  if (failed(found))
    return failure();
  CpuSsdBuffers &buf = *found;
  std::optional<GpuSsdLayout> layout =
      getGpuSsdLayout(op, *config, target, llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  auto x = op.getX().getType();
  auto bType = op.getB().getType();
  GpuSsdPlan plan{x.getDimSize(0),     x.getDimSize(1),
                  x.getDimSize(2),     x.getDimSize(3),
                  bType.getDimSize(2), bType.getDimSize(3),
                  op.getDtSoftplus(),  *layout};
  Location loc = op.getLoc();
  int64_t q = layout->chunk;
  auto scoresType =
      MemRefType::get({plan.batch, plan.groups, plan.numChunks(), q, q},
                      Float32Type::get(op.getContext()));
  FailureOr<func::FuncOp> scoresFn = addScoresPrePass(
      dispatch, module, symbols, buf, scoresType, plan.scoresGrid(),
      [&](OpBuilder &b, Value bBuffer, Value cBuffer, Value scores) {
        buildGpuSsdScoresBody(b, loc, plan, bBuffer, cBuffer, scores);
      });
  if (failed(scoresFn))
    return failure();

  Block &body = clearBody(dispatch);
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  buildGpuSsdBody(b, loc, plan, buf);
  func::ReturnOp::create(b, loc);
  // As on the CPU: per head C St and the state update (2 L P N
  // multiply-adds) and the causal half of M X; per group C B^T.
  int64_t heads = plan.batch * plan.heads;
  int64_t scanFlops = heads * (2 * 2 * plan.seq * plan.headDim * plan.state +
                               plan.seq * (q + 1) * plan.headDim);
  int64_t scoresFlops =
      2 * plan.batch * plan.groups * plan.numChunks() * q * q * plan.state;
  int64_t bytes = 0;
  for (Value buffer : {buf.x, buf.dt, buf.a, buf.c, buf.d, buf.z, buf.dtBias,
                       buf.initialState, buf.y, buf.finalState, buf.scores})
    bytes += bytesOf(buffer);
  setVulkanAttrs(dispatch, b, plan.grid(), layout->threads, layout->sharedBytes,
                 scanFlops, bytes);
  setVulkanAttrs(*scoresFn, b, plan.scoresGrid(), layout->threads,
                 4 * 2 * q * layout->bcStride(), scoresFlops,
                 bytesOf(buf.b) + bytesOf(buf.c) + bytesOf(buf.scores));
  return success();
}

static LogicalResult tileSelectiveScan(func::FuncOp dispatch,
                                       SelectiveScanOp op,
                                       const TargetInfo &target) {
  FailureOr<ConfigAttr> config = checkedConfig(op, target);
  if (failed(config))
    return failure();
  auto u = op.getU().getType();
  auto bType = op.getB().getType();
  CpuSelectiveScanPlan plan;
  plan.batch = u.getDimSize(0);
  plan.seq = u.getDimSize(1);
  plan.channels = u.getDimSize(2);
  plan.groups = bType.getDimSize(2);
  plan.state = bType.getDimSize(3);
  plan.softplus = op.getDeltaSoftplus();
  plan.blockD = *config->lookup("block_d");
  plan.chunkL = *config->lookup("chunk_l");
  plan.lanes = target.f32Lanes();

  FailureOr<CpuSelectiveScanBuffers> found = scanBuffers(op);
  if (failed(found))
    return failure();
  CpuSelectiveScanBuffers &buf = *found;

  Location loc = op.getLoc();
  Block &body = clearBody(dispatch);
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  buildCpuSelectiveScanBody(b, loc, plan, buf);
  func::ReturnOp::create(b, loc);
  dispatch->setAttr(kGridAttrName, gridAttr(b, plan.grid()));
  // Per element (b, t, d, n): dt * A, dtu * B, and the two multiply-adds
  // of the state update and the output; the exp is not counted.
  int64_t flops = 6 * plan.batch * plan.seq * plan.channels * plan.state;
  int64_t bytes = 0;
  for (Value buffer : {buf.u, buf.delta, buf.a, buf.b, buf.c, buf.d, buf.z,
                       buf.deltaBias, buf.initialState, buf.y, buf.finalState})
    bytes += bytesOf(buffer);
  dispatch->setAttr(kFlopsAttrName, b.getI64IntegerAttr(flops));
  dispatch->setAttr(kBytesAttrName, b.getI64IntegerAttr(bytes));
  return success();
}

static LogicalResult tileSsd(func::FuncOp dispatch, SsdOp op,
                             const TargetInfo &target, ModuleOp module,
                             SymbolTable &symbols) {
  FailureOr<ConfigAttr> config = checkedConfig(op, target);
  if (failed(config))
    return failure();
  auto x = op.getX().getType();
  auto bType = op.getB().getType();
  CpuSsdPlan plan;
  plan.batch = x.getDimSize(0);
  plan.seq = x.getDimSize(1);
  plan.heads = x.getDimSize(2);
  plan.headDim = x.getDimSize(3);
  plan.groups = bType.getDimSize(2);
  plan.state = bType.getDimSize(3);
  plan.softplus = op.getDtSoftplus();
  plan.chunk = *config->lookup("chunk_size");
  plan.blockP = *config->lookup("block_p");
  plan.blockN = *config->lookup("block_n");
  plan.lanes = target.f32Lanes();

  FailureOr<CpuSsdBuffers> found = ssdBuffers(op);
  if (failed(found))
    return failure();
  CpuSsdBuffers &buf = *found;

  OpBuilder builder(dispatch);
  Location loc = op.getLoc();
  auto scoresType = MemRefType::get({plan.batch, plan.groups, plan.numChunks(),
                                     plan.chunk, plan.paddedChunk()},
                                    builder.getF32Type());
  FailureOr<func::FuncOp> scoresFn = addScoresPrePass(
      dispatch, module, symbols, buf, scoresType, plan.scoresGrid(),
      [&](OpBuilder &b, Value bBuffer, Value cBuffer, Value scores) {
        buildCpuSsdScoresBody(b, loc, plan, bBuffer, cBuffer, scores);
      });
  if (failed(scoresFn))
    return failure();

  Block &body = clearBody(dispatch);
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  buildCpuSsdBody(b, loc, plan, buf);
  func::ReturnOp::create(b, loc);
  dispatch->setAttr(kGridAttrName, gridAttr(b, plan.scanGrid()));

  // Work of the chunked algorithm: per head, C_t St and the state update
  // (2 L P N multiply-adds) and the causal half of M X; per group, C B^T.
  int64_t heads = plan.batch * plan.heads;
  int64_t scanFlops = heads * (2 * 2 * plan.seq * plan.headDim * plan.state +
                               plan.seq * (plan.chunk + 1) * plan.headDim);
  int64_t scoresFlops = 2 * plan.batch * plan.groups * plan.numChunks() *
                        plan.chunk * plan.paddedChunk() * plan.state;
  int64_t bytes = 0;
  for (Value buffer : {buf.x, buf.dt, buf.a, buf.c, buf.d, buf.z, buf.dtBias,
                       buf.initialState, buf.y, buf.finalState, buf.scores})
    bytes += bytesOf(buffer);
  dispatch->setAttr(kFlopsAttrName, b.getI64IntegerAttr(scanFlops));
  dispatch->setAttr(kBytesAttrName, b.getI64IntegerAttr(bytes));
  (*scoresFn)->setAttr(kFlopsAttrName, b.getI64IntegerAttr(scoresFlops));
  (*scoresFn)->setAttr(kBytesAttrName,
                       b.getI64IntegerAttr(bytesOf(buf.b) + bytesOf(buf.c) +
                                           bytesOf(buf.scores)));
  return success();
}

namespace {
struct TileStateSpacePass
    : public mlir::ejk::impl::EjkTileStateSpaceBase<TileStateSpacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<func::FuncOp, Operation *>> work;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(kDispatchAttrName))
        continue;
      func.walk([&](Operation *op) {
        if (isa<SelectiveScanOp, SsdOp>(op))
          work.emplace_back(func, op);
      });
    }
    if (work.empty())
      return;
    FailureOr<TargetInfo> target = getModuleTarget(module);
    if (failed(target))
      return signalPassFailure();
    SymbolTable symbols(module);
    for (auto [func, op] : work) {
      LogicalResult result = failure();
      if (target->isVulkan())
        result = isa<SsdOp>(op) ? tileSsdForVulkan(func, cast<SsdOp>(op),
                                                   *target, module, symbols)
                                : tileSelectiveScanForVulkan(
                                      func, cast<SelectiveScanOp>(op), *target);
      else
        result =
            isa<SsdOp>(op)
                ? tileSsd(func, cast<SsdOp>(op), *target, module, symbols)
                : tileSelectiveScan(func, cast<SelectiveScanOp>(op), *target);
      if (failed(result))
        return signalPassFailure();
    }
  }
};
} // namespace
