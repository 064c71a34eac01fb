//===- AttentionOps.cpp - Verifiers of the dense attention family ---------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ShapeVerifier.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ejk;

namespace {
const StringRef kBshdQuery[] = {"batch", "seq_q", "num_heads", "head_dim"};
const StringRef kBshdKey[] = {"batch", "seq_k", "num_kv_heads", "head_dim"};
const StringRef kBshdValue[] = {"batch", "seq_k", "num_kv_heads", "head_dim_v"};
const StringRef kBshdOutput[] = {"batch", "seq_q", "num_heads", "head_dim_v"};
const StringRef kScoreMatrix[] = {"batch", "num_heads", "seq_q", "seq_k"};
const StringRef kLse[] = {"batch", "num_heads", "seq_q"};
} // namespace

//===----------------------------------------------------------------------===//
// FlashAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> FlashAttentionOp::getConfigNames() {
  static const StringRef names[] = {"block_q", "block_k", "num_subgroups"};
  return names;
}

float FlashAttentionOp::getEffectiveSoftmaxScale() {
  if (std::optional<APFloat> scale = getSoftmaxScale())
    return scale->convertToFloat();
  int64_t headDim = getQuery().getType().getDimSize(3);
  return 1.0f / std::sqrt(static_cast<float>(headDim));
}

LogicalResult FlashAttentionOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<NamedTensor> q = v.tensor(getQuery(), "query", kBshdQuery);
  if (failed(q))
    return failure();
  FailureOr<NamedTensor> k = v.tensor(getKey(), "key", kBshdKey);
  if (failed(k))
    return failure();
  FailureOr<NamedTensor> val = v.tensor(getValue(), "value", kBshdValue);
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
      failed(v.dimDivides(*k, 2, *q, 2)))
    return failure();

  // Score-shaped operands broadcast over batch and heads.
  auto verifyScoreShaped = [&](TypedValue<RankedTensorType> value,
                               StringRef name, bool isMask) -> LogicalResult {
    if (!value)
      return success();
    FailureOr<NamedTensor> t = v.tensor(value, name, kScoreMatrix);
    if (failed(t))
      return failure();
    if (isMask ? failed(v.elementIs(*t, IntegerType::get(getContext(), 1)))
               : failed(v.isFloat(*t)))
      return failure();
    if (failed(v.dimBroadcasts(*t, 0, *q, 0)) ||
        failed(v.dimBroadcasts(*t, 1, *q, 2)) ||
        failed(v.dimMatches(*t, 2, *q, 1)) ||
        failed(v.dimMatches(*t, 3, *k, 1)))
      return failure();
    return success();
  };
  if (failed(verifyScoreShaped(getBias(), "bias", /*isMask=*/false)) ||
      failed(verifyScoreShaped(getMask(), "mask", /*isMask=*/true)))
    return failure();

  if (static_cast<bool>(getQSegmentIds()) !=
      static_cast<bool>(getKvSegmentIds()))
    return emitOpError("expects 'q_segment_ids' and 'kv_segment_ids' to be "
                       "given together");
  if (getQSegmentIds()) {
    Type i32 = IntegerType::get(getContext(), 32);
    FailureOr<NamedTensor> qs =
        v.tensor(getQSegmentIds(), "q_segment_ids", {"batch", "seq_q"});
    if (failed(qs) || failed(v.elementIs(*qs, i32)) ||
        failed(v.dimMatches(*qs, 0, *q, 0)) ||
        failed(v.dimMatches(*qs, 1, *q, 1)))
      return failure();
    FailureOr<NamedTensor> ks =
        v.tensor(getKvSegmentIds(), "kv_segment_ids", {"batch", "seq_k"});
    if (failed(ks) || failed(v.elementIs(*ks, i32)) ||
        failed(v.dimMatches(*ks, 0, *k, 0)) ||
        failed(v.dimMatches(*ks, 1, *k, 1)))
      return failure();
  }

  if (failed(v.positiveFinite(getSoftmaxScaleAttr(), "softmax_scale")) ||
      failed(v.positiveFinite(getLogitsSoftCapAttr(), "logits_soft_cap")))
    return failure();
  if (std::optional<ArrayRef<int64_t>> window = getSlidingWindow()) {
    if (window->size() != 2)
      return emitOpError("expects 'sliding_window' to have 2 elements "
                         "[left, right], got ")
             << window->size();
    if ((*window)[0] < 0 || (*window)[1] < 0)
      return emitOpError("expects 'sliding_window' sizes to be non-negative, "
                         "got [")
             << (*window)[0] << ", " << (*window)[1] << "]";
  }
  if (FloatAttr prob = getDropoutProbAttr()) {
    double p = prob.getValueAsDouble();
    if (!(p >= 0.0 && p < 1.0))
      return emitOpError("expects 'dropout_prob' to be in [0, 1), got ") << p;
    if (!getDropoutSeedAttr())
      return emitOpError("expects 'dropout_seed' when 'dropout_prob' is set");
  } else if (getDropoutSeedAttr()) {
    return emitOpError("expects 'dropout_seed' only with 'dropout_prob'");
  }

  FailureOr<NamedTensor> out = v.tensor(getOutput(), "output", kBshdOutput);
  if (failed(out) || failed(v.sameElement(*out, *q)) ||
      failed(v.dimMatches(*out, 0, *q, 0)) ||
      failed(v.dimMatches(*out, 1, *q, 1)) ||
      failed(v.dimMatches(*out, 2, *q, 2)) ||
      failed(v.dimMatches(*out, 3, *val, 3)))
    return failure();
  if (getLse()) {
    FailureOr<NamedTensor> lse = v.tensor(getLse(), "lse", kLse);
    if (failed(lse) ||
        failed(v.elementIs(*lse, Float32Type::get(getContext()))) ||
        failed(v.dimMatches(*lse, 0, *q, 0)) ||
        failed(v.dimMatches(*lse, 1, *q, 2)) ||
        failed(v.dimMatches(*lse, 2, *q, 1)))
      return failure();
  }
  return v.configNames(getConfigAttr(), getConfigNames());
}
