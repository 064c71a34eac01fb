//===- Problem.cpp - reading the state-space ops --------------------------===//

#include "ejk/Ops/StateSpace/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

SelectiveScanProblem mlir::ejk::readSelectiveScanProblem(SelectiveScanOp op) {
  auto u = op.getU().getType();
  auto b = op.getB().getType();
  return {u.getDimSize(0), u.getDimSize(1), u.getDimSize(2),
          b.getDimSize(2), b.getDimSize(3), op.getDeltaSoftplus()};
}

SsdProblem mlir::ejk::readSsdProblem(SsdOp op) {
  auto x = op.getX().getType();
  auto b = op.getB().getType();
  return {x.getDimSize(0), x.getDimSize(1), x.getDimSize(2),   x.getDimSize(3),
          b.getDimSize(2), b.getDimSize(3), op.getDtSoftplus()};
}

SelectiveScanBuffers
mlir::ejk::findSelectiveScanBuffers(SelectiveScanOp op,
                                    DispatchRewriter &rewriter) {
  SelectiveScanBuffers buf;
  buf.u = rewriter.buffer(op.getU());
  buf.delta = rewriter.buffer(op.getDelta());
  buf.a = rewriter.buffer(op.getA());
  buf.b = rewriter.buffer(op.getB());
  buf.c = rewriter.buffer(op.getC());
  buf.d = rewriter.buffer(op.getD());
  buf.z = rewriter.buffer(op.getZ());
  buf.deltaBias = rewriter.buffer(op.getDeltaBias());
  buf.initialState = rewriter.buffer(op.getInitialState());
  buf.y = rewriter.destination(op.getY());
  buf.finalState = rewriter.destination(op.getFinalState());
  return buf;
}

SsdBuffers mlir::ejk::findSsdBuffers(SsdOp op, DispatchRewriter &rewriter) {
  SsdBuffers buf;
  buf.x = rewriter.buffer(op.getX());
  buf.dt = rewriter.buffer(op.getDt());
  buf.a = rewriter.buffer(op.getA());
  buf.b = rewriter.buffer(op.getB());
  buf.c = rewriter.buffer(op.getC());
  buf.d = rewriter.buffer(op.getD());
  buf.z = rewriter.buffer(op.getZ());
  buf.dtBias = rewriter.buffer(op.getDtBias());
  buf.initialState = rewriter.buffer(op.getInitialState());
  buf.y = rewriter.destination(op.getY());
  buf.finalState = rewriter.destination(op.getFinalState());
  return buf;
}
