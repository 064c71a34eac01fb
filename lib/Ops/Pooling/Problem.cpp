//===- Problem.cpp - reading mean pooling ---------------------------------===//

#include "ejk/Ops/Pooling/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

/// The problem of a token tensor `tokens` pooled into `pooled`.
static MeanPoolingProblem readProblem(RankedTensorType tokens,
                                      RankedTensorType pooled, bool packed) {
  MeanPoolingProblem p;
  p.batch = pooled.getDimSize(0);
  p.hidden = pooled.getDimSize(1);
  p.packed = packed;
  p.seq = packed ? 0 : tokens.getDimSize(1);
  p.totalTokens = packed ? tokens.getDimSize(0) : 0;
  p.elementType = tokens.getElementType();
  return p;
}

MeanPoolingProblem mlir::ejk::readMeanPoolingProblem(MeanPoolingOp op) {
  return readProblem(op.getInput().getType(), op.getOutput().getType(),
                     op.getCuSeqlens() != nullptr);
}

MeanPoolingProblem mlir::ejk::readMeanPoolingGradProblem(MeanPoolingGradOp op) {
  return readProblem(op.getGradInput().getType(), op.getGradOutput().getType(),
                     op.getCuSeqlens() != nullptr);
}

MeanPoolingBuffers
mlir::ejk::findMeanPoolingBuffers(MeanPoolingOp op,
                                  DispatchRewriter &rewriter) {
  MeanPoolingBuffers buf;
  buf.tokens = rewriter.buffer(op.getInput());
  buf.cuSeqlens = rewriter.buffer(op.getCuSeqlens());
  buf.pooled = rewriter.destination(op.getOutput());
  return buf;
}

MeanPoolingBuffers
mlir::ejk::findMeanPoolingGradBuffers(MeanPoolingGradOp op,
                                      DispatchRewriter &rewriter) {
  MeanPoolingBuffers buf;
  buf.pooled = rewriter.buffer(op.getGradOutput());
  buf.cuSeqlens = rewriter.buffer(op.getCuSeqlens());
  buf.tokens = rewriter.destination(op.getGradInput());
  return buf;
}
