//===- Tile.cpp - grouped-matmul dispatches on Vulkan ---------------------===//
//
// One dispatch per op, no pre-pass: each workgroup builds its share of the
// work list itself (Moe/Vulkan/Kernels.h); the portable or the
// cooperative-matrix tile product, as the layout decides.
//
//===----------------------------------------------------------------------===//

#include "Moe/Vulkan/GroupedMatmul.h"
#include "Moe/Vulkan/Kernels.h"

using namespace mlir;
using namespace mlir::ejk;

template <typename OpT>
static LogicalResult tileOp(OpT op, ConfigAttr attr, DispatchRewriter &rewriter,
                            const GroupedMatmulBuffers &buf,
                            const GroupedMatmulProblem &problem,
                            bool transposed) {
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<MoeVulkanLayout> layout =
      getMoeVulkanLayout(op, attr, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  MoeVulkanPlan plan;
  static_cast<GroupedMatmulProblem &>(plan) = problem;
  plan.layout = *layout;

  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  if (transposed)
    buildVulkanTransposedGroupedMatmulBody(b, loc, plan, buf);
  else
    buildVulkanGroupedMatmulBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, transposed ? plan.transposedGrid()
                                                 : plan.groupedGrid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  // bf16 operands reach the cooperative matrices as staged bits.
  if (layout->cooperative && problem.inputType.isBF16())
    DispatchRewriter::setBF16Matrices(dispatch);
  DispatchRewriter::setWork(dispatch, groupedMatmulFlops(plan),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}

LogicalResult VulkanGroupedMatmul::tile(GroupedMatmulOp op, ConfigAttr attr,
                                        DispatchRewriter &rewriter) {
  GroupedMatmulBuffers buf = findGroupedMatmulBuffers(op, rewriter);
  return tileOp(op, attr, rewriter, buf, readGroupedMatmulProblem(op),
                /*transposed=*/false);
}

LogicalResult VulkanTransposedGroupedMatmul::tile(TransposedGroupedMatmulOp op,
                                                  ConfigAttr attr,
                                                  DispatchRewriter &rewriter) {
  GroupedMatmulBuffers buf = findTransposedGroupedMatmulBuffers(op, rewriter);
  return tileOp(op, attr, rewriter, buf, readTransposedGroupedMatmulProblem(op),
                /*transposed=*/true);
}
