//===- Problem.h - one flash attention, as config rules and kernels see it ===//
//
// The sizes and options of one `ejk.flash_attention` that the config rules
// and every kernel builder (CPU, Vulkan) need, read from the op once.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_PROBLEM_H
#define EJK_OPS_ATTENTION_PROBLEM_H

#include "mlir/IR/Value.h"

#include <array>
#include <cstdint>
#include <optional>

namespace mlir::ejk {

class DispatchRewriter;
class FlashAttentionOp;
class FlashAttentionGradOp;
class BlockSparseAttentionOp;
class BlockSparseAttentionGradOp;

struct AttentionProblem {
  int64_t batch, seqQ, seqK, numHeads, numKvHeads, headDim, headDimV;
  float softmaxScale;
  bool causal;
  /// `mask_alignment = "bottom_right"`: the causal diagonal and the window
  /// are centred on key i + seqK - seqQ instead of key i.
  bool bottomRight = false;
  std::optional<std::array<int64_t, 2>> slidingWindow;
  std::optional<float> softCap;
  std::optional<float> dropoutProb;
  uint64_t dropoutSeed = 0;
  bool biasBroadcastsBatch = false, biasBroadcastsHeads = false;
  bool maskBroadcastsBatch = false, maskBroadcastsHeads = false;
  /// `chunk_size` of ejk.block_sparse_attention: query i attends only to the
  /// keys of its chunk, (i + maskOffset()) / c == j / c.
  std::optional<int64_t> chunkSize;
  /// ejk.block_sparse_attention: the kernels visit the key blocks of the
  /// live-block list (LiveBlocks.h) instead of a dense range; the list is
  /// per batch and head unless the block mask broadcasts over them.
  bool sparse = false;
  bool liveBroadcastsBatch = true, liveBroadcastsHeads = true;
  /// ejk.block_sparse_attention(_grad): `q_block_size` and `kv_block_size`,
  /// the block mask's blocks (the live-block lists read them; each backward
  /// pass's blocks lie in them).
  int64_t maskBlockQ = 0, maskBlockK = 0;
  /// Attention sinks (`softmax_aux`): `numSinks` extra logits per row, per
  /// query head when `sinksPerHead`, else shared by all heads.
  int64_t numSinks = 0;
  bool sinksPerHead = false;
  /// `normalize_output = false`: the output is not divided by the row sum.
  bool normalizeOutput = true;
  /// A `[batch, seq]` padding mask (queries and keys alike).
  bool paddingMask = false;
  /// `cum_seqlens_q` / `cum_seqlens_k`: per-batch lengths of the queries /
  /// keys (variable-length batches).
  bool varlenQ = false, varlenK = false;

  bool hasSinks() const { return numSinks > 0; }
  bool varlen() const { return varlenQ || varlenK; }
  /// Whether the causal/window anchor depends on the batch's lengths
  /// (bottom-right with variable lengths): maskOffset() does not apply.
  bool offsetPerBatch() const {
    return varlen() && bottomRight && (causal || slidingWindow);
  }
  /// Whether an option of issue 16 that the decode kernels (the paged
  /// decode path of a one-row flash_attention) do not implement is set.
  bool usesPortableOnlyOptions() const {
    return hasSinks() || !normalizeOutput || paddingMask || varlen();
  }

  /// Query i's diagonal key is i + maskOffset() (causal and window).
  int64_t maskOffset() const { return bottomRight ? seqK - seqQ : 0; }
};

/// The problem of `op` (a verified op).
AttentionProblem readAttentionProblem(FlashAttentionOp op);
/// The problem of the forward whose gradients `op` computes.
AttentionProblem readAttentionProblem(FlashAttentionGradOp op);
/// The problem of a block-sparse attention (`sparse` set; the block mask
/// itself is data the live-block dispatch reads).
AttentionProblem readAttentionProblem(BlockSparseAttentionOp op);
/// The problem of the block-sparse forward whose gradients `op` computes.
AttentionProblem readAttentionProblem(BlockSparseAttentionGradOp op);

/// FLOPs of the two matmuls (FlashAttention's convention, halved when
/// causal).
inline int64_t attentionFlops(const AttentionProblem &p) {
  int64_t flops =
      2 * p.batch * p.numHeads * p.seqQ * p.seqK * (p.headDim + p.headDimV);
  return p.causal ? flops / 2 : flops;
}

/// FLOPs of the backward by FlashAttention's convention: 2.5 times the
/// forward's (five matmuls of the forward's size against two).
inline int64_t attentionGradFlops(const AttentionProblem &p) {
  return attentionFlops(p) * 5 / 2;
}

/// The operand and result buffers of an attention dispatch; optional ones
/// are null.
struct AttentionBuffers {
  Value query, key, value, bias, mask, qSegmentIds, kvSegmentIds;
  /// Sinks, `[batch, seq]` padding mask, `[batch + 1]` cumulative lengths.
  Value softmaxAux, paddingMask, cumSeqlensQ, cumSeqlensK;
  Value output, lse;
  /// Block-sparse only: the block mask (null when absent) and the live-block
  /// lists the kernel reads (LiveBlocks.h).
  Value blockMask, liveBlocks;
};

/// The buffers of `op`'s dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
AttentionBuffers findAttentionBuffers(FlashAttentionOp op,
                                      DispatchRewriter &rewriter);

/// The buffers of a block-sparse `op`'s dispatch (`liveBlocks` stays null:
/// the live-block dispatch adds it).
AttentionBuffers findAttentionBuffers(BlockSparseAttentionOp op,
                                      DispatchRewriter &rewriter);

/// The operand and result buffers of a backward dispatch; optional ones
/// are null.
struct AttentionGradBuffers {
  Value query, key, value, output, dOutput, lse, bias, mask, qSegmentIds,
      kvSegmentIds, softmaxAux;
  /// flash_attention_grad only: the forward's `[batch, seq]` padding mask
  /// and `[batch + 1]` cumulative lengths.
  Value paddingMask, cumSeqlensQ, cumSeqlensK;
  Value dQuery, dKey, dValue;
  /// Block-sparse only: the block mask (null when absent), the live key
  /// blocks of each query block of the dQ pass and the live query blocks of
  /// each key block of the dK/dV pass (LiveBlocks.h).
  Value blockMask, liveBlocks, liveQueryBlocks;
};

/// The buffers of `op`'s dispatch.
AttentionGradBuffers findAttentionGradBuffers(FlashAttentionGradOp op,
                                              DispatchRewriter &rewriter);
/// The buffers of a block-sparse backward's dispatch (the lists stay null).
AttentionGradBuffers findAttentionGradBuffers(BlockSparseAttentionGradOp op,
                                              DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_PROBLEM_H
