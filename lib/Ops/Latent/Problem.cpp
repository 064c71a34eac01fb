//===- Problem.cpp - reading latent attention -----------------------------===//

#include "ejk/Ops/Latent/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

MlaProblem mlir::ejk::readMlaProblem(Operation *operation) {
  MlaProblem p;
  if (auto op = dyn_cast<MlaOp>(operation)) {
    RankedTensorType ql = op.getQLatent().getType();
    p.batch = ql.getDimSize(0);
    p.seqQ = ql.getDimSize(1);
    p.numHeads = ql.getDimSize(2);
    p.latentDim = ql.getDimSize(3);
    p.ropeDim = op.getQRope().getType().getDimSize(3);
    p.seqK = op.getKvLatent().getType().getDimSize(1);
    p.causal = op.getCausal();
    p.softmaxScale = op.getEffectiveSoftmaxScale();
    p.hasLse = op.getLse() != nullptr;
    p.elementType = ql.getElementType();
    return p;
  }
  auto op = cast<PagedMlaOp>(operation);
  RankedTensorType ql = op.getQLatent().getType();
  RankedTensorType cache = op.getKvCache().getType();
  p.paged = true;
  p.numTokens = ql.getDimSize(0);
  p.numHeads = ql.getDimSize(1);
  p.latentDim = ql.getDimSize(2);
  p.ropeDim = op.getQRope().getType().getDimSize(2);
  p.numPages = cache.getDimSize(0);
  p.pageSize = cache.getDimSize(1);
  p.numSeqs = op.getContextLens().getType().getDimSize(0);
  p.maxPagesPerSeq = op.getBlockTables().getType().getDimSize(1);
  p.causal = true;
  p.softmaxScale = op.getEffectiveSoftmaxScale();
  p.hasLse = op.getLse() != nullptr;
  p.elementType = ql.getElementType();
  return p;
}

MlaBuffers mlir::ejk::findMlaBuffers(Operation *operation,
                                     DispatchRewriter &rewriter) {
  MlaBuffers buf;
  if (auto op = dyn_cast<MlaOp>(operation)) {
    buf.qLatent = rewriter.buffer(op.getQLatent());
    buf.qRope = rewriter.buffer(op.getQRope());
    buf.kvLatent = rewriter.buffer(op.getKvLatent());
    buf.kRope = rewriter.buffer(op.getKRope());
    buf.output = rewriter.destination(op.getOutput());
    buf.lse = rewriter.destination(op.getLse());
    return buf;
  }
  auto op = cast<PagedMlaOp>(operation);
  buf.qLatent = rewriter.buffer(op.getQLatent());
  buf.qRope = rewriter.buffer(op.getQRope());
  buf.kvCache = rewriter.buffer(op.getKvCache());
  buf.contextLens = rewriter.buffer(op.getContextLens());
  buf.blockTables = rewriter.buffer(op.getBlockTables());
  buf.queryStartLoc = rewriter.buffer(op.getQueryStartLoc());
  buf.output = rewriter.destination(op.getOutput());
  buf.lse = rewriter.destination(op.getLse());
  return buf;
}

int64_t mlir::ejk::mlaFlops(const MlaProblem &p) {
  return 2 * p.rows() * p.numHeads * p.maxContext() *
         (2 * p.latentDim + p.ropeDim);
}

int64_t mlir::ejk::mlaCacheBytes(const MlaProblem &p) {
  int64_t elementBytes = p.elementType.getIntOrFloatBitWidth() / 8;
  int64_t queries = p.rows() * p.numHeads * (2 * p.latentDim + p.ropeDim);
  return p.rows() * p.maxContext() * p.cacheRowBytes() + queries * elementBytes;
}
