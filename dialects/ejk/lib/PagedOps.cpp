//===- PagedOps.cpp - Verifiers of the paged attention family -------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Paged/Config.h"

#include "ShapeVerifier.h"
#include "SoftmaxScale.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ejk;

namespace {
const StringRef kPages[] = {"num_pages", "page_size", "num_kv_heads",
                            "head_dim"};
const StringRef kHeadMajorPages[] = {"num_pages", "num_kv_heads", "page_size",
                                     "head_dim"};

/// The key and value page pools of a paged op, once verified.
struct PagedCache {
  NamedTensor key, value;
};
} // namespace

/// Checks the key and value page pools against `query`, whose dims
/// `headsDim` and `headDimDim` are num_heads and head_dim. The pools are
/// `[num_pages, page_size, num_kv_heads, head_dim]` (token-major) or, with
/// `headMajor`, `[num_pages, num_kv_heads, page_size, head_dim]`. They may
/// have another float element type than `query` (e.g. an f16 cache read by
/// f32 queries), or with `allowInt8` be i8 (quantized), but share one
/// between them.
static FailureOr<PagedCache>
verifyPagedCache(ShapeVerifier &v, TypedValue<RankedTensorType> key,
                 StringRef keyName, TypedValue<RankedTensorType> value,
                 StringRef valueName, const NamedTensor &query,
                 unsigned headsDim, unsigned headDimDim, bool headMajor = false,
                 bool allowInt8 = false) {
  ArrayRef<StringRef> dims = headMajor ? ArrayRef<StringRef>(kHeadMajorPages)
                                       : ArrayRef<StringRef>(kPages);
  unsigned kvHeadsDim = headMajor ? 1 : 2;
  FailureOr<NamedTensor> k = v.tensor(key, keyName, dims);
  if (failed(k))
    return failure();
  FailureOr<NamedTensor> val = v.tensor(value, valueName, dims);
  if (failed(val))
    return failure();
  if (failed(allowInt8 ? v.isFloatOrInt8(*k) : v.isFloat(*k)) ||
      failed(v.sameElement(*val, *k)))
    return failure();
  for (unsigned i = 0; i < 4; ++i)
    if (failed(v.dimMatches(*val, i, *k, i)))
      return failure();
  if (failed(v.dimMatches(*k, 3, query, headDimDim)) ||
      failed(v.dimDivides(*k, kvHeadsDim, query, headsDim)))
    return failure();
  return PagedCache{*k, *val};
}

/// Checks an i32 index tensor whose dim 0 matches dim `sourceDim` of
/// `source`.
static FailureOr<NamedTensor>
verifyIndexTensor(ShapeVerifier &v, TypedValue<RankedTensorType> value,
                  StringRef name, ArrayRef<StringRef> dimNames,
                  const NamedTensor &source, unsigned sourceDim) {
  FailureOr<NamedTensor> t = v.tensor(value, name, dimNames);
  if (failed(t) ||
      failed(v.elementIs(*t, IntegerType::get(value.getContext(), 32))) ||
      failed(v.dimMatches(*t, 0, source, sourceDim)))
    return failure();
  return t;
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

/// Checks the attributes every paged op has.
static LogicalResult verifyScaleAndCap(ShapeVerifier &v, FloatAttr scale,
                                       FloatAttr cap) {
  if (failed(v.positiveFinite(scale, "softmax_scale")) ||
      failed(v.positiveFinite(cap, "logits_soft_cap")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// PagedAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> PagedAttentionOp::getConfigNames() {
  return PagedAttentionConfig::names();
}

float PagedAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(2));
}

LogicalResult PagedAttentionOp::verify() {
  ShapeVerifier v(*this);
  std::optional<StringRef> layout = getKvLayout();
  if (layout && *layout != "head_major" && *layout != "token_major")
    return emitOpError("expects 'kv_layout' to be \"head_major\" or "
                       "\"token_major\", got \"")
           << *layout << "\"";
  FailureOr<NamedTensor> q =
      v.tensor(getQuery(), "query", {"batch", "num_heads", "head_dim"});
  if (failed(q) || failed(v.isFloat(*q)))
    return failure();
  if (failed(verifyPagedCache(v, getKeyCache(), "key_cache", getValueCache(),
                              "value_cache", *q, /*headsDim=*/1,
                              /*headDimDim=*/2, !isTokenMajor(),
                              /*allowInt8=*/true)))
    return failure();
  if (failed(verifyIndexTensor(v, getContextLens(), "context_lens", {"batch"},
                               *q, 0)) ||
      failed(verifyIndexTensor(v, getBlockTables(), "block_tables",
                               {"batch", "max_pages_per_seq"}, *q, 0)))
    return failure();
  if (failed(verifyScaleAndCap(v, getSoftmaxScaleAttr(),
                               getLogitsSoftCapAttr())) ||
      failed(v.positiveFinite(getKScaleAttr(), "k_scale")) ||
      failed(v.positiveFinite(getVScaleAttr(), "v_scale")) ||
      failed(v.atLeast(getSlidingWindowAttr(), "sliding_window", 1)) ||
      failed(verifySameAs(v, getOutput(), "output", *q)))
    return failure();
  if (TypedValue<RankedTensorType> lseValue = getLse()) {
    FailureOr<NamedTensor> lse =
        v.tensor(lseValue, "lse", {"batch", "num_heads"});
    if (failed(lse) ||
        failed(v.elementIs(*lse, Float32Type::get(getContext()))) ||
        failed(v.dimMatches(*lse, 0, *q, 0)) ||
        failed(v.dimMatches(*lse, 1, *q, 1)))
      return failure();
  }
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// RaggedPagedAttentionOp
//===----------------------------------------------------------------------===//

/// Checks `kv_layout` of a paged op.
static LogicalResult verifyLayout(Operation *op,
                                  std::optional<StringRef> layout) {
  if (layout && *layout != "head_major" && *layout != "token_major")
    return op->emitOpError("expects 'kv_layout' to be \"head_major\" or "
                           "\"token_major\", got \"")
           << *layout << "\"";
  return success();
}

ArrayRef<StringRef> RaggedPagedAttentionOp::getConfigNames() {
  return RaggedPagedConfig::names();
}

float RaggedPagedAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQueries().getType().getDimSize(2));
}

LogicalResult RaggedPagedAttentionOp::verify() {
  ShapeVerifier v(*this);
  if (failed(verifyLayout(*this, getKvLayout())))
    return failure();
  FailureOr<NamedTensor> q = v.tensor(getQueries(), "queries",
                                      {"num_tokens", "num_heads", "head_dim"});
  if (failed(q) || failed(v.isFloat(*q)))
    return failure();
  FailureOr<PagedCache> cache = verifyPagedCache(
      v, getKeyPages(), "key_pages", getValuePages(), "value_pages", *q,
      /*headsDim=*/1, /*headDimDim=*/2, !isTokenMajor(), /*allowInt8=*/true);
  if (failed(cache))
    return failure();

  Type i32 = IntegerType::get(getContext(), 32);
  FailureOr<NamedTensor> kvLens =
      v.tensor(getKvLens(), "kv_lens", {"num_seqs"});
  if (failed(kvLens) || failed(v.elementIs(*kvLens, i32)))
    return failure();
  if (failed(verifyIndexTensor(v, getPageIndices(), "page_indices",
                               {"num_seqs", "pages_per_seq"}, *kvLens, 0)))
    return failure();
  FailureOr<NamedTensor> cuQLens =
      v.tensor(getCuQLens(), "cu_q_lens", {"num_seqs + 1"});
  if (failed(cuQLens) || failed(v.elementIs(*cuQLens, i32)) ||
      failed(v.dimEquals(*cuQLens, 0, kvLens->dim(0) + 1,
                         "1 + 'kv_lens' dim 0 (num_seqs)")))
    return failure();
  FailureOr<NamedTensor> numSeqs =
      v.tensor(getNumSeqs(), "num_seqs", {"count"});
  if (failed(numSeqs) || failed(v.elementIs(*numSeqs, i32)) ||
      failed(v.dimEquals(*numSeqs, 0, 1, "a single count")))
    return failure();

  if (TypedValue<RankedTensorType> keys = getNewKeys()) {
    unsigned kvHeadsDim = isTokenMajor() ? 2 : 1;
    FailureOr<NamedTensor> k =
        v.tensor(keys, "new_keys", {"num_tokens", "num_kv_heads", "head_dim"});
    if (failed(k) || failed(v.isFloat(*k)) ||
        failed(v.dimMatches(*k, 0, *q, 0)) ||
        failed(v.dimMatches(*k, 1, cache->key, kvHeadsDim)) ||
        failed(v.dimMatches(*k, 2, *q, 2)) ||
        failed(verifySameAs(v, getNewValues(), "new_values", *k)))
      return failure();
    if (!getUpdatedKeyPages() || !getUpdatedValuePages())
      return emitOpError("expects the results 'updated_key_pages' and "
                         "'updated_value_pages' with 'new_kv'");
    if (failed(verifySameAs(v, getUpdatedKeyPages(), "updated_key_pages",
                            cache->key)) ||
        failed(verifySameAs(v, getUpdatedValuePages(), "updated_value_pages",
                            cache->value)))
      return failure();
  } else if (getUpdatedKeyPages() || getUpdatedValuePages()) {
    return emitOpError("expects 'new_kv' operands for the results "
                       "'updated_key_pages' and 'updated_value_pages'");
  }
  if (TypedValue<RankedTensorType> aux = getSoftmaxAux()) {
    FailureOr<NamedTensor> sinks = v.tensor(aux, "softmax_aux", {"num_heads"});
    if (failed(sinks) || failed(v.isFloat(*sinks)) ||
        failed(v.dimMatches(*sinks, 0, *q, 1)))
      return failure();
  }

  if (failed(verifyScaleAndCap(v, getSoftmaxScaleAttr(),
                               getLogitsSoftCapAttr())) ||
      failed(v.positiveFinite(getKScaleAttr(), "k_scale")) ||
      failed(v.positiveFinite(getVScaleAttr(), "v_scale")) ||
      failed(v.atLeast(getSlidingWindowAttr(), "sliding_window", 1)) ||
      failed(verifySameAs(v, getOutput(), "output", *q)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// PrefillPagedAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> PrefillPagedAttentionOp::getConfigNames() {
  return RaggedPagedConfig::names();
}

float PrefillPagedAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(3));
}

LogicalResult PrefillPagedAttentionOp::verify() {
  ShapeVerifier v(*this);
  if (failed(verifyLayout(*this, getKvLayout())))
    return failure();
  FailureOr<NamedTensor> q = v.tensor(
      getQuery(), "query", {"batch", "seq_q", "num_heads", "head_dim"});
  if (failed(q) || failed(v.isFloat(*q)))
    return failure();
  if (failed(verifyPagedCache(v, getKeyCache(), "key_cache", getValueCache(),
                              "value_cache", *q, /*headsDim=*/2,
                              /*headDimDim=*/3, !isTokenMajor())))
    return failure();
  if (failed(verifyIndexTensor(v, getContextLens(), "context_lens", {"batch"},
                               *q, 0)) ||
      failed(verifyIndexTensor(v, getBlockTables(), "block_tables",
                               {"batch", "max_pages_per_seq"}, *q, 0)))
    return failure();
  if (failed(verifyScaleAndCap(v, getSoftmaxScaleAttr(),
                               getLogitsSoftCapAttr())) ||
      failed(v.atLeast(getSlidingWindowAttr(), "sliding_window", 1)) ||
      failed(verifySameAs(v, getOutput(), "output", *q)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// UnifiedAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> UnifiedAttentionOp::getConfigNames() {
  return RaggedPagedConfig::names();
}

float UnifiedAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQueries().getType().getDimSize(2));
}

/// Checks an optional per-query-head float vector `[num_heads]`.
static LogicalResult verifyPerHead(ShapeVerifier &v,
                                   TypedValue<RankedTensorType> value,
                                   StringRef name, const NamedTensor &q,
                                   unsigned headsDim) {
  if (!value)
    return success();
  FailureOr<NamedTensor> t = v.tensor(value, name, {"num_heads"});
  if (failed(t) || failed(v.isFloat(*t)) ||
      failed(v.dimMatches(*t, 0, q, headsDim)))
    return failure();
  return success();
}

LogicalResult UnifiedAttentionOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<NamedTensor> q = v.tensor(getQueries(), "queries",
                                      {"num_tokens", "num_heads", "head_dim"});
  if (failed(q) || failed(v.isFloat(*q)))
    return failure();
  if (failed(verifyPagedCache(v, getKeyCache(), "key_cache", getValueCache(),
                              "value_cache", *q, /*headsDim=*/1,
                              /*headDimDim=*/2)))
    return failure();
  Type i32 = IntegerType::get(getContext(), 32);
  FailureOr<NamedTensor> kvLens =
      v.tensor(getKvLens(), "kv_lens", {"num_seqs"});
  if (failed(kvLens) || failed(v.elementIs(*kvLens, i32)))
    return failure();
  if (failed(verifyIndexTensor(v, getBlockTables(), "block_tables",
                               {"num_seqs", "max_blocks_per_seq"}, *kvLens, 0)))
    return failure();
  FailureOr<NamedTensor> starts =
      v.tensor(getQueryStartLoc(), "query_start_loc", {"num_seqs + 1"});
  if (failed(starts) || failed(v.elementIs(*starts, i32)) ||
      failed(v.dimEquals(*starts, 0, kvLens->dim(0) + 1,
                         "1 + 'kv_lens' dim 0 (num_seqs)")))
    return failure();
  if (failed(verifyPerHead(v, getAlibiSlopes(), "alibi_slopes", *q, 1)) ||
      failed(verifyPerHead(v, getSoftmaxAux(), "softmax_aux", *q, 1)))
    return failure();
  if (TypedValue<RankedTensorType> bias = getQqBias()) {
    FailureOr<NamedTensor> qq =
        v.tensor(bias, "qq_bias", {"num_query_tokens", "num_query_tokens"});
    if (failed(qq) || failed(v.isFloat(*qq)) ||
        failed(v.dimMatches(*qq, 1, *qq, 0)))
      return failure();
  }
  if (failed(verifyScaleAndCap(v, getSoftmaxScaleAttr(),
                               getLogitsSoftCapAttr())) ||
      failed(v.atLeast(getSlidingWindowAttr(), "sliding_window", 1)) ||
      failed(verifySameAs(v, getOutput(), "output", *q)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// RaggedDecodeAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> RaggedDecodeAttentionOp::getConfigNames() {
  return PagedAttentionConfig::names();
}

float RaggedDecodeAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(2));
}

LogicalResult RaggedDecodeAttentionOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<NamedTensor> q =
      v.tensor(getQuery(), "query", {"batch", "num_heads", "head_dim"});
  if (failed(q) || failed(v.isFloat(*q)))
    return failure();
  const StringRef kvDims[] = {"batch", "seq_len", "num_kv_heads", "head_dim"};
  FailureOr<NamedTensor> k = v.tensor(getKey(), "key", kvDims);
  if (failed(k) || failed(v.isFloat(*k)) ||
      failed(v.dimMatches(*k, 0, *q, 0)) ||
      failed(v.dimMatches(*k, 3, *q, 2)) ||
      failed(v.dimDivides(*k, 2, *q, 1)) ||
      failed(verifySameAs(v, getValue(), "value", *k)))
    return failure();
  if (failed(verifyIndexTensor(v, getSequenceStart(), "sequence_start",
                               {"batch"}, *q, 0)) ||
      failed(verifyIndexTensor(v, getSequenceEnd(), "sequence_end", {"batch"},
                               *q, 0)))
    return failure();
  if (TypedValue<RankedTensorType> aux = getSoftmaxAux()) {
    RankedTensorType type = aux.getType();
    if (type.getRank() == 2) {
      FailureOr<NamedTensor> sinks =
          v.tensor(aux, "softmax_aux", {"heads", "num_sinks"});
      if (failed(sinks) || failed(v.isFloat(*sinks)))
        return failure();
      if (sinks->dim(0) != k->dim(2) && sinks->dim(0) != q->dim(1))
        return emitOpError("expects 'softmax_aux' dim 0 (heads) to be ")
               << k->dim(2) << " ('key' dim 2, num_kv_heads) or " << q->dim(1)
               << " ('query' dim 1, num_heads), got " << sinks->dim(0);
      if (failed(v.dimNotZero(*sinks, 1, "a sink logit")))
        return failure();
    } else {
      FailureOr<NamedTensor> sinks =
          v.tensor(aux, "softmax_aux", {"num_sinks"});
      if (failed(sinks) || failed(v.isFloat(*sinks)) ||
          failed(v.dimNotZero(*sinks, 0, "a sink logit")))
        return failure();
    }
  }
  if (std::optional<ArrayRef<int64_t>> window = getSlidingWindow()) {
    if (window->size() != 2)
      return emitOpError("expects 'sliding_window' to have 2 elements "
                         "[left, right], got ")
             << window->size();
    if (window->front() < 0 || window->back() < 0)
      return emitOpError("expects 'sliding_window' sizes to be "
                         "non-negative, got [")
             << window->front() << ", " << window->back() << "]";
  }
  if (failed(verifyScaleAndCap(v, getSoftmaxScaleAttr(),
                               getLogitsSoftCapAttr())) ||
      failed(verifySameAs(v, getOutput(), "output", *q)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}
