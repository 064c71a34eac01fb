//===- Problem.cpp - reading the linear-recurrent ops ---------------------===//

#include "ejk/Ops/Linear/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

GlaProblem mlir::ejk::readGlaProblem(GlaOp op) {
  auto q = op.getQuery().getType();
  auto k = op.getKey().getType();
  auto v = op.getValue().getType();
  GlaProblem p;
  p.batch = q.getDimSize(0);
  p.seq = q.getDimSize(1);
  p.heads = q.getDimSize(2);
  p.dimK = q.getDimSize(3);
  p.kvHeads = k.getDimSize(2);
  p.dimV = v.getDimSize(3);
  p.packed = static_cast<bool>(op.getCuSeqlens());
  p.numSeqs =
      p.packed ? op.getCuSeqlens().getType().getDimSize(0) - 1 : p.batch;
  p.hasG = static_cast<bool>(op.getG());
  p.hasGamma = static_cast<bool>(op.getGGamma());
  p.reverse = op.getReverse();
  p.scale = op.getEffectiveScale();
  return p;
}

GlaBuffers mlir::ejk::findGlaBuffers(GlaOp op, DispatchRewriter &rewriter) {
  GlaBuffers buf;
  buf.query = rewriter.buffer(op.getQuery());
  buf.key = rewriter.buffer(op.getKey());
  buf.value = rewriter.buffer(op.getValue());
  buf.g = rewriter.buffer(op.getG());
  buf.gGamma = rewriter.buffer(op.getGGamma());
  buf.initialState = rewriter.buffer(op.getInitialState());
  buf.cuSeqlens = rewriter.buffer(op.getCuSeqlens());
  buf.output = rewriter.destination(op.getOutput());
  buf.finalState = rewriter.destination(op.getFinalState());
  return buf;
}
