//===- LatentOps.cpp - Verifiers of multi-head latent attention -----------===//
//
// `ejk.mla` (dense latent cache) and `ejk.paged_mla` (paged latent cache,
// packed varlen queries). Their kernels are the Latent family's
// (lib/Ops/Latent).
//
//===----------------------------------------------------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Latent/Config.h"

#include "ShapeVerifier.h"
#include "SoftmaxScale.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
const StringRef kMlaQLatent[] = {"batch", "seq_q", "num_heads", "latent_dim"};
const StringRef kMlaQRope[] = {"batch", "seq_q", "num_heads", "rope_dim"};
const StringRef kMlaKvLatent[] = {"batch", "seq_k", "latent_dim"};
const StringRef kMlaKRope[] = {"batch", "seq_k", "rope_dim"};
const StringRef kMlaLse[] = {"batch", "num_heads", "seq_q"};
const StringRef kPagedQLatent[] = {"num_tokens", "num_heads", "latent_dim"};
const StringRef kPagedQRope[] = {"num_tokens", "num_heads", "rope_dim"};
const StringRef kPagedCache[] = {"num_pages", "page_size",
                                 "latent_dim + rope_dim"};
const StringRef kPagedLse[] = {"num_tokens", "num_heads"};
} // namespace

/// The models' scale when `qk_nope_head_dim` is known, FlashMLA's otherwise.
static float latentSoftmaxScale(std::optional<APFloat> scale,
                                std::optional<uint64_t> nopeHeadDim,
                                int64_t latentDim, int64_t ropeDim) {
  if (nopeHeadDim)
    return effectiveSoftmaxScale(scale,
                                 static_cast<int64_t>(*nopeHeadDim) + ropeDim);
  return effectiveSoftmaxScale(scale, latentDim + ropeDim);
}

/// Checks that `value` has the shape and element type of `source`.
static LogicalResult verifyLike(ShapeVerifier &v,
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
// MlaOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> MlaOp::getConfigNames() { return MlaConfig::names(); }

float MlaOp::getEffectiveSoftmaxScale() {
  return latentSoftmaxScale(getSoftmaxScale(), getQkNopeHeadDim(),
                            getQLatent().getType().getDimSize(3),
                            getQRope().getType().getDimSize(3));
}

LogicalResult MlaOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<NamedTensor> ql = v.tensor(getQLatent(), "q_latent", kMlaQLatent);
  if (failed(ql))
    return failure();
  FailureOr<NamedTensor> qr = v.tensor(getQRope(), "q_rope", kMlaQRope);
  if (failed(qr))
    return failure();
  FailureOr<NamedTensor> ckv =
      v.tensor(getKvLatent(), "kv_latent", kMlaKvLatent);
  if (failed(ckv))
    return failure();
  FailureOr<NamedTensor> kr = v.tensor(getKRope(), "k_rope", kMlaKRope);
  if (failed(kr))
    return failure();
  if (failed(v.isFloat(*ql)) || failed(v.sameElement(*qr, *ql)) ||
      failed(v.sameElement(*ckv, *ql)) || failed(v.sameElement(*kr, *ql)))
    return failure();
  if (failed(v.dimMatches(*qr, 0, *ql, 0)) ||
      failed(v.dimMatches(*qr, 1, *ql, 1)) ||
      failed(v.dimMatches(*qr, 2, *ql, 2)) ||
      failed(v.dimMatches(*ckv, 0, *ql, 0)) ||
      failed(v.dimMatches(*ckv, 2, *ql, 3)) ||
      failed(v.dimMatches(*kr, 0, *ql, 0)) ||
      failed(v.dimMatches(*kr, 1, *ckv, 1)) ||
      failed(v.dimMatches(*kr, 2, *qr, 3)))
    return failure();

  if (failed(v.positiveFinite(getSoftmaxScaleAttr(), "softmax_scale")) ||
      failed(v.atLeast(getQkNopeHeadDimAttr(), "qk_nope_head_dim", 1)) ||
      failed(verifyLike(v, getOutput(), "output", *ql)))
    return failure();
  if (TypedValue<RankedTensorType> lseValue = getLse()) {
    FailureOr<NamedTensor> lse = v.tensor(lseValue, "lse", kMlaLse);
    if (failed(lse) ||
        failed(v.elementIs(*lse, Float32Type::get(getContext()))) ||
        failed(v.dimMatches(*lse, 0, *ql, 0)) ||
        failed(v.dimMatches(*lse, 1, *ql, 2)) ||
        failed(v.dimMatches(*lse, 2, *ql, 1)))
      return failure();
  }
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// PagedMlaOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> PagedMlaOp::getConfigNames() { return MlaConfig::names(); }

float PagedMlaOp::getEffectiveSoftmaxScale() {
  return latentSoftmaxScale(getSoftmaxScale(), getQkNopeHeadDim(),
                            getQLatent().getType().getDimSize(2),
                            getQRope().getType().getDimSize(2));
}

LogicalResult PagedMlaOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<NamedTensor> ql = v.tensor(getQLatent(), "q_latent", kPagedQLatent);
  if (failed(ql) || failed(v.isFloat(*ql)))
    return failure();
  FailureOr<NamedTensor> qr = v.tensor(getQRope(), "q_rope", kPagedQRope);
  if (failed(qr) || failed(v.sameElement(*qr, *ql)) ||
      failed(v.dimMatches(*qr, 0, *ql, 0)) ||
      failed(v.dimMatches(*qr, 1, *ql, 1)))
    return failure();
  FailureOr<NamedTensor> cache =
      v.tensor(getKvCache(), "kv_cache", kPagedCache);
  if (failed(cache) || failed(v.sameElement(*cache, *ql)) ||
      failed(v.dimEquals(*cache, 2, ql->dim(2) + qr->dim(2),
                         "'q_latent' dim 2 (latent_dim) + 'q_rope' dim 2 "
                         "(rope_dim)")))
    return failure();

  Type i32 = IntegerType::get(getContext(), 32);
  FailureOr<NamedTensor> lens =
      v.tensor(getContextLens(), "context_lens", {"num_seqs"});
  if (failed(lens) || failed(v.elementIs(*lens, i32)))
    return failure();
  FailureOr<NamedTensor> tables = v.tensor(getBlockTables(), "block_tables",
                                           {"num_seqs", "max_pages_per_seq"});
  if (failed(tables) || failed(v.elementIs(*tables, i32)) ||
      failed(v.dimMatches(*tables, 0, *lens, 0)))
    return failure();
  FailureOr<NamedTensor> starts =
      v.tensor(getQueryStartLoc(), "query_start_loc", {"num_seqs + 1"});
  if (failed(starts) || failed(v.elementIs(*starts, i32)) ||
      failed(v.dimEquals(*starts, 0, lens->dim(0) + 1,
                         "1 + 'context_lens' dim 0 (num_seqs)")))
    return failure();

  if (failed(v.positiveFinite(getSoftmaxScaleAttr(), "softmax_scale")) ||
      failed(v.atLeast(getQkNopeHeadDimAttr(), "qk_nope_head_dim", 1)) ||
      failed(verifyLike(v, getOutput(), "output", *ql)))
    return failure();
  if (TypedValue<RankedTensorType> lseValue = getLse()) {
    FailureOr<NamedTensor> lse = v.tensor(lseValue, "lse", kPagedLse);
    if (failed(lse) ||
        failed(v.elementIs(*lse, Float32Type::get(getContext()))) ||
        failed(v.dimMatches(*lse, 0, *ql, 0)) ||
        failed(v.dimMatches(*lse, 1, *ql, 1)))
      return failure();
  }
  return v.configNames(getConfigAttr(), getConfigNames());
}
