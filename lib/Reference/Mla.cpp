//===- Mla.cpp - Reference multi-head latent attention --------------------===//

#include "ejk/Reference/Latent.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace ejk::reference;

namespace {
/// Attention of one head's query (latent q, RoPE qr) over `tokens` cache
/// rows: latent(i) and rope(i) point at token i's latent and RoPE key.
template <typename Latent, typename Rope>
void attendRow(const float *q, const float *qr, int64_t latentDim,
               int64_t ropeDim, int64_t tokens, Latent latent, Rope rope,
               double scale, float *out, float &lse) {
  std::vector<double> scores(static_cast<size_t>(tokens));
  double maxScore = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < tokens; ++j) {
    const float *c = latent(j), *r = rope(j);
    double s = 0;
    for (int64_t d = 0; d < latentDim; ++d)
      s += static_cast<double>(q[d]) * c[d];
    for (int64_t d = 0; d < ropeDim; ++d)
      s += static_cast<double>(qr[d]) * r[d];
    scores[j] = s * scale;
    maxScore = std::max(maxScore, scores[j]);
  }
  std::fill(out, out + latentDim, 0.0f);
  lse = -std::numeric_limits<float>::infinity();
  if (tokens == 0)
    return;
  double sum = 0;
  std::vector<double> acc(static_cast<size_t>(latentDim), 0.0);
  for (int64_t j = 0; j < tokens; ++j) {
    double w = std::exp(scores[j] - maxScore);
    sum += w;
    const float *c = latent(j);
    for (int64_t d = 0; d < latentDim; ++d)
      acc[d] += w * c[d];
  }
  for (int64_t d = 0; d < latentDim; ++d)
    out[d] = static_cast<float>(acc[d] / sum);
  lse = static_cast<float>(maxScore + std::log(sum));
}
} // namespace

Status ejk::reference::mla(const TensorRef<float> &qLatent,
                           const TensorRef<float> &qRope,
                           const TensorRef<float> &kvLatent,
                           const TensorRef<float> &kRope, float softmaxScale,
                           bool causal, std::vector<float> &out,
                           std::vector<float> &lse) {
  const std::string name = "mla";
  if (Status s = checkShape(name + ": q_latent", qLatent,
                            {kAnyDim, kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  int64_t batch = qLatent.shape[0], seqQ = qLatent.shape[1],
          heads = qLatent.shape[2], latentDim = qLatent.shape[3];
  if (Status s =
          checkShape(name + ": q_rope", qRope, {batch, seqQ, heads, kAnyDim});
      !s)
    return s;
  int64_t ropeDim = qRope.shape[3];
  if (Status s = checkShape(name + ": kv_latent", kvLatent,
                            {batch, kAnyDim, latentDim});
      !s)
    return s;
  int64_t seqK = kvLatent.shape[1];
  if (Status s = checkShape(name + ": k_rope", kRope, {batch, seqK, ropeDim});
      !s)
    return s;
  if (Status s = allocateOutput(name + ": output",
                                {batch, seqQ, heads, latentDim}, 0.0f, out);
      !s)
    return s;
  if (Status s = allocateOutput(name + ": lse", {batch, heads, seqQ},
                                -std::numeric_limits<float>::infinity(), lse);
      !s)
    return s;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < seqQ; ++i) {
      int64_t tokens =
          causal ? std::clamp<int64_t>(i + seqK - seqQ + 1, 0, seqK) : seqK;
      for (int64_t h = 0; h < heads; ++h) {
        int64_t row = (b * seqQ + i) * heads + h;
        attendRow(
            &qLatent[row * latentDim], &qRope[row * ropeDim], latentDim,
            ropeDim, tokens,
            [&](int64_t j) { return &kvLatent[(b * seqK + j) * latentDim]; },
            [&](int64_t j) { return &kRope[(b * seqK + j) * ropeDim]; },
            softmaxScale, &out[row * latentDim],
            lse[(b * heads + h) * seqQ + i]);
      }
    }
  return Status::success();
}

Status ejk::reference::pagedMla(
    const TensorRef<float> &qLatent, const TensorRef<float> &qRope,
    const TensorRef<float> &kvCache, const TensorRef<float> &contextLens,
    const TensorRef<float> &blockTables, const TensorRef<float> &queryStartLoc,
    float softmaxScale, std::vector<float> &out, std::vector<float> &lse) {
  const std::string name = "paged_mla";
  if (Status s =
          checkShape(name + ": q_latent", qLatent, {kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  int64_t tokens = qLatent.shape[0], heads = qLatent.shape[1],
          latentDim = qLatent.shape[2];
  if (Status s = checkShape(name + ": q_rope", qRope, {tokens, heads, kAnyDim});
      !s)
    return s;
  int64_t ropeDim = qRope.shape[2];
  if (Status s = checkShape(name + ": kv_cache", kvCache,
                            {kAnyDim, kAnyDim, latentDim + ropeDim});
      !s)
    return s;
  int64_t numPages = kvCache.shape[0], pageSize = kvCache.shape[1];
  if (Status s = checkShape(name + ": context_lens", contextLens, {kAnyDim});
      !s)
    return s;
  int64_t seqs = contextLens.shape[0];
  if (Status s =
          checkShape(name + ": block_tables", blockTables, {seqs, kAnyDim});
      !s)
    return s;
  int64_t maxPages = blockTables.shape[1];
  if (Status s =
          checkShape(name + ": query_start_loc", queryStartLoc, {seqs + 1});
      !s)
    return s;
  if (Status s = allocateOutput(name + ": output", {tokens, heads, latentDim},
                                0.0f, out);
      !s)
    return s;
  if (Status s = allocateOutput(name + ": lse", {tokens, heads},
                                -std::numeric_limits<float>::infinity(), lse);
      !s)
    return s;
  int64_t width = latentDim + ropeDim;
  std::vector<int64_t> owner(static_cast<size_t>(tokens), -1);
  auto start = [&](int64_t s) {
    return std::clamp<int64_t>(static_cast<int64_t>(queryStartLoc[s]), 0,
                               tokens);
  };
  for (int64_t s = 0; s < seqs; ++s)
    for (int64_t t = start(s); t < start(s + 1); ++t)
      owner[t] = s;
  for (int64_t t = 0; t < tokens; ++t) {
    int64_t s = owner[t];
    if (s < 0)
      continue;
    int64_t qLen = start(s + 1) - start(s);
    int64_t length = std::clamp<int64_t>(static_cast<int64_t>(contextLens[s]),
                                         0, maxPages * pageSize);
    int64_t pos = length - qLen + (t - start(s));
    int64_t visible =
        numPages > 0 ? std::clamp<int64_t>(pos + 1, 0, length) : 0;
    auto rowOf = [&](int64_t j) {
      int64_t page = std::clamp<int64_t>(
          static_cast<int64_t>(blockTables[s * maxPages + j / pageSize]), 0,
          numPages - 1);
      return &kvCache[(page * pageSize + j % pageSize) * width];
    };
    for (int64_t h = 0; h < heads; ++h) {
      int64_t row = t * heads + h;
      attendRow(
          &qLatent[row * latentDim], &qRope[row * ropeDim], latentDim, ropeDim,
          visible, rowOf, [&](int64_t j) { return rowOf(j) + latentDim; },
          softmaxScale, &out[row * latentDim], lse[row]);
    }
  }
  return Status::success();
}
