//===- Problem.cpp - reading one flash attention --------------------------===//

#include "ejk/Ops/Attention/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

#include <algorithm>
#include <type_traits>

using namespace mlir;
using namespace mlir::ejk;

/// The forward and the backward share their operands and attributes.
template <typename OpT> static AttentionProblem readProblem(OpT op) {
  auto q = op.getQuery().getType();
  auto k = op.getKey().getType();
  AttentionProblem p;
  p.batch = q.getDimSize(0);
  p.seqQ = q.getDimSize(1);
  p.numHeads = q.getDimSize(2);
  p.headDim = q.getDimSize(3);
  p.seqK = k.getDimSize(1);
  p.numKvHeads = k.getDimSize(2);
  p.headDimV = op.getValue().getType().getDimSize(3);
  p.softmaxScale = op.getEffectiveSoftmaxScale();
  p.causal = op.getCausal();
  p.bottomRight = op.isBottomRightAligned();
  // A window side of seq_q + seq_k or more reaches past every key, which is
  // no bound at all; clamping it there keeps the kernels' mask arithmetic
  // (offsets added to positions) far from overflow for any attribute value.
  if (std::optional<std::array<int64_t, 2>> window = op.getWindowBounds()) {
    int64_t reach = p.seqQ + p.seqK;
    p.slidingWindow = std::array<int64_t, 2>{std::min((*window)[0], reach),
                                             std::min((*window)[1], reach)};
  }
  if (std::optional<APFloat> cap = op.getLogitsSoftCap())
    p.softCap = cap->convertToFloat();
  constexpr bool blockSparse = std::is_same_v<OpT, BlockSparseAttentionOp> ||
                               std::is_same_v<OpT, BlockSparseAttentionGradOp>;
  if constexpr (!blockSparse) {
    if (std::optional<APFloat> prob = op.getDropoutProb()) {
      p.dropoutProb = prob->convertToFloat();
      p.dropoutSeed = static_cast<uint64_t>(*op.getDropoutSeed());
    }
  }
  if (Value bias = op.getBias()) {
    auto type = cast<RankedTensorType>(bias.getType());
    p.biasBroadcastsBatch = type.getDimSize(0) == 1 && p.batch != 1;
    p.biasBroadcastsHeads = type.getDimSize(1) == 1 && p.numHeads != 1;
  }
  if (Value mask = op.getMask()) {
    auto type = cast<RankedTensorType>(mask.getType());
    p.maskBroadcastsBatch = type.getDimSize(0) == 1 && p.batch != 1;
    p.maskBroadcastsHeads = type.getDimSize(1) == 1 && p.numHeads != 1;
  }
  if constexpr (!blockSparse) {
    if (Value aux = op.getSoftmaxAux()) {
      auto type = cast<RankedTensorType>(aux.getType());
      p.numSinks = type.getShape().back();
      p.sinksPerHead = type.getRank() == 2;
    }
  }
  if constexpr (std::is_same_v<OpT, FlashAttentionOp> ||
                std::is_same_v<OpT, FlashAttentionGradOp>) {
    p.normalizeOutput = op.getNormalizeOutput();
    p.paddingMask = op.getPaddingMask() != nullptr;
    p.varlenQ = op.getCumSeqlensQ() != nullptr;
    p.varlenK = op.getCumSeqlensK() != nullptr;
  }
  return p;
}

AttentionProblem mlir::ejk::readAttentionProblem(FlashAttentionOp op) {
  return readProblem(op);
}

AttentionProblem mlir::ejk::readAttentionProblem(FlashAttentionGradOp op) {
  return readProblem(op);
}

/// The block-sparse forward and backward: chunk, lists per batch and head
/// unless the block mask broadcasts.
template <typename OpT> static AttentionProblem readBlockSparseProblem(OpT op) {
  AttentionProblem p = readProblem(op);
  if (std::optional<int64_t> chunk = op.getChunkSize())
    p.chunkSize = *chunk;
  p.sparse = true;
  p.maskBlockQ = static_cast<int64_t>(op.getQBlockSize());
  p.maskBlockK = static_cast<int64_t>(op.getKvBlockSize());
  if (Value blocks = op.getBlockMask()) {
    auto type = cast<RankedTensorType>(blocks.getType());
    p.liveBroadcastsBatch = type.getDimSize(0) == 1;
    p.liveBroadcastsHeads = type.getDimSize(1) == 1;
  }
  return p;
}

AttentionProblem mlir::ejk::readAttentionProblem(BlockSparseAttentionOp op) {
  return readBlockSparseProblem(op);
}

AttentionProblem
mlir::ejk::readAttentionProblem(BlockSparseAttentionGradOp op) {
  return readBlockSparseProblem(op);
}

AttentionBuffers mlir::ejk::findAttentionBuffers(FlashAttentionOp op,
                                                 DispatchRewriter &rewriter) {
  AttentionBuffers buffers;
  buffers.query = rewriter.buffer(op.getQuery());
  buffers.key = rewriter.buffer(op.getKey());
  buffers.value = rewriter.buffer(op.getValue());
  buffers.bias = rewriter.buffer(op.getBias());
  buffers.mask = rewriter.buffer(op.getMask());
  buffers.qSegmentIds = rewriter.buffer(op.getQSegmentIds());
  buffers.kvSegmentIds = rewriter.buffer(op.getKvSegmentIds());
  buffers.softmaxAux = rewriter.buffer(op.getSoftmaxAux());
  buffers.paddingMask = rewriter.buffer(op.getPaddingMask());
  buffers.cumSeqlensQ = rewriter.buffer(op.getCumSeqlensQ());
  buffers.cumSeqlensK = rewriter.buffer(op.getCumSeqlensK());
  buffers.output = rewriter.destination(op.getOutput());
  buffers.lse = rewriter.destination(op.getLse());
  return buffers;
}

AttentionBuffers mlir::ejk::findAttentionBuffers(BlockSparseAttentionOp op,
                                                 DispatchRewriter &rewriter) {
  AttentionBuffers buffers;
  buffers.query = rewriter.buffer(op.getQuery());
  buffers.key = rewriter.buffer(op.getKey());
  buffers.value = rewriter.buffer(op.getValue());
  buffers.bias = rewriter.buffer(op.getBias());
  buffers.mask = rewriter.buffer(op.getMask());
  buffers.qSegmentIds = rewriter.buffer(op.getQSegmentIds());
  buffers.kvSegmentIds = rewriter.buffer(op.getKvSegmentIds());
  buffers.blockMask = rewriter.buffer(op.getBlockMask());
  buffers.output = rewriter.destination(op.getOutput());
  buffers.lse = rewriter.destination(op.getLse());
  return buffers;
}

AttentionGradBuffers
mlir::ejk::findAttentionGradBuffers(FlashAttentionGradOp op,
                                    DispatchRewriter &rewriter) {
  AttentionGradBuffers buffers;
  buffers.query = rewriter.buffer(op.getQuery());
  buffers.key = rewriter.buffer(op.getKey());
  buffers.value = rewriter.buffer(op.getValue());
  buffers.output = rewriter.buffer(op.getOutput());
  buffers.dOutput = rewriter.buffer(op.getDOutput());
  buffers.lse = rewriter.buffer(op.getLse());
  buffers.bias = rewriter.buffer(op.getBias());
  buffers.mask = rewriter.buffer(op.getMask());
  buffers.qSegmentIds = rewriter.buffer(op.getQSegmentIds());
  buffers.kvSegmentIds = rewriter.buffer(op.getKvSegmentIds());
  buffers.softmaxAux = rewriter.buffer(op.getSoftmaxAux());
  buffers.paddingMask = rewriter.buffer(op.getPaddingMask());
  buffers.cumSeqlensQ = rewriter.buffer(op.getCumSeqlensQ());
  buffers.cumSeqlensK = rewriter.buffer(op.getCumSeqlensK());
  buffers.dQuery = rewriter.destination(op.getDQuery());
  buffers.dKey = rewriter.destination(op.getDKey());
  buffers.dValue = rewriter.destination(op.getDValue());
  return buffers;
}

AttentionGradBuffers
mlir::ejk::findAttentionGradBuffers(BlockSparseAttentionGradOp op,
                                    DispatchRewriter &rewriter) {
  AttentionGradBuffers buffers;
  buffers.query = rewriter.buffer(op.getQuery());
  buffers.key = rewriter.buffer(op.getKey());
  buffers.value = rewriter.buffer(op.getValue());
  buffers.output = rewriter.buffer(op.getOutput());
  buffers.dOutput = rewriter.buffer(op.getDOutput());
  buffers.lse = rewriter.buffer(op.getLse());
  buffers.blockMask = rewriter.buffer(op.getBlockMask());
  buffers.bias = rewriter.buffer(op.getBias());
  buffers.mask = rewriter.buffer(op.getMask());
  buffers.qSegmentIds = rewriter.buffer(op.getQSegmentIds());
  buffers.kvSegmentIds = rewriter.buffer(op.getKvSegmentIds());
  buffers.dQuery = rewriter.destination(op.getDQuery());
  buffers.dKey = rewriter.destination(op.getDKey());
  buffers.dValue = rewriter.destination(op.getDValue());
  return buffers;
}
