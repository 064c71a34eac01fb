//===- DeltaProblem.cpp - reading ejk.delta_attention ---------------------===//

#include "ejk/Ops/Linear/DeltaProblem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

DeltaProblem mlir::ejk::readDeltaProblem(DeltaAttentionOp op) {
  auto q = op.getQuery().getType();
  auto k = op.getKey().getType();
  auto v = op.getValue().getType();
  DeltaProblem p;
  p.batch = q.getDimSize(0);
  p.seq = q.getDimSize(1);
  p.heads = q.getDimSize(2);
  p.dimK = q.getDimSize(3);
  p.kvHeads = k.getDimSize(2);
  p.dimV = v.getDimSize(3);
  p.packed = static_cast<bool>(op.getCuSeqlens());
  p.numSeqs =
      p.packed ? op.getCuSeqlens().getType().getDimSize(0) - 1 : p.batch;
  p.decay = !op.getDecay()                           ? DeltaDecay::None
            : op.getDecay().getType().getRank() == 4 ? DeltaDecay::PerKey
                                                     : DeltaDecay::PerHead;
  p.l2Norm = op.getUseQkL2norm();
  p.reverse = op.getReverse();
  p.scale = op.getEffectiveScale();
  return p;
}

DeltaBuffers mlir::ejk::findDeltaBuffers(DeltaAttentionOp op,
                                         DispatchRewriter &rewriter) {
  DeltaBuffers buf;
  buf.query = rewriter.buffer(op.getQuery());
  buf.key = rewriter.buffer(op.getKey());
  buf.value = rewriter.buffer(op.getValue());
  buf.beta = rewriter.buffer(op.getBeta());
  buf.decay = rewriter.buffer(op.getDecay());
  buf.initialState = rewriter.buffer(op.getInitialState());
  buf.cuSeqlens = rewriter.buffer(op.getCuSeqlens());
  buf.output = rewriter.destination(op.getOutput());
  buf.finalState = rewriter.destination(op.getFinalState());
  return buf;
}
