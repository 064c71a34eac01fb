//===- StateSpaceOps.cpp - Verifiers of the state-space family ------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/StateSpace/Config.h"

#include "ShapeVerifier.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
const StringRef kSeqChannels[] = {"batch", "seq", "channels"};
const StringRef kChannelState[] = {"channels", "d_state"};
const StringRef kGroupedState[] = {"batch", "seq", "groups", "d_state"};
const StringRef kScanState[] = {"batch", "channels", "d_state"};
const StringRef kBshp[] = {"batch", "seq", "num_heads", "head_dim"};
const StringRef kSeqHeads[] = {"batch", "seq", "num_heads"};
const StringRef kSsdState[] = {"batch", "num_heads", "head_dim", "d_state"};
} // namespace

/// Checks an optional tensor that must equal `source` in every dim and share
/// its element type (`delta`, `z`, the output `y`).
static LogicalResult verifyLike(ShapeVerifier &v,
                                TypedValue<RankedTensorType> value,
                                StringRef name, const NamedTensor &source) {
  if (!value)
    return success();
  FailureOr<NamedTensor> t = v.tensor(value, name, source.dimNames);
  if (failed(t) || failed(v.sameElement(*t, source)))
    return failure();
  for (unsigned i = 0, e = source.dimNames.size(); i < e; ++i)
    if (failed(v.dimMatches(*t, i, source, i)))
      return failure();
  return success();
}

/// Checks an optional f32 vector with one entry per dim `sourceDim` of
/// `source` (per-channel or per-head parameters: `A`, `D`, biases).
static LogicalResult verifyF32Vector(ShapeVerifier &v,
                                     TypedValue<RankedTensorType> value,
                                     StringRef name, const NamedTensor &source,
                                     unsigned sourceDim) {
  if (!value)
    return success();
  FailureOr<NamedTensor> t =
      v.tensor(value, name, {source.dimNames[sourceDim]});
  if (failed(t) ||
      failed(v.elementIs(*t, Float32Type::get(value.getContext()))) ||
      failed(v.dimMatches(*t, 0, source, sourceDim)))
    return failure();
  return success();
}

/// Checks `B` and `C`: `[batch, seq, groups, d_state]`, the element type of
/// `input`, `groups` dividing dim `sharedDim` of `input` (channels or heads).
/// Returns `B`, whose `d_state` the states must match.
static FailureOr<NamedTensor>
verifyGroupedProjections(ShapeVerifier &v, TypedValue<RankedTensorType> bValue,
                         TypedValue<RankedTensorType> cValue,
                         const NamedTensor &input, unsigned sharedDim) {
  FailureOr<NamedTensor> b = v.tensor(bValue, "B", kGroupedState);
  if (failed(b) || failed(v.sameElement(*b, input)) ||
      failed(v.dimMatches(*b, 0, input, 0)) ||
      failed(v.dimMatches(*b, 1, input, 1)) ||
      failed(v.dimDivides(*b, 2, input, sharedDim)))
    return failure();
  if (failed(verifyLike(v, cValue, "C", *b)))
    return failure();
  return *b;
}

//===----------------------------------------------------------------------===//
// SelectiveScanOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> SelectiveScanOp::getConfigNames() {
  return SelectiveScanConfig::names();
}

LogicalResult SelectiveScanOp::verify() {
  ShapeVerifier v(*this);
  Type f32 = Float32Type::get(getContext());
  FailureOr<NamedTensor> u = v.tensor(getU(), "u", kSeqChannels);
  if (failed(u) || failed(v.isFloat(*u)) ||
      failed(verifyLike(v, getDelta(), "delta", *u)))
    return failure();
  FailureOr<NamedTensor> a = v.tensor(getA(), "A", kChannelState);
  if (failed(a) || failed(v.elementIs(*a, f32)) ||
      failed(v.dimMatches(*a, 0, *u, 2)))
    return failure();
  FailureOr<NamedTensor> b = verifyGroupedProjections(v, getB(), getC(), *u, 2);
  if (failed(b) || failed(v.dimMatches(*b, 3, *a, 1)) ||
      failed(v.dimNotZero(*a, 1, "a scan needs a state")) ||
      (getInitialState() &&
       failed(v.dimNotZero(*u, 1,
                           "a scan of no steps over an "
                           "'initial_state' would only copy it"))) ||
      failed(verifyF32Vector(v, getD(), "D", *u, 2)) ||
      failed(verifyLike(v, getZ(), "z", *u)) ||
      failed(verifyF32Vector(v, getDeltaBias(), "delta_bias", *u, 2)))
    return failure();

  auto verifyState = [&](TypedValue<RankedTensorType> value,
                         StringRef name) -> LogicalResult {
    if (!value)
      return success();
    FailureOr<NamedTensor> s = v.tensor(value, name, kScanState);
    if (failed(s) || failed(v.elementIs(*s, f32)) ||
        failed(v.dimMatches(*s, 0, *u, 0)) ||
        failed(v.dimMatches(*s, 1, *u, 2)) ||
        failed(v.dimMatches(*s, 2, *a, 1)))
      return failure();
    return success();
  };
  if (failed(verifyState(getInitialState(), "initial_state")) ||
      failed(verifyLike(v, getY(), "y", *u)) ||
      failed(verifyState(getFinalState(), "final_state")))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// SsdOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> SsdOp::getConfigNames() { return SsdConfig::names(); }

std::optional<int64_t> SsdOp::getEffectiveChunkSize() {
  if (ConfigAttr config = getConfigAttr())
    if (std::optional<int64_t> chunk = config.lookup(SsdConfig::kChunkSize))
      return chunk;
  if (IntegerAttr chunkSize = getChunkSizeAttr())
    return chunkSize.getInt();
  return std::nullopt;
}

LogicalResult SsdOp::verify() {
  ShapeVerifier v(*this);
  Type f32 = Float32Type::get(getContext());
  FailureOr<NamedTensor> x = v.tensor(getX(), "x", kBshp);
  if (failed(x) || failed(v.isFloat(*x)))
    return failure();
  FailureOr<NamedTensor> dt = v.tensor(getDt(), "dt", kSeqHeads);
  if (failed(dt) || failed(v.sameElement(*dt, *x)) ||
      failed(v.dimMatches(*dt, 0, *x, 0)) ||
      failed(v.dimMatches(*dt, 1, *x, 1)) ||
      failed(v.dimMatches(*dt, 2, *x, 2)) ||
      failed(verifyF32Vector(v, getA(), "A", *x, 2)))
    return failure();
  FailureOr<NamedTensor> b = verifyGroupedProjections(v, getB(), getC(), *x, 2);
  if (failed(b) || failed(v.dimNotZero(*b, 3, "a scan needs a state")) ||
      (getInitialState() &&
       failed(v.dimNotZero(*x, 1,
                           "a scan of no steps over an "
                           "'initial_state' would only copy it"))) ||
      failed(verifyF32Vector(v, getD(), "D", *x, 2)) ||
      failed(verifyLike(v, getZ(), "z", *x)) ||
      failed(verifyF32Vector(v, getDtBias(), "dt_bias", *x, 2)))
    return failure();

  auto verifyState = [&](TypedValue<RankedTensorType> value,
                         StringRef name) -> LogicalResult {
    if (!value)
      return success();
    FailureOr<NamedTensor> s = v.tensor(value, name, kSsdState);
    if (failed(s) || failed(v.elementIs(*s, f32)) ||
        failed(v.dimMatches(*s, 0, *x, 0)) ||
        failed(v.dimMatches(*s, 1, *x, 2)) ||
        failed(v.dimMatches(*s, 2, *x, 3)) ||
        failed(v.dimMatches(*s, 3, *b, 3)))
      return failure();
    return success();
  };
  if (failed(verifyState(getInitialState(), "initial_state")) ||
      failed(v.atLeast(getChunkSizeAttr(), "chunk_size", 1)) ||
      failed(verifyLike(v, getY(), "y", *x)) ||
      failed(verifyState(getFinalState(), "final_state")) ||
      failed(v.configNames(getConfigAttr(), getConfigNames())))
    return failure();
  return success();
}
