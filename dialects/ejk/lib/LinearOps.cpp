//===- LinearOps.cpp - Verifiers of the linear-recurrent family -----------===//

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Linear/Config.h"

#include "ShapeVerifier.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ejk;

namespace {
const StringRef kQueryDims[] = {"batch", "seq", "num_heads", "head_dim_k"};
const StringRef kValueDims[] = {"batch", "seq", "num_heads", "head_dim_v"};
const StringRef kStateDims[] = {"batch", "num_heads", "head_dim_k",
                                "head_dim_v"};
const StringRef kHeadGateDims[] = {"batch", "seq", "num_heads"};

/// The verified `query`, `key` and `value` of a linear-recurrent op.
struct QueryKeyValue {
  NamedTensor query;
  NamedTensor key;
  NamedTensor value;
};
} // namespace

static FailureOr<QueryKeyValue>
verifyQueryKeyValue(ShapeVerifier &v, TypedValue<RankedTensorType> query,
                    TypedValue<RankedTensorType> key,
                    TypedValue<RankedTensorType> value) {
  FailureOr<NamedTensor> q = v.tensor(query, "query", kQueryDims);
  if (failed(q) || failed(v.isFloat(*q)))
    return failure();
  FailureOr<NamedTensor> k = v.tensor(key, "key", kQueryDims);
  if (failed(k) || failed(v.sameElement(*k, *q)))
    return failure();
  for (unsigned i = 0; i < 4; ++i)
    if (failed(v.dimMatches(*k, i, *q, i)))
      return failure();
  FailureOr<NamedTensor> val = v.tensor(value, "value", kValueDims);
  if (failed(val) || failed(v.sameElement(*val, *q)))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(v.dimMatches(*val, i, *q, i)))
      return failure();
  return QueryKeyValue{*q, *k, *val};
}

/// Checks an operand given per step (a gate or a learning rate): the element
/// type of `query` and, dim for dim, the leading dims of `source` (`query` or
/// `value`). Absent operands pass.
static LogicalResult verifyPerStep(ShapeVerifier &v,
                                   TypedValue<RankedTensorType> value,
                                   StringRef name, ArrayRef<StringRef> dimNames,
                                   const QueryKeyValue &qkv,
                                   const NamedTensor &source) {
  if (!value)
    return success();
  FailureOr<NamedTensor> t = v.tensor(value, name, dimNames);
  if (failed(t) || failed(v.sameElement(*t, qkv.query)))
    return failure();
  for (unsigned i = 0, e = dimNames.size(); i < e; ++i)
    if (failed(v.dimMatches(*t, i, source, i)))
      return failure();
  return success();
}

/// Checks an `initial_state` / `final_state`: `[batch, num_heads, head_dim_k,
/// head_dim_v]`, f32. Absent states pass.
static LogicalResult verifyState(ShapeVerifier &v,
                                 TypedValue<RankedTensorType> value,
                                 StringRef name, const QueryKeyValue &qkv) {
  if (!value)
    return success();
  FailureOr<NamedTensor> s = v.tensor(value, name, kStateDims);
  if (failed(s) ||
      failed(v.elementIs(*s, Float32Type::get(value.getContext()))) ||
      failed(v.dimMatches(*s, 0, qkv.query, 0)) ||
      failed(v.dimMatches(*s, 1, qkv.query, 2)) ||
      failed(v.dimMatches(*s, 2, qkv.query, 3)) ||
      failed(v.dimMatches(*s, 3, qkv.value, 3)))
    return failure();
  return success();
}

/// The checks every op of the family shares, around `verifyOperands` (the
/// op's own per-step operands).
template <typename OpTy>
static LogicalResult verifyLinearOp(
    OpTy op, function_ref<LogicalResult(ShapeVerifier &, const QueryKeyValue &)>
                 verifyOperands) {
  ShapeVerifier v(op);
  FailureOr<QueryKeyValue> qkv =
      verifyQueryKeyValue(v, op.getQuery(), op.getKey(), op.getValue());
  if (failed(qkv) || failed(verifyOperands(v, *qkv)) ||
      failed(verifyState(v, op.getInitialState(), "initial_state", *qkv)) ||
      failed(v.positiveFinite(op.getScaleAttr(), "scale")))
    return failure();
  FailureOr<NamedTensor> out = v.tensor(op.getOutput(), "output", kValueDims);
  if (failed(out) || failed(v.sameElement(*out, qkv->query)))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(v.dimMatches(*out, i, qkv->query, i)))
      return failure();
  if (failed(v.dimMatches(*out, 3, qkv->value, 3)) ||
      failed(verifyState(v, op.getFinalState(), "final_state", *qkv)))
    return failure();
  return v.configNames(op.getConfigAttr(), OpTy::getConfigNames());
}

static ArrayRef<StringRef> linearConfigNames() {
  static const StringRef names[] = {"chunk_size", "block_k", "block_v"};
  return names;
}

template <typename OpTy> static float effectiveScale(OpTy op) {
  if (std::optional<APFloat> scale = op.getScale())
    return scale->convertToFloat();
  int64_t headDimK = op.getQuery().getType().getDimSize(3);
  return 1.0f / std::sqrt(static_cast<float>(headDimK));
}

//===----------------------------------------------------------------------===//
// GlaOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> GlaOp::getConfigNames() { return GlaConfig::names(); }

float GlaOp::getEffectiveScale() { return effectiveScale(*this); }

LogicalResult GlaOp::verify() {
  ShapeVerifier v(*this);
  static const StringRef kKeyDims[] = {"batch", "seq", "num_kv_heads",
                                       "head_dim_k"};
  static const StringRef kKvValueDims[] = {"batch", "seq", "num_kv_heads",
                                           "head_dim_v"};
  static const StringRef kSeqStateDims[] = {"num_seqs", "num_heads",
                                            "head_dim_k", "head_dim_v"};
  FailureOr<NamedTensor> q = v.tensor(getQuery(), "query", kQueryDims);
  if (failed(q) || failed(v.isFloat(*q)))
    return failure();
  FailureOr<NamedTensor> k = v.tensor(getKey(), "key", kKeyDims);
  if (failed(k) || failed(v.sameElement(*k, *q)) ||
      failed(v.dimMatches(*k, 0, *q, 0)) ||
      failed(v.dimMatches(*k, 1, *q, 1)) ||
      failed(v.dimDivides(*k, 2, *q, 2)) || failed(v.dimMatches(*k, 3, *q, 3)))
    return failure();
  FailureOr<NamedTensor> val = v.tensor(getValue(), "value", kKvValueDims);
  if (failed(val) || failed(v.sameElement(*val, *q)))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(v.dimMatches(*val, i, *k, i)))
      return failure();
  if (getG()) {
    FailureOr<NamedTensor> g = v.tensor(getG(), "g", kQueryDims);
    if (failed(g) || failed(v.sameElement(*g, *q)))
      return failure();
    for (unsigned i = 0; i < 4; ++i)
      if (failed(v.dimMatches(*g, i, *q, i)))
        return failure();
  }
  if (getGGamma()) {
    FailureOr<NamedTensor> gamma =
        v.tensor(getGGamma(), "g_gamma", {"num_heads"});
    if (failed(gamma) ||
        failed(v.elementIs(*gamma, Float32Type::get(getContext()))) ||
        failed(v.dimMatches(*gamma, 0, *q, 2)))
      return failure();
  }
  // The number of sequences: the batch, or one less than the entries of
  // `cu_seqlens` (with a batch of 1).
  int64_t numSeqs = q->dim(0);
  if (getCuSeqlens()) {
    FailureOr<NamedTensor> cu =
        v.tensor(getCuSeqlens(), "cu_seqlens", {"num_seqs_plus_one"});
    if (failed(cu) ||
        failed(v.elementIs(*cu, IntegerType::get(getContext(), 32))))
      return failure();
    if (cu->dim(0) < 1)
      return emitOpError("expects 'cu_seqlens' dim 0 (num_seqs_plus_one) to "
                         "be at least 1, got ")
             << cu->dim(0);
    if (failed(v.dimEquals(*q, 0, 1, "packed sequences ('cu_seqlens')")))
      return failure();
    numSeqs = cu->dim(0) - 1;
  }
  auto verifySeqState = [&](TypedValue<RankedTensorType> value,
                            StringRef name) -> LogicalResult {
    if (!value)
      return success();
    FailureOr<NamedTensor> s = v.tensor(value, name, kSeqStateDims);
    if (failed(s) || failed(v.elementIs(*s, Float32Type::get(getContext()))) ||
        failed(getCuSeqlens()
                   ? v.dimEquals(*s, 0, numSeqs,
                                 "one state per sequence: 'cu_seqlens' dim 0 "
                                 "(num_seqs_plus_one) minus 1")
                   : v.dimMatches(*s, 0, *q, 0)) ||
        failed(v.dimMatches(*s, 1, *q, 2)) ||
        failed(v.dimMatches(*s, 2, *q, 3)) ||
        failed(v.dimMatches(*s, 3, *val, 3)))
      return failure();
    return success();
  };
  if (failed(verifySeqState(getInitialState(), "initial_state")) ||
      failed(v.positiveFinite(getScaleAttr(), "scale")))
    return failure();
  FailureOr<NamedTensor> out = v.tensor(getOutput(), "output", kValueDims);
  if (failed(out) || failed(v.sameElement(*out, *q)))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(v.dimMatches(*out, i, *q, i)))
      return failure();
  if (failed(v.dimMatches(*out, 3, *val, 3)) ||
      failed(verifySeqState(getFinalState(), "final_state")))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// LightningAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> LightningAttentionOp::getConfigNames() {
  return linearConfigNames();
}

float LightningAttentionOp::getEffectiveScale() {
  return effectiveScale(*this);
}

LogicalResult LightningAttentionOp::verify() {
  return verifyLinearOp(*this, [&](ShapeVerifier &v, const QueryKeyValue &qkv) {
    FailureOr<NamedTensor> slopes =
        v.tensor(getSlopes(), "slopes", {"num_heads"});
    if (failed(slopes) ||
        failed(v.elementIs(*slopes, Float32Type::get(getContext()))) ||
        failed(v.dimMatches(*slopes, 0, qkv.query, 2)))
      return failure();
    return success();
  });
}

//===----------------------------------------------------------------------===//
// DeltaAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> DeltaAttentionOp::getConfigNames() {
  return linearConfigNames();
}

float DeltaAttentionOp::getEffectiveScale() { return effectiveScale(*this); }

LogicalResult DeltaAttentionOp::verify() {
  return verifyLinearOp(*this, [&](ShapeVerifier &v, const QueryKeyValue &qkv) {
    return verifyPerStep(v, getBeta(), "beta", kHeadGateDims, qkv, qkv.query);
  });
}

//===----------------------------------------------------------------------===//
// RecurrentOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> RecurrentOp::getConfigNames() {
  return linearConfigNames();
}

float RecurrentOp::getEffectiveScale() { return effectiveScale(*this); }

LogicalResult RecurrentOp::verify() {
  return verifyLinearOp(*this, [&](ShapeVerifier &v, const QueryKeyValue &qkv) {
    if (failed(verifyPerStep(v, getG(), "g", kHeadGateDims, qkv, qkv.query)) ||
        failed(verifyPerStep(v, getGk(), "gk", kQueryDims, qkv, qkv.query)) ||
        failed(verifyPerStep(v, getGv(), "gv", kValueDims, qkv, qkv.value)))
      return failure();
    return success();
  });
}
