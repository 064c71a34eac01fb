//===- ScoresPrePass.h - the SSD's C B^T pre-pass dispatch ------*- C++ -*-===//

#ifndef EJK_OPS_STATESPACE_SCORESPREPASS_H
#define EJK_OPS_STATESPACE_SCORESPREPASS_H

#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/StateSpace/Problem.h"

namespace mlir::ejk {

/// Adds the dispatch `<dispatch>_scores` (grid `grid`, body from `build`
/// on (B, C, scores)) that fills a `scoresType` temporary from the SSD's B
/// and C, appends the scores to the dispatch's arguments (`buf.scores`) and
/// rewrites every call: allocate the scores, run the pre-pass, run the
/// scan, free them. Both targets run an SSD this way.
inline FailureOr<func::FuncOp>
addScoresPrePass(DispatchRewriter &rewriter, SsdBuffers &buf,
                 MemRefType scoresType, Grid grid,
                 function_ref<void(OpBuilder &, Location, ValueRange)> build) {
  func::FuncOp scoresFn = rewriter.addDispatch(
      "scores", {buf.b.getType(), buf.c.getType(), scoresType}, grid, build);
  FailureOr<SmallVector<Value>> added = rewriter.appendArguments({scoresType});
  if (failed(added))
    return failure();
  buf.scores = (*added)[0];
  unsigned bIndex = DispatchRewriter::argumentIndex(buf.b);
  unsigned cIndex = DispatchRewriter::argumentIndex(buf.c);
  rewriter.rewriteCallers({scoresType}, [&](OpBuilder &b, Location loc,
                                            DispatchOp call, ValueRange temps) {
    DispatchOp::create(b, loc, scoresFn.getSymName(),
                       ValueRange{call.getBuffers()[bIndex],
                                  call.getBuffers()[cIndex], temps[0]});
    SmallVector<Value> bindings(call.getBuffers());
    bindings.push_back(temps[0]);
    DispatchOp::create(b, loc, call.getCallee(), bindings);
  });
  return scoresFn;
}

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_SCORESPREPASS_H
