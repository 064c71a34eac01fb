//===- PagedAttention.cpp - Reference decode over a paged cache -----------===//

#include "ejk/Reference/Paged.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace ejk::reference;

std::string
ejk::reference::checkPageTables(const std::vector<int64_t> &contextLens,
                                const std::vector<int64_t> &blockTables,
                                int64_t maxPages, int64_t pageSize,
                                int64_t numPages, const std::string &lensName,
                                const std::string &tableName) {
  for (size_t b = 0; b < contextLens.size(); ++b) {
    int64_t length = contextLens[b];
    if (length < 0 || length > maxPages * pageSize)
      return lensName + "[" + std::to_string(b) + "] is " +
             std::to_string(length) + ", outside [0, " +
             std::to_string(maxPages * pageSize) + "] (" +
             std::to_string(maxPages) + " pages of " +
             std::to_string(pageSize) + " tokens)";
    int64_t pages = (length + pageSize - 1) / pageSize;
    for (int64_t i = 0; i < pages; ++i) {
      int64_t page = blockTables[b * maxPages + i];
      if (page < 0 || page >= numPages)
        return tableName + "[" + std::to_string(b) + ", " + std::to_string(i) +
               "] is " + std::to_string(page) + ", outside the " +
               std::to_string(numPages) + " pages of the cache";
    }
  }
  return "";
}

Status ejk::reference::pagedAttention(
    const TensorRef<float> &query, const TensorRef<float> &keyCache,
    const TensorRef<float> &valueCache, const TensorRef<float> &contextLens,
    const TensorRef<float> &blockTables, const PagedAttentionOptions &options,
    std::vector<float> &out, std::vector<float> &lse) {
  const std::string name = "paged_attention";
  if (Status s =
          checkShape(name + ": query", query, {kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  int64_t batch = query.shape[0], heads = query.shape[1], dim = query.shape[2];
  if (Status s = checkShape(name + ": key_cache", keyCache,
                            {kAnyDim, kAnyDim, kAnyDim, dim});
      !s)
    return s;
  if (Status s = checkShape(name + ": value_cache", valueCache, keyCache.shape);
      !s)
    return s;
  int64_t numPages = keyCache.shape[0];
  int64_t pageSize = options.tokenMajor ? keyCache.shape[1] : keyCache.shape[2];
  int64_t kvHeads = options.tokenMajor ? keyCache.shape[2] : keyCache.shape[1];
  if (kvHeads == 0 || heads % kvHeads != 0)
    return Status::error(name + ": num_kv_heads (" + std::to_string(kvHeads) +
                         ") must divide num_heads (" + std::to_string(heads) +
                         ")");
  if (Status s = checkShape(name + ": context_lens", contextLens, {batch}); !s)
    return s;
  if (Status s =
          checkShape(name + ": block_tables", blockTables, {batch, kAnyDim});
      !s)
    return s;
  int64_t maxPages = blockTables.shape[1];
  if (Status s =
          allocateOutput(name + ": output", {batch, heads, dim}, 0.0f, out);
      !s)
    return s;
  if (Status s = allocateOutput(name + ": lse", {batch, heads},
                                -std::numeric_limits<float>::infinity(), lse);
      !s)
    return s;

  int64_t group = heads / kvHeads;
  auto cacheOffset = [&](int64_t page, int64_t slot, int64_t kvHead) {
    int64_t outer = options.tokenMajor
                        ? (page * pageSize + slot) * kvHeads + kvHead
                        : (page * kvHeads + kvHead) * pageSize + slot;
    return outer * dim;
  };
  std::vector<double> scores, acc(static_cast<size_t>(dim));
  for (int64_t b = 0; b < batch; ++b) {
    int64_t length = std::clamp<int64_t>(static_cast<int64_t>(contextLens[b]),
                                         0, maxPages * pageSize);
    int64_t first = 0;
    if (options.window)
      first = std::max<int64_t>(0, length - *options.window);
    for (int64_t h = 0; h < heads; ++h) {
      int64_t kvHead = h / group;
      const float *q = &query[(b * heads + h) * dim];
      scores.assign(static_cast<size_t>(std::max<int64_t>(length - first, 0)),
                    0.0);
      double maxScore = -std::numeric_limits<double>::infinity();
      std::vector<int64_t> offsets;
      for (int64_t t = first; t < length; ++t) {
        int64_t page = std::clamp<int64_t>(
            static_cast<int64_t>(blockTables[b * maxPages + t / pageSize]), 0,
            numPages - 1);
        int64_t offset = cacheOffset(page, t % pageSize, kvHead);
        offsets.push_back(offset);
        double s = 0;
        for (int64_t d = 0; d < dim; ++d)
          s += static_cast<double>(q[d]) * keyCache[offset + d];
        s *= static_cast<double>(options.softmaxScale) * options.kScale;
        if (options.softCap)
          s = *options.softCap * std::tanh(s / *options.softCap);
        scores[t - first] = s;
        maxScore = std::max(maxScore, s);
      }
      if (offsets.empty())
        continue;
      double sum = 0;
      for (double &s : scores) {
        s = std::exp(s - maxScore);
        sum += s;
      }
      std::fill(acc.begin(), acc.end(), 0.0);
      for (size_t i = 0; i < offsets.size(); ++i)
        for (int64_t d = 0; d < dim; ++d)
          acc[d] += scores[i] * valueCache[offsets[i] + d];
      for (int64_t d = 0; d < dim; ++d)
        out[(b * heads + h) * dim + d] =
            static_cast<float>(acc[d] / sum * options.vScale);
      lse[b * heads + h] = static_cast<float>(maxScore + std::log(sum));
    }
  }
  return Status::success();
}
