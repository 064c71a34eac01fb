//===- LinearOps.cpp - Verifiers of the linear-recurrent family -----------===//

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Linear/Config.h"

#include "ShapeVerifier.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ejk;

namespace {
const StringRef kQueryDims[] = {"batch", "seq", "num_heads", "head_dim_k"};
const StringRef kKeyDims[] = {"batch", "seq", "num_kv_heads", "head_dim_k"};
const StringRef kKvValueDims[] = {"batch", "seq", "num_kv_heads", "head_dim_v"};
const StringRef kValueDims[] = {"batch", "seq", "num_heads", "head_dim_v"};
const StringRef kSeqStateDims[] = {"num_seqs", "num_heads", "head_dim_k",
                                   "head_dim_v"};
const StringRef kHeadGateDims[] = {"batch", "seq", "num_heads"};

/// What every op of the family shares, once verified: `query`, `key`,
/// `value` and the number of sequences.
struct LinearOperands {
  NamedTensor query, key, value;
  /// `batch`, or the entries of `cu_seqlens` minus one.
  int64_t numSeqs;
  bool packed;
};
} // namespace

/// Checks a per-step operand against the leading dims of `source`, dim for
/// dim (same names), with the element type of `query`. With `valueDims`,
/// the operand has one more dim: head_dim_v, `value`'s last. Absent
/// operands pass.
static LogicalResult verifyPerStep(ShapeVerifier &v,
                                   TypedValue<RankedTensorType> value,
                                   StringRef name, ArrayRef<StringRef> dimNames,
                                   const LinearOperands &ops,
                                   const NamedTensor &source,
                                   ArrayRef<StringRef> valueDims = {}) {
  if (!value)
    return success();
  FailureOr<NamedTensor> t =
      v.tensor(value, name, valueDims.empty() ? dimNames : valueDims);
  if (failed(t) || failed(v.sameElement(*t, ops.query)))
    return failure();
  for (unsigned i = 0, e = dimNames.size(); i < e; ++i)
    if (failed(v.dimMatches(*t, i, source, i)))
      return failure();
  if (!valueDims.empty())
    return v.dimMatches(*t, dimNames.size(), ops.value, 3);
  return success();
}

/// Checks an operand that is one of two ranks: `[...short]` or
/// `[...short, long.back()]` (a per-head gate or one per key dim, say).
static LogicalResult
verifyEitherRank(Operation *op, ShapeVerifier &v,
                 TypedValue<RankedTensorType> value, StringRef name,
                 ArrayRef<StringRef> shortDims, ArrayRef<StringRef> longDims,
                 function_ref<LogicalResult(const NamedTensor &)> checkDims) {
  if (!value)
    return success();
  int64_t rank = value.getType().getRank();
  if (rank != static_cast<int64_t>(shortDims.size()) &&
      rank != static_cast<int64_t>(longDims.size()))
    return op->emitOpError("expects '")
           << name << "' to have rank " << shortDims.size() << " ["
           << llvm::join(shortDims, ", ") << "] or " << longDims.size() << " ["
           << llvm::join(longDims, ", ") << "], got rank " << rank;
  FailureOr<NamedTensor> t = v.tensor(
      value, name,
      rank == static_cast<int64_t>(shortDims.size()) ? shortDims : longDims);
  if (failed(t))
    return failure();
  return checkDims(*t);
}

/// Checks `g_gamma`: f32, `[num_heads]` or `[num_seqs, num_heads]`.
static LogicalResult verifyGamma(Operation *op, ShapeVerifier &v,
                                 TypedValue<RankedTensorType> value,
                                 const LinearOperands &ops) {
  static const StringRef kHeads[] = {"num_heads"};
  static const StringRef kSeqHeads[] = {"num_seqs", "num_heads"};
  return verifyEitherRank(
      op, v, value, "g_gamma", kHeads, kSeqHeads,
      [&](const NamedTensor &t) -> LogicalResult {
        if (failed(v.elementIs(t, Float32Type::get(op->getContext()))))
          return failure();
        if (t.type.getRank() == 2 &&
            failed(ops.packed
                       ? v.dimEquals(t, 0, ops.numSeqs,
                                     "one row per sequence: 'cu_seqlens' dim "
                                     "0 (num_seqs_plus_one) minus 1")
                       : v.dimMatches(t, 0, ops.query, 0)))
          return failure();
        return v.dimMatches(t, t.type.getRank() - 1, ops.query, 2);
      });
}

/// Checks an `initial_state` / `final_state`: `[num_seqs, num_heads,
/// head_dim_k, head_dim_v]`, f32. Absent states pass.
static LogicalResult verifySeqState(Operation *op, ShapeVerifier &v,
                                    TypedValue<RankedTensorType> value,
                                    StringRef name, const LinearOperands &ops) {
  if (!value)
    return success();
  FailureOr<NamedTensor> s = v.tensor(value, name, kSeqStateDims);
  if (failed(s) ||
      failed(v.elementIs(*s, Float32Type::get(op->getContext()))) ||
      failed(ops.packed ? v.dimEquals(*s, 0, ops.numSeqs,
                                      "one state per sequence: 'cu_seqlens' "
                                      "dim 0 (num_seqs_plus_one) minus 1")
                        : v.dimMatches(*s, 0, ops.query, 0)) ||
      failed(v.dimMatches(*s, 1, ops.query, 2)) ||
      failed(v.dimMatches(*s, 2, ops.query, 3)) ||
      failed(v.dimMatches(*s, 3, ops.value, 3)))
    return failure();
  return success();
}

/// The checks every op of the family shares, around `verifyOperands` (the
/// op's own gates and rates): GQA `query` / `key` / `value`, packed
/// sequences, the states, `scale`, the output and the config names.
template <typename OpTy>
static LogicalResult verifyLinearOp(
    OpTy op,
    function_ref<LogicalResult(ShapeVerifier &, const LinearOperands &)>
        verifyOperands) {
  ShapeVerifier v(op);
  FailureOr<NamedTensor> q = v.tensor(op.getQuery(), "query", kQueryDims);
  if (failed(q) || failed(v.isFloat(*q)) ||
      failed(v.dimNotZero(*q, 3,
                          "a state of no key dim gives 0 for every query")) ||
      (op.getInitialState() &&
       failed(v.dimNotZero(*q, 1,
                           "a scan of no steps over an 'initial_state' "
                           "would only copy it"))))
    return failure();
  FailureOr<NamedTensor> k = v.tensor(op.getKey(), "key", kKeyDims);
  if (failed(k) || failed(v.sameElement(*k, *q)) ||
      failed(v.dimMatches(*k, 0, *q, 0)) ||
      failed(v.dimMatches(*k, 1, *q, 1)) ||
      failed(v.dimDivides(*k, 2, *q, 2)) || failed(v.dimMatches(*k, 3, *q, 3)))
    return failure();
  FailureOr<NamedTensor> val = v.tensor(op.getValue(), "value", kKvValueDims);
  if (failed(val) || failed(v.sameElement(*val, *q)))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(v.dimMatches(*val, i, *k, i)))
      return failure();
  LinearOperands ops{*q, *k, *val, q->dim(0), false};
  if (op.getCuSeqlens()) {
    FailureOr<NamedTensor> cu =
        v.tensor(op.getCuSeqlens(), "cu_seqlens", {"num_seqs_plus_one"});
    if (failed(cu) ||
        failed(v.elementIs(*cu, IntegerType::get(op.getContext(), 32))))
      return failure();
    if (cu->dim(0) < 1)
      return op.emitOpError("expects 'cu_seqlens' dim 0 (num_seqs_plus_one) "
                            "to be at least 1, got ")
             << cu->dim(0);
    if (failed(v.dimEquals(*q, 0, 1, "packed sequences ('cu_seqlens')")))
      return failure();
    ops.numSeqs = cu->dim(0) - 1;
    ops.packed = true;
  }
  if (failed(verifyOperands(v, ops)) ||
      failed(
          verifySeqState(op, v, op.getInitialState(), "initial_state", ops)) ||
      failed(v.positiveFinite(op.getScaleAttr(), "scale")))
    return failure();
  FailureOr<NamedTensor> out = v.tensor(op.getOutput(), "output", kValueDims);
  if (failed(out) || failed(v.sameElement(*out, *q)))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(v.dimMatches(*out, i, *q, i)))
      return failure();
  if (failed(v.dimMatches(*out, 3, *val, 3)) ||
      failed(verifySeqState(op, v, op.getFinalState(), "final_state", ops)))
    return failure();
  return v.configNames(op.getConfigAttr(), OpTy::getConfigNames());
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
  return verifyLinearOp(
      *this, [&](ShapeVerifier &v, const LinearOperands &ops) -> LogicalResult {
        if (failed(verifyPerStep(v, getG(), "g", kQueryDims, ops, ops.query)))
          return failure();
        return verifyGamma(*this, v, getGGamma(), ops);
      });
}

//===----------------------------------------------------------------------===//
// LightningAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> LightningAttentionOp::getConfigNames() {
  return GlaConfig::names();
}

float LightningAttentionOp::getEffectiveScale() {
  return effectiveScale(*this);
}

float LightningAttentionOp::getLayerSlope(int64_t head) {
  int64_t heads = getQuery().getType().getDimSize(2);
  double depth =
      1.0 - static_cast<double>(static_cast<int64_t>(*getLayerIdx())) /
                static_cast<double>(static_cast<int64_t>(*getNumLayers()));
  return static_cast<float>(8.0 / static_cast<double>(heads) * depth *
                            static_cast<double>(head));
}

LogicalResult LightningAttentionOp::verify() {
  return verifyLinearOp(
      *this, [&](ShapeVerifier &v, const LinearOperands &ops) -> LogicalResult {
        bool layerForm = getLayerIdx() || getNumLayers();
        if (getSlopes() && layerForm)
          return emitOpError("expects either 'slopes' or 'layer_idx' and "
                             "'num_layers', not both");
        if (!getSlopes() && !layerForm)
          return emitOpError(
              "expects the decay rates: 'slopes', or 'layer_idx' "
              "and 'num_layers'");
        if (layerForm) {
          if (!getLayerIdx() || !getNumLayers())
            return emitOpError("expects 'layer_idx' and 'num_layers' together");
          // I64Attr reads as uint64_t: the signed values.
          auto layer = static_cast<int64_t>(*getLayerIdx());
          auto layers = static_cast<int64_t>(*getNumLayers());
          if (layers < 1)
            return emitOpError("expects 'num_layers' to be at least 1, got ")
                   << layers;
          if (layer < 0 || layer >= layers)
            return emitOpError("expects 'layer_idx' in [0, num_layers) = [0, ")
                   << layers << "), got " << layer;
          return success();
        }
        FailureOr<NamedTensor> slopes =
            v.tensor(getSlopes(), "slopes", {"num_heads"});
        if (failed(slopes) ||
            failed(v.elementIs(*slopes, Float32Type::get(getContext()))) ||
            failed(v.dimMatches(*slopes, 0, ops.query, 2)))
          return failure();
        return success();
      });
}

//===----------------------------------------------------------------------===//
// DeltaAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> DeltaAttentionOp::getConfigNames() {
  return GlaConfig::names();
}

float DeltaAttentionOp::getEffectiveScale() { return effectiveScale(*this); }

LogicalResult DeltaAttentionOp::verify() {
  return verifyLinearOp(
      *this, [&](ShapeVerifier &v, const LinearOperands &ops) -> LogicalResult {
        if (failed(verifyPerStep(v, getBeta(), "beta", kHeadGateDims, ops,
                                 ops.query)))
          return failure();
        return verifyEitherRank(
            *this, v, getDecay(), "decay", kHeadGateDims, kQueryDims,
            [&](const NamedTensor &t) -> LogicalResult {
              if (failed(v.sameElement(t, ops.query)))
                return failure();
              for (unsigned i = 0, e = t.type.getRank(); i < e; ++i)
                if (failed(v.dimMatches(t, i, ops.query, i)))
                  return failure();
              return success();
            });
      });
}

//===----------------------------------------------------------------------===//
// RecurrentOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> RecurrentOp::getConfigNames() { return GlaConfig::names(); }

float RecurrentOp::getEffectiveScale() { return effectiveScale(*this); }

LogicalResult RecurrentOp::verify() {
  return verifyLinearOp(
      *this, [&](ShapeVerifier &v, const LinearOperands &ops) -> LogicalResult {
        if (failed(verifyPerStep(v, getG(), "g", kQueryDims, ops, ops.query)) ||
            failed(
                verifyPerStep(v, getGk(), "gk", kQueryDims, ops, ops.query)) ||
            failed(verifyPerStep(v, getGv(), "gv", kHeadGateDims, ops,
                                 ops.query, kValueDims)))
          return failure();
        return verifyGamma(*this, v, getGGamma(), ops);
      });
}
