//===- RaggedProblem.cpp - reading ragged and prefill paged attention -----===//

#include "ejk/Ops/Paged/RaggedProblem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

/// The options both ops share.
template <typename OpTy>
static void readCommon(OpTy op, RankedTensorType cache, RaggedPagedProblem &p) {
  p.tokenMajor = op.isTokenMajor();
  p.numPages = cache.getDimSize(0);
  p.pageSize = cache.getDimSize(p.tokenMajor ? 1 : 2);
  p.numKvHeads = cache.getDimSize(p.tokenMajor ? 2 : 1);
  p.softmaxScale = op.getEffectiveSoftmaxScale();
  if (FloatAttr cap = op.getLogitsSoftCapAttr())
    p.softCap = cap.getValueAsDouble();
  if (std::optional<uint64_t> window = op.getSlidingWindow())
    p.window = static_cast<int64_t>(*window);
  p.cacheType = cache.getElementType();
}

RaggedPagedProblem
mlir::ejk::readRaggedPagedProblem(RaggedPagedAttentionOp op) {
  RaggedPagedProblem p;
  RankedTensorType q = op.getQueries().getType();
  readCommon(op, op.getKeyPages().getType(), p);
  p.numTokens = q.getDimSize(0);
  p.numHeads = q.getDimSize(1);
  p.headDim = q.getDimSize(2);
  p.numSeqs = op.getKvLens().getType().getDimSize(0);
  p.pagesPerSeq = op.getPageIndices().getType().getDimSize(1);
  if (FloatAttr scale = op.getKScaleAttr())
    p.kScale = scale.getValueAsDouble();
  if (FloatAttr scale = op.getVScaleAttr())
    p.vScale = scale.getValueAsDouble();
  p.hasSinks = op.getSoftmaxAux() != nullptr;
  p.writesCache = op.getNewKeys() != nullptr;
  p.queryType = q.getElementType();
  return p;
}

RaggedPagedProblem
mlir::ejk::readRaggedPagedProblem(PrefillPagedAttentionOp op) {
  RaggedPagedProblem p;
  RankedTensorType q = op.getQuery().getType();
  readCommon(op, op.getKeyCache().getType(), p);
  p.numSeqs = q.getDimSize(0);
  p.uniformQ = q.getDimSize(1);
  p.numTokens = p.numSeqs * p.uniformQ;
  p.numHeads = q.getDimSize(2);
  p.headDim = q.getDimSize(3);
  p.pagesPerSeq = op.getBlockTables().getType().getDimSize(1);
  p.queryType = q.getElementType();
  return p;
}

RaggedPagedProblem mlir::ejk::readRaggedPagedProblem(UnifiedAttentionOp op) {
  RaggedPagedProblem p;
  RankedTensorType q = op.getQueries().getType();
  readCommon(op, op.getKeyCache().getType(), p);
  p.numTokens = q.getDimSize(0);
  p.numHeads = q.getDimSize(1);
  p.headDim = q.getDimSize(2);
  p.numSeqs = op.getKvLens().getType().getDimSize(0);
  p.pagesPerSeq = op.getBlockTables().getType().getDimSize(1);
  p.hasSinks = op.getSoftmaxAux() != nullptr;
  p.hasAlibi = op.getAlibiSlopes() != nullptr;
  if (TypedValue<RankedTensorType> bias = op.getQqBias())
    p.qqBiasSize = bias.getType().getDimSize(0);
  p.queryType = q.getElementType();
  return p;
}

RaggedPagedBuffers
mlir::ejk::findRaggedPagedBuffers(RaggedPagedAttentionOp op,
                                  DispatchRewriter &rewriter) {
  RaggedPagedBuffers buf;
  buf.queries = rewriter.buffer(op.getQueries());
  buf.keyCache = rewriter.buffer(op.getKeyPages());
  buf.valueCache = rewriter.buffer(op.getValuePages());
  buf.kvLens = rewriter.buffer(op.getKvLens());
  buf.pageIndices = rewriter.buffer(op.getPageIndices());
  buf.cuQLens = rewriter.buffer(op.getCuQLens());
  buf.numSeqs = rewriter.buffer(op.getNumSeqs());
  buf.newKeys = rewriter.buffer(op.getNewKeys());
  buf.newValues = rewriter.buffer(op.getNewValues());
  buf.sinks = rewriter.buffer(op.getSoftmaxAux());
  buf.output = rewriter.destination(op.getOutput());
  buf.updatedKeys = rewriter.destination(op.getUpdatedKeyPages());
  buf.updatedValues = rewriter.destination(op.getUpdatedValuePages());
  return buf;
}

RaggedPagedBuffers
mlir::ejk::findRaggedPagedBuffers(PrefillPagedAttentionOp op,
                                  DispatchRewriter &rewriter) {
  RaggedPagedBuffers buf;
  buf.queries = rewriter.buffer(op.getQuery());
  buf.keyCache = rewriter.buffer(op.getKeyCache());
  buf.valueCache = rewriter.buffer(op.getValueCache());
  buf.kvLens = rewriter.buffer(op.getContextLens());
  buf.pageIndices = rewriter.buffer(op.getBlockTables());
  buf.output = rewriter.destination(op.getOutput());
  return buf;
}

RaggedPagedBuffers
mlir::ejk::findRaggedPagedBuffers(UnifiedAttentionOp op,
                                  DispatchRewriter &rewriter) {
  RaggedPagedBuffers buf;
  buf.queries = rewriter.buffer(op.getQueries());
  buf.keyCache = rewriter.buffer(op.getKeyCache());
  buf.valueCache = rewriter.buffer(op.getValueCache());
  buf.kvLens = rewriter.buffer(op.getKvLens());
  buf.pageIndices = rewriter.buffer(op.getBlockTables());
  buf.cuQLens = rewriter.buffer(op.getQueryStartLoc());
  buf.alibi = rewriter.buffer(op.getAlibiSlopes());
  buf.qqBias = rewriter.buffer(op.getQqBias());
  buf.sinks = rewriter.buffer(op.getSoftmaxAux());
  buf.output = rewriter.destination(op.getOutput());
  return buf;
}

int64_t mlir::ejk::raggedPagedFlops(const RaggedPagedProblem &p) {
  int64_t tokens = p.maxContext();
  if (p.window)
    tokens = std::min(tokens, *p.window);
  return 4 * p.numTokens * p.numHeads * tokens * p.headDim;
}
