//===- Tile.cpp - state-space dispatches on Vulkan ------------------------===//
//
// The same dispatches as on the CPU (a scan; an SSD's scores pre-pass and
// scan), each with its workgroup size and shared memory from the layouts.
//
//===----------------------------------------------------------------------===//

#include "StateSpace/ScoresPrePass.h"
#include "StateSpace/Vulkan/Kernels.h"
#include "StateSpace/Vulkan/StateSpace.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult VulkanSelectiveScan::tile(SelectiveScanOp op, ConfigAttr attr,
                                        DispatchRewriter &rewriter) {
  SelectiveScanBuffers buf = findSelectiveScanBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<VulkanScanLayout> layout =
      getVulkanScanLayout(op, attr, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  VulkanSelectiveScanPlan plan;
  static_cast<SelectiveScanProblem &>(plan) = readSelectiveScanProblem(op);
  plan.layout = *layout;

  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildVulkanSelectiveScanBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  DispatchRewriter::setWork(dispatch, selectiveScanFlops(plan),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}

LogicalResult VulkanSsd::tile(SsdOp op, ConfigAttr attr,
                              DispatchRewriter &rewriter) {
  SsdBuffers buf = findSsdBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<VulkanSsdLayout> layout =
      getVulkanSsdLayout(op, attr, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  VulkanSsdPlan plan;
  static_cast<SsdProblem &>(plan) = readSsdProblem(op);
  plan.layout = *layout;

  int64_t q = layout->chunk;
  auto scoresType =
      MemRefType::get({plan.batch, plan.groups, plan.numChunks(), q, q},
                      Float32Type::get(op.getContext()));
  FailureOr<func::FuncOp> scoresFn = addScoresPrePass(
      rewriter, buf, scoresType, plan.scoresGrid(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildVulkanSsdScoresBody(b, loc, plan, args[0], args[1], args[2]);
      });
  if (failed(scoresFn))
    return failure();

  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildVulkanSsdBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  DispatchRewriter::setWork(dispatch, ssdScanFlops(plan, q),
                            DispatchRewriter::bytesOf(buf.scanned()));
  DispatchRewriter::setGrid(*scoresFn, plan.scoresGrid());
  DispatchRewriter::setVulkanLaunch(*scoresFn, layout->threads,
                                    4 * 2 * q * layout->bcStride());
  DispatchRewriter::setWork(*scoresFn, ssdScoresFlops(plan, q, q),
                            DispatchRewriter::bytesOf(buf.prePass()));
  return success();
}
