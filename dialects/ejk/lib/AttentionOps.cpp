//===- AttentionOps.cpp - Verifiers of the dense attention family ---------===//

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Attention/Config.h"
#include "ejk/Ops/Attention/GradConfig.h"

#include "ShapeVerifier.h"
#include "SoftmaxScale.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ejk;

namespace {
const StringRef kBshdQuery[] = {"batch", "seq_q", "num_heads", "head_dim"};
const StringRef kBshdKey[] = {"batch", "seq_k", "num_kv_heads", "head_dim"};
const StringRef kBshdValue[] = {"batch", "seq_k", "num_kv_heads", "head_dim_v"};
const StringRef kBshdOutput[] = {"batch", "seq_q", "num_heads", "head_dim_v"};
const StringRef kScoreMatrix[] = {"batch", "num_heads", "seq_q", "seq_k"};
const StringRef kBlockMask[] = {"batch", "num_heads", "num_q_blocks",
                                "num_kv_blocks"};
const StringRef kLse[] = {"batch", "num_heads", "seq_q"};

/// `query`, `key` and `value` of a BSHD attention op, once verified.
struct QueryKeyValue {
  NamedTensor query, key, value;
};
} // namespace

/// Checks BSHD `query`, `key`, `value`: float, one element type, the same
/// batch, key/value sequence and head_dim, and GQA head counts.
static FailureOr<QueryKeyValue>
verifyQueryKeyValue(ShapeVerifier &v, TypedValue<RankedTensorType> query,
                    TypedValue<RankedTensorType> key,
                    TypedValue<RankedTensorType> value) {
  FailureOr<NamedTensor> q = v.tensor(query, "query", kBshdQuery);
  if (failed(q))
    return failure();
  FailureOr<NamedTensor> k = v.tensor(key, "key", kBshdKey);
  if (failed(k))
    return failure();
  FailureOr<NamedTensor> val = v.tensor(value, "value", kBshdValue);
  if (failed(val))
    return failure();
  if (failed(v.isFloat(*q)) || failed(v.sameElement(*k, *q)) ||
      failed(v.sameElement(*val, *q)))
    return failure();
  if (failed(v.dimMatches(*k, 0, *q, 0)) ||
      failed(v.dimMatches(*k, 3, *q, 3)) ||
      failed(v.dimMatches(*val, 0, *q, 0)) ||
      failed(v.dimMatches(*val, 1, *k, 1)) ||
      failed(v.dimMatches(*val, 2, *k, 2)) ||
      failed(v.dimDivides(*k, 2, *q, 2)) ||
      failed(v.dimNotZero(*q, 3,
                          "with no head dim every key scores the "
                          "same")))
    return failure();
  return QueryKeyValue{*q, *k, *val};
}

/// Checks an optional `[batch | 1, num_heads | 1, seq_q, seq_k]` operand
/// (bias, mask): i1 when `isMask`, float otherwise.
static LogicalResult verifyScoreShaped(ShapeVerifier &v,
                                       TypedValue<RankedTensorType> value,
                                       StringRef name, bool isMask,
                                       const QueryKeyValue &qkv) {
  if (!value)
    return success();
  FailureOr<NamedTensor> t = v.tensor(value, name, kScoreMatrix);
  if (failed(t))
    return failure();
  if (isMask ? failed(v.elementIs(*t, IntegerType::get(value.getContext(), 1)))
             : failed(v.isFloat(*t)))
    return failure();
  if (failed(v.dimBroadcasts(*t, 0, qkv.query, 0)) ||
      failed(v.dimBroadcasts(*t, 1, qkv.query, 2)) ||
      failed(v.dimMatches(*t, 2, qkv.query, 1)) ||
      failed(v.dimMatches(*t, 3, qkv.key, 1)))
    return failure();
  return success();
}

/// Checks the optional `[batch, seq_q]` / `[batch, seq_k]` i32 segment ids,
/// which come both or neither.
static LogicalResult verifySegmentIds(Operation *op, ShapeVerifier &v,
                                      TypedValue<RankedTensorType> qSegmentIds,
                                      TypedValue<RankedTensorType> kvSegmentIds,
                                      const QueryKeyValue &qkv) {
  if (static_cast<bool>(qSegmentIds) != static_cast<bool>(kvSegmentIds))
    return op->emitOpError("expects 'q_segment_ids' and 'kv_segment_ids' to "
                           "be given together");
  if (!qSegmentIds)
    return success();
  Type i32 = IntegerType::get(op->getContext(), 32);
  FailureOr<NamedTensor> qs =
      v.tensor(qSegmentIds, "q_segment_ids", {"batch", "seq_q"});
  if (failed(qs) || failed(v.elementIs(*qs, i32)) ||
      failed(v.dimMatches(*qs, 0, qkv.query, 0)) ||
      failed(v.dimMatches(*qs, 1, qkv.query, 1)))
    return failure();
  FailureOr<NamedTensor> ks =
      v.tensor(kvSegmentIds, "kv_segment_ids", {"batch", "seq_k"});
  if (failed(ks) || failed(v.elementIs(*ks, i32)) ||
      failed(v.dimMatches(*ks, 0, qkv.key, 0)) ||
      failed(v.dimMatches(*ks, 1, qkv.key, 1)))
    return failure();
  return success();
}

/// Checks an optional `sliding_window = [left, right]`, or `[size]` (both
/// sides) where `symmetric` allows it.
static LogicalResult
verifySlidingWindow(Operation *op, std::optional<ArrayRef<int64_t>> window,
                    bool symmetric) {
  if (!window)
    return success();
  if (window->size() != 2 && !(symmetric && window->size() == 1))
    return op->emitOpError("expects 'sliding_window' to have 2 elements "
                           "[left, right]")
           << (symmetric ? " or 1 [size]" : "") << ", got " << window->size();
  if (window->front() < 0 || window->back() < 0) {
    InFlightDiagnostic diag = op->emitOpError(
        "expects 'sliding_window' sizes to be non-negative, got [");
    for (size_t i = 0; i < window->size(); ++i)
      diag << (i ? ", " : "") << (*window)[i];
    return diag << "]";
  }
  return success();
}

/// Checks an optional `mask_alignment`: "top_left" or "bottom_right".
static LogicalResult verifyMaskAlignment(Operation *op,
                                         std::optional<StringRef> alignment) {
  if (alignment && *alignment != "top_left" && *alignment != "bottom_right")
    return op->emitOpError("expects 'mask_alignment' to be \"top_left\" or "
                           "\"bottom_right\", got \"")
           << *alignment << "\"";
  return success();
}

/// Checks `dropout_prob` in [0, 1), which comes with `dropout_seed`.
static LogicalResult verifyDropout(Operation *op, FloatAttr prob,
                                   IntegerAttr seed) {
  if (prob) {
    double p = prob.getValueAsDouble();
    if (!(p >= 0.0 && p < 1.0))
      return op->emitOpError("expects 'dropout_prob' to be in [0, 1), got ")
             << p;
    if (!seed)
      return op->emitOpError(
          "expects 'dropout_seed' when 'dropout_prob' is set");
  } else if (seed) {
    return op->emitOpError("expects 'dropout_seed' only with 'dropout_prob'");
  }
  return success();
}

/// Checks optional attention sinks: `[num_heads, num_sinks]` or
/// `[num_sinks]`, float.
static LogicalResult verifySoftmaxAux(Operation *op, ShapeVerifier &v,
                                      TypedValue<RankedTensorType> aux,
                                      const QueryKeyValue &qkv) {
  if (!aux)
    return success();
  int64_t rank = aux.getType().getRank();
  if (rank != 1 && rank != 2)
    return op->emitOpError("expects 'softmax_aux' to be [num_heads, "
                           "num_sinks] or [num_sinks], got rank ")
           << rank;
  if (rank == 1) {
    FailureOr<NamedTensor> t = v.tensor(aux, "softmax_aux", {"num_sinks"});
    return failed(t) ? failure() : v.isFloat(*t);
  }
  FailureOr<NamedTensor> t =
      v.tensor(aux, "softmax_aux", {"num_heads", "num_sinks"});
  if (failed(t) || failed(v.isFloat(*t)) ||
      failed(v.dimMatches(*t, 0, qkv.query, 2)))
    return failure();
  return success();
}

/// Checks an optional `[batch, seq]` i1 padding mask, which masks queries
/// and keys alike and so needs seq_q == seq_k.
static LogicalResult verifyPaddingMask(Operation *op, ShapeVerifier &v,
                                       TypedValue<RankedTensorType> mask,
                                       const QueryKeyValue &qkv) {
  if (!mask)
    return success();
  FailureOr<NamedTensor> t = v.tensor(mask, "padding_mask", {"batch", "seq"});
  if (failed(t) ||
      failed(v.elementIs(*t, IntegerType::get(op->getContext(), 1))) ||
      failed(v.dimMatches(*t, 0, qkv.query, 0)))
    return failure();
  if (qkv.query.dim(1) != qkv.key.dim(1))
    return op->emitOpError("expects 'padding_mask' only when seq_q equals "
                           "seq_k (it masks queries and keys alike), got "
                           "seq_q = ")
           << qkv.query.dim(1) << " and seq_k = " << qkv.key.dim(1);
  return v.dimMatches(*t, 1, qkv.query, 1);
}

/// Checks an optional `[batch + 1]` i32 cumulative sequence length tensor.
static LogicalResult verifyCumSeqlens(Operation *op, ShapeVerifier &v,
                                      TypedValue<RankedTensorType> cum,
                                      StringRef name,
                                      const QueryKeyValue &qkv) {
  if (!cum)
    return success();
  FailureOr<NamedTensor> t = v.tensor(cum, name, {"batch_plus_one"});
  if (failed(t) ||
      failed(v.elementIs(*t, IntegerType::get(op->getContext(), 32))) ||
      failed(v.dimEquals(*t, 0, qkv.query.dim(0) + 1, "batch + 1")))
    return failure();
  return success();
}

/// Checks the padding mask and the cumulative lengths that flash_attention
/// and flash_attention_grad share.
template <typename OpTy>
static LogicalResult verifyLengthOptions(OpTy op, ShapeVerifier &v,
                                         const QueryKeyValue &qkv) {
  if (failed(verifyPaddingMask(op, v, op.getPaddingMask(), qkv)) ||
      failed(
          verifyCumSeqlens(op, v, op.getCumSeqlensQ(), "cum_seqlens_q", qkv)) ||
      failed(
          verifyCumSeqlens(op, v, op.getCumSeqlensK(), "cum_seqlens_k", qkv)))
    return failure();
  return success();
}

/// Checks the options that flash_attention and flash_attention_grad share:
/// bias, mask, segment ids, scale, soft cap, sliding window and dropout.
template <typename OpTy>
static LogicalResult verifyFlashOptions(OpTy op, ShapeVerifier &v,
                                        const QueryKeyValue &qkv) {
  if (failed(
          verifyScoreShaped(v, op.getBias(), "bias", /*isMask=*/false, qkv)) ||
      failed(verifyScoreShaped(v, op.getMask(), "mask", /*isMask=*/true, qkv)))
    return failure();
  if (failed(verifySegmentIds(op, v, op.getQSegmentIds(), op.getKvSegmentIds(),
                              qkv)) ||
      failed(verifySoftmaxAux(op, v, op.getSoftmaxAux(), qkv)))
    return failure();
  if (failed(v.positiveFinite(op.getSoftmaxScaleAttr(), "softmax_scale")) ||
      failed(v.positiveFinite(op.getLogitsSoftCapAttr(), "logits_soft_cap")))
    return failure();
  if (failed(verifySlidingWindow(op, op.getSlidingWindow(),
                                 /*symmetric=*/true)))
    return failure();
  if (failed(verifyMaskAlignment(op, op.getMaskAlignment())))
    return failure();
  return verifyDropout(op, op.getDropoutProbAttr(), op.getDropoutSeedAttr());
}

/// Checks a `[batch, seq_q, num_heads, head_dim_v]` tensor with the element
/// type of `query` (an output, or the gradient of one).
static LogicalResult verifyOutputLike(ShapeVerifier &v,
                                      TypedValue<RankedTensorType> value,
                                      StringRef name,
                                      const QueryKeyValue &qkv) {
  FailureOr<NamedTensor> out = v.tensor(value, name, kBshdOutput);
  if (failed(out) || failed(v.sameElement(*out, qkv.query)) ||
      failed(v.dimMatches(*out, 0, qkv.query, 0)) ||
      failed(v.dimMatches(*out, 1, qkv.query, 1)) ||
      failed(v.dimMatches(*out, 2, qkv.query, 2)) ||
      failed(v.dimMatches(*out, 3, qkv.value, 3)))
    return failure();
  return success();
}

/// Checks an (optional when `value` is null) f32 `[batch, num_heads, seq_q]`
/// log-sum-exp; `query` is `[batch, seq_q, num_heads, ...]`.
static LogicalResult verifyLse(ShapeVerifier &v,
                               TypedValue<RankedTensorType> value,
                               const NamedTensor &query) {
  if (!value)
    return success();
  FailureOr<NamedTensor> lse = v.tensor(value, "lse", kLse);
  if (failed(lse) ||
      failed(v.elementIs(*lse, Float32Type::get(value.getContext()))) ||
      failed(v.dimMatches(*lse, 0, query, 0)) ||
      failed(v.dimMatches(*lse, 1, query, 2)) ||
      failed(v.dimMatches(*lse, 2, query, 1)))
    return failure();
  return success();
}

/// Checks that `value` has the shape and element type of `source`.
static LogicalResult verifySameAs(ShapeVerifier &v,
                                  TypedValue<RankedTensorType> value,
                                  StringRef name, const NamedTensor &source) {
  FailureOr<NamedTensor> t = v.tensor(value, name, source.dimNames);
  if (failed(t) || failed(v.sameElement(*t, source)))
    return failure();
  for (unsigned i = 0, e = source.dimNames.size(); i < e; ++i)
    if (failed(v.dimMatches(*t, i, source, i)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// FlashAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> FlashAttentionOp::getConfigNames() {
  return FlashAttentionConfig::names();
}

float FlashAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(3));
}

LogicalResult FlashAttentionOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<QueryKeyValue> qkv =
      verifyQueryKeyValue(v, getQuery(), getKey(), getValue());
  if (failed(qkv) || failed(verifyFlashOptions(*this, v, *qkv)) ||
      failed(verifyLengthOptions(*this, v, *qkv)) ||
      failed(verifyOutputLike(v, getOutput(), "output", *qkv)) ||
      failed(verifyLse(v, getLse(), qkv->query)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// FlashAttentionGradOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> FlashAttentionGradOp::getConfigNames() {
  return FlashAttentionGradConfig::names();
}

float FlashAttentionGradOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(3));
}

LogicalResult FlashAttentionGradOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<QueryKeyValue> qkv =
      verifyQueryKeyValue(v, getQuery(), getKey(), getValue());
  if (failed(qkv) || failed(verifyOutputLike(v, getOutput(), "output", *qkv)) ||
      failed(verifyOutputLike(v, getDOutput(), "d_output", *qkv)) ||
      failed(verifyLse(v, getLse(), qkv->query)) ||
      failed(verifyFlashOptions(*this, v, *qkv)) ||
      failed(verifyLengthOptions(*this, v, *qkv)))
    return failure();
  if (!getNormalizeOutput())
    return emitOpError("does not take 'normalize_output = false': the "
                       "gradient of the unnormalized output needs each row's "
                       "largest logit, which the forward does not return "
                       "(only 'lse')");
  if (failed(verifySameAs(v, getDQuery(), "d_query", qkv->query)) ||
      failed(verifySameAs(v, getDKey(), "d_key", qkv->key)) ||
      failed(verifySameAs(v, getDValue(), "d_value", qkv->value)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// BlockSparseAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> BlockSparseAttentionOp::getConfigNames() {
  return FlashAttentionConfig::names();
}

float BlockSparseAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(3));
}

/// Checks what the block-sparse forward and backward share: block sizes,
/// the block mask, bias, token mask, segments, scale, soft cap, window,
/// chunk and alignment.
template <typename OpTy>
static LogicalResult verifyBlockSparseOptions(OpTy op, ShapeVerifier &v,
                                              const QueryKeyValue &qkv) {
  // The block sizes come first: the block counts are derived from them.
  if (failed(v.atLeast(op.getQBlockSizeAttr(), "q_block_size", 1)) ||
      failed(v.atLeast(op.getKvBlockSizeAttr(), "kv_block_size", 1)))
    return failure();
  if (TypedValue<RankedTensorType> blockMask = op.getBlockMask()) {
    FailureOr<NamedTensor> blocks =
        v.tensor(blockMask, "block_mask", kBlockMask);
    if (failed(blocks) ||
        failed(v.elementIs(*blocks, IntegerType::get(op.getContext(), 1))) ||
        failed(v.dimBroadcasts(*blocks, 0, qkv.query, 0)) ||
        failed(v.dimBroadcasts(*blocks, 1, qkv.query, 2)) ||
        failed(v.dimEquals(
            *blocks, 2, llvm::divideCeil(qkv.query.dim(1), op.getQBlockSize()),
            "ceil(seq_q / q_block_size)")) ||
        failed(v.dimEquals(
            *blocks, 3, llvm::divideCeil(qkv.key.dim(1), op.getKvBlockSize()),
            "ceil(seq_k / kv_block_size)")))
      return failure();
  }
  if (failed(
          verifyScoreShaped(v, op.getBias(), "bias", /*isMask=*/false, qkv)) ||
      failed(
          verifyScoreShaped(v, op.getMask(), "mask", /*isMask=*/true, qkv)) ||
      failed(verifySegmentIds(op, v, op.getQSegmentIds(), op.getKvSegmentIds(),
                              qkv)) ||
      failed(v.positiveFinite(op.getSoftmaxScaleAttr(), "softmax_scale")) ||
      failed(v.positiveFinite(op.getLogitsSoftCapAttr(), "logits_soft_cap")) ||
      failed(verifySlidingWindow(op, op.getSlidingWindow(),
                                 /*symmetric=*/true)) ||
      (op.getChunkSizeAttr() &&
       failed(v.atLeast(op.getChunkSizeAttr(), "chunk_size", 1))) ||
      failed(verifyMaskAlignment(op, op.getMaskAlignment())))
    return failure();
  return success();
}

LogicalResult BlockSparseAttentionOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<QueryKeyValue> qkv =
      verifyQueryKeyValue(v, getQuery(), getKey(), getValue());
  if (failed(qkv) || failed(verifyBlockSparseOptions(*this, v, *qkv)) ||
      failed(verifyOutputLike(v, getOutput(), "output", *qkv)) ||
      failed(verifyLse(v, getLse(), qkv->query)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// BlockSparseAttentionGradOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> BlockSparseAttentionGradOp::getConfigNames() {
  return FlashAttentionGradConfig::names();
}

float BlockSparseAttentionGradOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(3));
}

LogicalResult BlockSparseAttentionGradOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<QueryKeyValue> qkv =
      verifyQueryKeyValue(v, getQuery(), getKey(), getValue());
  if (failed(qkv) || failed(verifyOutputLike(v, getOutput(), "output", *qkv)) ||
      failed(verifyOutputLike(v, getDOutput(), "d_output", *qkv)) ||
      failed(verifyLse(v, getLse(), qkv->query)) ||
      failed(verifyBlockSparseOptions(*this, v, *qkv)))
    return failure();
  if (failed(verifySameAs(v, getDQuery(), "d_query", qkv->query)) ||
      failed(verifySameAs(v, getDKey(), "d_key", qkv->key)) ||
      failed(verifySameAs(v, getDValue(), "d_value", qkv->value)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// RingAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> RingAttentionOp::getConfigNames() {
  return FlashAttentionConfig::names();
}

float RingAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(3));
}

LogicalResult RingAttentionOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<QueryKeyValue> qkv =
      verifyQueryKeyValue(v, getQuery(), getKey(), getValue());
  // Global positions are `rank * shard + i` for queries and keys alike, so
  // every process holds as many keys as queries.
  if (failed(qkv) || failed(v.dimMatches(qkv->key, 1, qkv->query, 1)))
    return failure();
  if (failed(verifySegmentIds(*this, v, getQSegmentIds(), getKvSegmentIds(),
                              *qkv)))
    return failure();

  if (failed(v.atLeast(getRingSizeAttr(), "ring_size", 1)))
    return failure();
  if (std::optional<StringRef> axis = getAxisName(); axis && axis->empty())
    return emitOpError("expects 'axis_name' to be non-empty");
  if (failed(v.positiveFinite(getSoftmaxScaleAttr(), "softmax_scale")) ||
      failed(v.positiveFinite(getLogitsSoftCapAttr(), "logits_soft_cap")) ||
      failed(verifySlidingWindow(*this, getSlidingWindow(),
                                 /*symmetric=*/false)))
    return failure();

  if (failed(verifyOutputLike(v, getOutput(), "output", *qkv)) ||
      failed(verifyLse(v, getLse(), qkv->query)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}
