//===- SparseOps.cpp - Verifier of native sparse attention ----------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ShapeVerifier.h"
#include "SoftmaxScale.h"

#include "ejk/Ops/Sparse/Config.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ejk;

//===----------------------------------------------------------------------===//
// NativeSparseAttentionOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> NativeSparseAttentionOp::getConfigNames() {
  return NativeSparseConfig::names();
}

float NativeSparseAttentionOp::getEffectiveSoftmaxScale() {
  return effectiveSoftmaxScale(getSoftmaxScale(),
                               getQuery().getType().getDimSize(3));
}

bool NativeSparseAttentionOp::hasPerTokenBlockIndices() {
  TypedValue<RankedTensorType> indices = getBlockIndices();
  if (!indices)
    return false;
  ArrayRef<int64_t> shape = indices.getType().getShape();
  return shape[1] == getQuery().getType().getDimSize(1) &&
         shape[2] == getKey().getType().getDimSize(2);
}

static constexpr StringRef kTokens[] = {"batch", "seq_len", "num_heads",
                                        "head_dim"};
static constexpr StringRef kKvTokens[] = {"batch", "seq_len", "num_kv_heads",
                                          "head_dim"};
static constexpr StringRef kGate[] = {"batch", "seq_len", "num_heads"};
static constexpr StringRef kIndices[] = {"batch", "rows", "cols",
                                         "num_selected"};

/// A gate: [batch, seq_len, num_heads] of the query's element type.
static LogicalResult verifyGate(ShapeVerifier &v,
                                TypedValue<RankedTensorType> gate,
                                StringRef name, const NamedTensor &query) {
  if (!gate)
    return success();
  FailureOr<NamedTensor> g = v.tensor(gate, name, kGate);
  if (failed(g))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(v.dimMatches(*g, i, query, i)))
      return failure();
  return v.sameElement(*g, query);
}

LogicalResult NativeSparseAttentionOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<NamedTensor> query = v.tensor(getQuery(), "query", kTokens);
  FailureOr<NamedTensor> key = v.tensor(getKey(), "key", kKvTokens);
  FailureOr<NamedTensor> value = v.tensor(getValue(), "value", kKvTokens);
  if (failed(query) || failed(key) || failed(value) ||
      failed(v.isFloat(*query)) || failed(v.sameElement(*key, *query)) ||
      failed(v.sameElement(*value, *query)))
    return failure();
  // Self-attention: keys and queries share positions.
  for (unsigned i : {0u, 1u, 3u})
    if (failed(v.dimMatches(*key, i, *query, i)))
      return failure();
  for (unsigned i = 0; i < 4; ++i)
    if (failed(v.dimMatches(*value, i, *key, i)))
      return failure();
  if (failed(v.dimNotZero(*query, 3, "scores are dot products over it")) ||
      failed(v.dimNotZero(*key, 2, "query heads read key/value heads")) ||
      failed(v.dimDivides(*key, 2, *query, 2)))
    return failure();

  if (failed(v.atLeast(getBlockSizeAttr(), "block_size", 1)) ||
      failed(v.atLeast(getBlockCountsAttr(), "block_counts", 1)) ||
      failed(v.atLeast(getWindowSizeAttr(), "window_size", 0)) ||
      failed(v.positiveFinite(getSoftmaxScaleAttr(), "softmax_scale")))
    return failure();

  if (failed(verifyGate(v, getGCmp(), "g_cmp", *query)) ||
      failed(verifyGate(v, getGSlc(), "g_slc", *query)) ||
      failed(verifyGate(v, getGSwa(), "g_swa", *query)))
    return failure();
  if (getGSwa() && getWindowSize() == 0)
    return emitOpError("expects 'window_size' to be positive when 'g_swa' "
                       "is given (the sliding-window branch it gates)");

  if (!getGCmp() && !getBlockIndices())
    return emitOpError("expects 'g_cmp' (select the blocks by the "
                       "compression branch) or 'block_indices'");
  if (getGCmp() && getBlockIndices())
    return emitOpError("expects 'g_cmp' or 'block_indices', not both (with "
                       "'g_cmp' the blocks are selected from the compression "
                       "branch; ejKernel ignores 'block_indices' then)");
  if (TypedValue<RankedTensorType> indices = getBlockIndices()) {
    FailureOr<NamedTensor> idx = v.tensor(indices, "block_indices", kIndices);
    if (failed(idx) ||
        failed(v.elementIs(*idx, IntegerType::get(getContext(), 32))) ||
        failed(v.dimMatches(*idx, 0, *query, 0)) ||
        failed(v.dimNotZero(*idx, 3, "a token selects at least one slot")))
      return failure();
    int64_t seq = query->dim(1), kvHeads = key->dim(2);
    int64_t blocks = llvm::divideCeil(seq, getBlockSize());
    bool perToken = idx->dim(1) == seq && idx->dim(2) == kvHeads;
    bool perBlock = idx->dim(1) == kvHeads && idx->dim(2) == blocks;
    if (!perToken && !perBlock)
      return emitOpError("expects 'block_indices' dims 1 and 2 to be "
                         "[seq_len, num_kv_heads] = [")
             << seq << ", " << kvHeads
             << "] (per token) or [num_kv_heads, ceil(seq_len / block_size)] "
                "= ["
             << kvHeads << ", " << blocks << "] (per query block), got ["
             << idx->dim(1) << ", " << idx->dim(2) << "]";
  }

  FailureOr<NamedTensor> out = v.tensor(getOutput(), "output", kTokens);
  if (failed(out) || failed(v.sameElement(*out, *query)))
    return failure();
  for (unsigned i = 0; i < 4; ++i)
    if (failed(v.dimMatches(*out, i, *query, i)))
      return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}
