//===- Tile.cpp - state-space dispatches on the CPU -----------------------===//
//
// A selective scan is one dispatch (SelectiveScanKernel.cpp); an SSD is a
// pre-pass that computes the per-chunk C B^T scores once per group, then
// the scan (SsdKernel.cpp).
//
//===----------------------------------------------------------------------===//

#include "StateSpace/Cpu/Kernels.h"
#include "StateSpace/Cpu/StateSpace.h"
#include "StateSpace/ScoresPrePass.h"

#include "ejk/Ops/StateSpace/Config.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult CpuSelectiveScan::tile(SelectiveScanOp op, ConfigAttr attr,
                                     DispatchRewriter &rewriter) {
  SelectiveScanConfig config = *SelectiveScanConfig::read(attr, llvm::nulls());
  CpuSelectiveScanPlan plan;
  static_cast<SelectiveScanProblem &>(plan) = readSelectiveScanProblem(op);
  plan.blockD = config.blockD;
  plan.chunkL = config.chunkL;
  plan.lanes = rewriter.target().f32Lanes();

  SelectiveScanBuffers buf = findSelectiveScanBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildCpuSelectiveScanBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setWork(dispatch, selectiveScanFlops(plan),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}

LogicalResult CpuSsd::tile(SsdOp op, ConfigAttr attr,
                           DispatchRewriter &rewriter) {
  SsdConfig config = *SsdConfig::read(attr, llvm::nulls());
  CpuSsdPlan plan;
  static_cast<SsdProblem &>(plan) = readSsdProblem(op);
  plan.chunk = config.chunkSize;
  plan.blockP = config.blockP;
  plan.blockN = config.blockN;
  plan.lanes = rewriter.target().f32Lanes();

  SsdBuffers buf = findSsdBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  auto scoresType = MemRefType::get({plan.batch, plan.groups, plan.numChunks(),
                                     plan.chunk, plan.paddedChunk()},
                                    Float32Type::get(op.getContext()));
  FailureOr<func::FuncOp> scoresFn = addScoresPrePass(
      rewriter, buf, scoresType, plan.scoresGrid(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildCpuSsdScoresBody(b, loc, plan, args[0], args[1], args[2]);
      });
  if (failed(scoresFn))
    return failure();

  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildCpuSsdBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.scanGrid());
  DispatchRewriter::setWork(dispatch, ssdScanFlops(plan, plan.chunk),
                            DispatchRewriter::bytesOf(buf.scanned()));
  DispatchRewriter::setWork(
      *scoresFn, ssdScoresFlops(plan, plan.chunk, plan.paddedChunk()),
      DispatchRewriter::bytesOf(buf.prePass()));
  return success();
}
