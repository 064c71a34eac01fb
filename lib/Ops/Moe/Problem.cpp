//===- Problem.cpp - reading the grouped matmuls --------------------------===//

#include "ejk/Ops/Moe/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

GroupedMatmulProblem mlir::ejk::readGroupedMatmulProblem(GroupedMatmulOp op) {
  auto lhs = op.getLhs().getType();
  auto rhs = op.getRhs().getType();
  bool transposed = op.getTransposeRhs();
  GroupedMatmulProblem p;
  p.rows = lhs.getDimSize(0);
  p.k = lhs.getDimSize(1);
  p.n = rhs.getDimSize(transposed ? 1 : 2);
  p.localGroups = rhs.getDimSize(0);
  p.numGroups = op.getGroupSizes().getType().getDimSize(0);
  p.transposeRhs = transposed;
  p.hasOffset = op.getGroupOffset() != nullptr;
  p.accumulate = op.getExistingOut() != nullptr;
  p.inputType = lhs.getElementType();
  p.outputType = op.getOut().getType().getElementType();
  p.rhsType = rhs.getElementType();
  return p;
}

GroupedMatmulProblem
mlir::ejk::readTransposedGroupedMatmulProblem(TransposedGroupedMatmulOp op) {
  auto lhs = op.getLhs().getType();
  auto out = op.getOut().getType();
  GroupedMatmulProblem p;
  p.rows = lhs.getDimSize(0);
  p.k = lhs.getDimSize(1);
  p.n = out.getDimSize(2);
  p.localGroups = out.getDimSize(0);
  p.numGroups = op.getGroupSizes().getType().getDimSize(0);
  p.transposeRhs = false;
  p.hasOffset = op.getGroupOffset() != nullptr;
  p.accumulate = op.getExistingOut() != nullptr;
  p.inputType = lhs.getElementType();
  p.outputType = out.getElementType();
  p.rhsType = p.inputType;
  return p;
}

template <typename OpT>
static GroupedMatmulBuffers findBuffers(OpT op, DispatchRewriter &rewriter) {
  GroupedMatmulBuffers buf;
  buf.lhs = rewriter.buffer(op.getLhs());
  buf.rhs = rewriter.buffer(op.getRhs());
  buf.groupSizes = rewriter.buffer(op.getGroupSizes());
  buf.groupOffset = rewriter.buffer(op.getGroupOffset());
  buf.existingOut = rewriter.buffer(op.getExistingOut());
  buf.out = rewriter.destination(op.getOut());
  return buf;
}

GroupedMatmulBuffers
mlir::ejk::findGroupedMatmulBuffers(GroupedMatmulOp op,
                                    DispatchRewriter &rewriter) {
  GroupedMatmulBuffers buf = findBuffers(op, rewriter);
  buf.rhsScales = rewriter.buffer(op.getRhsScales());
  return buf;
}

GroupedMatmulBuffers
mlir::ejk::findTransposedGroupedMatmulBuffers(TransposedGroupedMatmulOp op,
                                              DispatchRewriter &rewriter) {
  return findBuffers(op, rewriter);
}
