//===- Problem.cpp - reading paged attention ------------------------------===//

#include "ejk/Ops/Paged/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Attention/Problem.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

PagedAttentionProblem
mlir::ejk::readPagedAttentionProblem(PagedAttentionOp op) {
  PagedAttentionProblem p;
  RankedTensorType query = op.getQuery().getType();
  RankedTensorType cache = op.getKeyCache().getType();
  p.batch = query.getDimSize(0);
  p.numHeads = query.getDimSize(1);
  p.headDim = query.getDimSize(2);
  p.tokenMajor = op.isTokenMajor();
  p.numPages = cache.getDimSize(0);
  p.pageSize = cache.getDimSize(p.tokenMajor ? 1 : 2);
  p.numKvHeads = cache.getDimSize(p.tokenMajor ? 2 : 1);
  p.maxPagesPerSeq = op.getBlockTables().getType().getDimSize(1);
  p.softmaxScale = op.getEffectiveSoftmaxScale();
  if (FloatAttr scale = op.getKScaleAttr())
    p.kScale = scale.getValueAsDouble();
  if (FloatAttr scale = op.getVScaleAttr())
    p.vScale = scale.getValueAsDouble();
  if (FloatAttr cap = op.getLogitsSoftCapAttr())
    p.softCap = cap.getValueAsDouble();
  if (std::optional<uint64_t> window = op.getSlidingWindow())
    p.window = static_cast<int64_t>(*window);
  p.hasLse = op.getLse() != nullptr;
  p.queryType = query.getElementType();
  p.cacheType = cache.getElementType();
  return p;
}

PagedAttentionBuffers
mlir::ejk::findPagedAttentionBuffers(PagedAttentionOp op,
                                     DispatchRewriter &rewriter) {
  PagedAttentionBuffers buf;
  buf.query = rewriter.buffer(op.getQuery());
  buf.keyCache = rewriter.buffer(op.getKeyCache());
  buf.valueCache = rewriter.buffer(op.getValueCache());
  buf.contextLens = rewriter.buffer(op.getContextLens());
  buf.blockTables = rewriter.buffer(op.getBlockTables());
  buf.output = rewriter.destination(op.getOutput());
  buf.lse = rewriter.destination(op.getLse());
  return buf;
}

int64_t mlir::ejk::pagedAttentionFlops(const PagedAttentionProblem &p) {
  int64_t tokens = p.maxContext();
  if (p.window)
    tokens = std::min(tokens, *p.window);
  return 4 * p.batch * p.numHeads * tokens * p.headDim;
}

std::optional<PagedAttentionProblem>
mlir::ejk::denseDecodeAsPaged(const AttentionProblem &a, Type queryType,
                              Type keyType, bool hasLse, bool hasMaskOrBias) {
  if (a.seqQ != 1 || a.seqK < 1 || a.headDim != a.headDimV || hasMaskOrBias ||
      a.dropoutProb)
    return std::nullopt;
  PagedAttentionProblem p;
  // The one query sits at key seq_k - 1 (bottom-right): causal hides
  // nothing and a window [left, right] keeps the last left + 1 keys.
  // Top-left, the query sits at key 0: only a problem with no mask is a
  // decode over all keys.
  if (a.bottomRight) {
    if (a.slidingWindow)
      p.window = (*a.slidingWindow)[0] + 1;
  } else if (a.causal || a.slidingWindow) {
    return std::nullopt;
  }
  p.batch = a.batch;
  p.numHeads = a.numHeads;
  p.numKvHeads = a.numKvHeads;
  p.headDim = a.headDim;
  p.numPages = a.batch;
  p.pageSize = a.seqK;
  p.maxPagesPerSeq = 1;
  p.tokenMajor = true;
  p.softmaxScale = a.softmaxScale;
  p.softCap = a.softCap;
  p.hasLse = hasLse;
  p.queryType = queryType;
  p.cacheType = keyType;
  p.denseKv = true;
  return p;
}
