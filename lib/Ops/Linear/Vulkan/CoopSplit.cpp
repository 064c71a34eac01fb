//===- CoopSplit.cpp - simple gla as a state pass and parallel outputs ----===//
//
// The two dispatches of CoopSplit.h around the states temporary: the state
// pass (CoopSplitStates.cpp) as a dispatch before the op's own, whose body
// becomes the outputs (CoopSplitOutputs.cpp); their launch sizes and work.
// The layout rules are in CoopSplitLayout.cpp.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopSplit.h"
#include "Linear/Vulkan/ChunkDispatches.h"
#include "Linear/Vulkan/ChunkParallel.h"
#include "Linear/Vulkan/CoopSplitKernel.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::gla_split;

namespace {

SplitTemporaries remapTemporaries(ArrayRef<Value> temps) {
  return SplitTemporaries{temps[0]};
}

} // namespace

LogicalResult mlir::ejk::tileVulkanGlaCoopSplit(Operation *op,
                                                const GlaProblem &p,
                                                const VulkanGlaSplitLayout &l,
                                                const GlaBuffers &buf,
                                                DispatchRewriter &rewriter) {
  MLIRContext *context = rewriter.dispatch().getContext();
  int64_t slots = p.batch * (p.seq / l.chunk);
  // The states in the input type's 16 bits (f16-typed: only word views
  // read and write them).
  SmallVector<MemRefType> tempTypes = {MemRefType::get(
      {slots, p.heads, p.dimV, p.dimK}, Float16Type::get(context))};
  auto tiling = beginChunkTiling(rewriter, tempTypes, p, l, buf,
                                 remapGlaBuffers, remapTemporaries);
  if (failed(tiling))
    return failure();
  bool bf16 = cast<MemRefType>(buf.query.getType()).getElementType().isBF16();
  func::FuncOp states =
      rewriter.addDispatch("states", tiling->argTypes,
                           {p.dimV / l.blockV * l.keyBlocks(), p.heads,
                            std::max<int64_t>(1, p.batch)},
                           tiling->build(buildGlaSplitStates));
  DispatchRewriter::setVulkanLaunch(states, l.stateThreads, l.stateSharedBytes);
  DispatchRewriter::setWork(
      states, p.steps() * p.heads * 2 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.key, buf.value}) +
          DispatchRewriter::bytesOf(tiling->mainTemps.states));
  if (bf16)
    DispatchRewriter::setBF16Matrices(states);
  dispatchInOrder(rewriter, tiling->tempTypes, {states});

  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildGlaSplitOutputs(b, loc, p, l, buf, tiling->mainTemps);
  rewriter.finish(b);
  func::FuncOp outputs = rewriter.dispatch();
  DispatchRewriter::setGrid(outputs, {slots, p.heads, p.dimV / l.outBlockV});
  DispatchRewriter::setVulkanLaunch(outputs, l.kThreads, l.outputSharedBytes);
  DispatchRewriter::setWork(
      outputs, glaFlops(p, l.chunk) - p.steps() * p.heads * 2 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.query, buf.key, buf.value, buf.output}) +
          DispatchRewriter::bytesOf(tiling->mainTemps.states));
  if (bf16)
    DispatchRewriter::setBF16Matrices(outputs);
  return success();
}
