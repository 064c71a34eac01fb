//===- Tile.cpp - grouped matmul dispatches on the CPU --------------------===//
//
// Each op is one dispatch (GroupedMatmulKernel.cpp,
// TransposedGroupedMatmulKernel.cpp): the packing of rhs panels happens
// inside the workgroups, in L2, so no temporary is needed.
//
//===----------------------------------------------------------------------===//

#include "Moe/Cpu/GroupedMatmul.h"
#include "Moe/Cpu/Kernels.h"

#include "ejk/Ops/Moe/Config.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult CpuGroupedMatmul::tile(GroupedMatmulOp op, ConfigAttr attr,
                                     DispatchRewriter &rewriter) {
  GroupedMatmulConfig config = *GroupedMatmulConfig::read(attr, llvm::nulls());
  CpuGroupedMatmulPlan plan;
  static_cast<GroupedMatmulProblem &>(plan) = readGroupedMatmulProblem(op);
  plan.blockM = config.blockM;
  plan.blockN = config.blockN;
  plan.blockK = config.blockK;
  plan.lanes = rewriter.target().f32Lanes();

  GroupedMatmulBuffers buf = findGroupedMatmulBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildCpuGroupedMatmulBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setWork(dispatch, groupedMatmulFlops(plan),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}

LogicalResult CpuTransposedGroupedMatmul::tile(TransposedGroupedMatmulOp op,
                                               ConfigAttr attr,
                                               DispatchRewriter &rewriter) {
  GroupedMatmulConfig config = *GroupedMatmulConfig::read(attr, llvm::nulls());
  CpuTransposedGroupedMatmulPlan plan;
  static_cast<GroupedMatmulProblem &>(plan) =
      readTransposedGroupedMatmulProblem(op);
  plan.blockM = config.blockM;
  plan.blockN = config.blockN;
  plan.blockK = config.blockK;
  plan.lanes = rewriter.target().f32Lanes();

  GroupedMatmulBuffers buf = findTransposedGroupedMatmulBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildCpuTransposedGroupedMatmulBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setWork(dispatch, groupedMatmulFlops(plan),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}
