//===- LinearOps.cpp - Verifiers of the linear-recurrent family -----------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

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

ArrayRef<StringRef> GlaOp::getConfigNames() { return linearConfigNames(); }

float GlaOp::getEffectiveScale() { return effectiveScale(*this); }

LogicalResult GlaOp::verify() {
  return verifyLinearOp(*this, [&](ShapeVerifier &v, const QueryKeyValue &qkv) {
    return verifyPerStep(v, getG(), "g", kQueryDims, qkv, qkv.query);
  });
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
