//===- Problem.cpp - reading native sparse attention ----------------------===//

#include "ejk/Ops/Sparse/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

using namespace mlir;
using namespace mlir::ejk;

NativeSparseProblem
mlir::ejk::readNativeSparseProblem(NativeSparseAttentionOp op) {
  NativeSparseProblem p;
  ArrayRef<int64_t> q = op.getQuery().getType().getShape();
  p.batch = q[0];
  p.seq = q[1];
  p.numHeads = q[2];
  p.headDim = q[3];
  p.numKvHeads = op.getKey().getType().getDimSize(2);
  p.blockSize = op.getBlockSize();
  p.blockCounts = op.getBlockCounts();
  p.windowSize = op.getWindowSize();
  p.softmaxScale = op.getEffectiveSoftmaxScale();
  p.compress = op.getGCmp() != nullptr;
  p.hasGSlc = op.getGSlc() != nullptr;
  p.hasGSwa = op.getGSwa() != nullptr;
  if (TypedValue<RankedTensorType> indices = op.getBlockIndices()) {
    p.perTokenIndices = op.hasPerTokenBlockIndices();
    p.indexSlots = indices.getType().getDimSize(3);
  }
  p.elementType = op.getQuery().getType().getElementType();
  return p;
}

int64_t NativeSparseProblem::flops() const {
  int64_t rows = batch * seq * numHeads;
  int64_t attention = 4 * rows * keysPerRow() * headDim;
  int64_t compression = compress ? 4 * rows * numBlocks() / 2 * headDim : 0;
  return attention + compression;
}

NativeSparseBuffers
mlir::ejk::findNativeSparseBuffers(NativeSparseAttentionOp op,
                                   DispatchRewriter &rewriter) {
  NativeSparseBuffers buf;
  buf.query = rewriter.buffer(op.getQuery());
  buf.key = rewriter.buffer(op.getKey());
  buf.value = rewriter.buffer(op.getValue());
  buf.gCmp = rewriter.buffer(op.getGCmp());
  buf.gSlc = rewriter.buffer(op.getGSlc());
  buf.gSwa = rewriter.buffer(op.getGSwa());
  buf.blockIndices = rewriter.buffer(op.getBlockIndices());
  buf.output = rewriter.destination(op.getOutput());
  return buf;
}

MemRefType mlir::ejk::compressedType(const NativeSparseProblem &p,
                                     MLIRContext *context) {
  return MemRefType::get(
      {p.batch, p.numKvHeads, std::max<int64_t>(p.numBlocks(), 1), p.headDim},
      Float32Type::get(context));
}

MemRefType mlir::ejk::selectedType(const NativeSparseProblem &p,
                                   MLIRContext *context) {
  return MemRefType::get({p.batch, p.seq, p.numKvHeads, p.slots()},
                         IntegerType::get(context, 32));
}

MemRefType mlir::ejk::compressedOutputType(const NativeSparseProblem &p,
                                           MLIRContext *context) {
  return MemRefType::get({p.batch, p.seq, p.numHeads, p.headDim},
                         Float32Type::get(context));
}
