//===- RaggedPagedAttention.cpp - Reference ragged paged attention --------===//

#include "ejk/Reference/RaggedPaged.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace ejk::reference;

std::string ejk::reference::checkRaggedInputs(
    const std::vector<int64_t> &kvLens, const std::vector<int64_t> &pageIndices,
    const std::vector<int64_t> &cuQLens, int64_t numSeqs, int64_t numTokens,
    int64_t pagesPerSeq, int64_t pageSize, int64_t numPages,
    const RaggedInputNames &names) {
  int64_t slots = static_cast<int64_t>(kvLens.size());
  if (numSeqs < 0 || numSeqs > slots)
    return names.numSeqs + " is " + std::to_string(numSeqs) + ", outside [0, " +
           std::to_string(slots) + "] (the sequence slots)";
  if (cuQLens.size() != static_cast<size_t>(slots + 1))
    return names.cuQLens + " has " + std::to_string(cuQLens.size()) +
           " entries, expected " + std::to_string(slots + 1);
  if (cuQLens[0] != 0)
    return names.cuQLens + "[0] is " + std::to_string(cuQLens[0]) + ", not 0";
  for (int64_t s = 0; s < numSeqs; ++s) {
    if (cuQLens[s + 1] < cuQLens[s])
      return names.cuQLens + " decreases at " + std::to_string(s + 1) + " (" +
             std::to_string(cuQLens[s]) + " then " +
             std::to_string(cuQLens[s + 1]) + ")";
    if (cuQLens[s + 1] > numTokens)
      return names.cuQLens + "[" + std::to_string(s + 1) + "] is " +
             std::to_string(cuQLens[s + 1]) + ", past the " +
             std::to_string(numTokens) + " packed query rows";
    int64_t qLen = cuQLens[s + 1] - cuQLens[s];
    int64_t length = kvLens[s];
    if (length < qLen || length > pagesPerSeq * pageSize)
      return names.kvLens + "[" + std::to_string(s) + "] is " +
             std::to_string(length) + ", outside [" + std::to_string(qLen) +
             ", " + std::to_string(pagesPerSeq * pageSize) +
             "] (its query count, the tokens its page table holds)";
    for (int64_t i = 0, e = (length + pageSize - 1) / pageSize; i < e; ++i) {
      int64_t page = pageIndices[s * pagesPerSeq + i];
      if (page < 0 || page >= numPages)
        return names.pageIndices + "[" + std::to_string(s) + ", " +
               std::to_string(i) + "] is " + std::to_string(page) +
               ", outside the " + std::to_string(numPages) +
               " pages of the cache";
    }
  }
  return "";
}

Status ejk::reference::raggedPagedAttention(
    const TensorRef<float> &queries, const TensorRef<float> &keyCache,
    const TensorRef<float> &valueCache, const TensorRef<float> &kvLens,
    const TensorRef<float> &pageIndices, const TensorRef<float> &cuQLens,
    const TensorRef<float> &numSeqs, const TensorRef<float> &newKeys,
    const TensorRef<float> &newValues, const TensorRef<float> &sinks,
    const RaggedPagedOptions &options, std::vector<float> &out,
    std::vector<float> &updatedKeys, std::vector<float> &updatedValues) {
  const std::string name = "ragged_paged_attention";
  if (Status s =
          checkShape(name + ": queries", queries, {kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  int64_t tokens = queries.shape[0], heads = queries.shape[1],
          dim = queries.shape[2];
  if (Status s = checkShape(name + ": key_pages", keyCache,
                            {kAnyDim, kAnyDim, kAnyDim, dim});
      !s)
    return s;
  if (Status s = checkShape(name + ": value_pages", valueCache, keyCache.shape);
      !s)
    return s;
  int64_t numPages = keyCache.shape[0];
  int64_t pageSize = options.tokenMajor ? keyCache.shape[1] : keyCache.shape[2];
  int64_t kvHeads = options.tokenMajor ? keyCache.shape[2] : keyCache.shape[1];
  if (kvHeads == 0 || heads % kvHeads != 0)
    return Status::error(name + ": num_kv_heads must divide num_heads");
  if (Status s = checkShape(name + ": kv_lens", kvLens, {kAnyDim}); !s)
    return s;
  int64_t slots = kvLens.shape[0];
  if (Status s =
          checkShape(name + ": page_indices", pageIndices, {slots, kAnyDim});
      !s)
    return s;
  int64_t pagesPerSeq = pageIndices.shape[1];
  if (Status s = checkShape(name + ": cu_q_lens", cuQLens, {slots + 1}); !s)
    return s;
  bool writes = newKeys.data != nullptr;
  if (writes) {
    if (Status s =
            checkShape(name + ": new_keys", newKeys, {tokens, kvHeads, dim});
        !s)
      return s;
    if (Status s = checkShape(name + ": new_values", newValues, newKeys.shape);
        !s)
      return s;
  }
  if (sinks.data)
    if (Status s = checkShape(name + ": softmax_aux", sinks, {heads}); !s)
      return s;
  if (Status s =
          allocateOutput(name + ": output", {tokens, heads, dim}, 0.0f, out);
      !s)
    return s;

  updatedKeys.assign(keyCache.data, keyCache.data + keyCache.numElements);
  updatedValues.assign(valueCache.data,
                       valueCache.data + valueCache.numElements);
  auto cacheOffset = [&](int64_t page, int64_t slot, int64_t kvHead) {
    int64_t outer = options.tokenMajor
                        ? (page * pageSize + slot) * kvHeads + kvHead
                        : (page * kvHeads + kvHead) * pageSize + slot;
    return outer * dim;
  };
  int64_t maxContext = pagesPerSeq * pageSize;
  int64_t live = std::clamp<int64_t>(
      numSeqs.numElements ? static_cast<int64_t>(numSeqs[0]) : slots, 0, slots);
  // The clamped starts: non-decreasing within [0, tokens].
  std::vector<int64_t> cu(static_cast<size_t>(slots + 1));
  cu[0] = std::clamp<int64_t>(static_cast<int64_t>(cuQLens[0]), 0, tokens);
  for (int64_t s = 0; s < slots; ++s)
    cu[s + 1] = std::clamp<int64_t>(static_cast<int64_t>(cuQLens[s + 1]), cu[s],
                                    tokens);
  auto pageOf = [&](int64_t s, int64_t t) {
    return std::clamp<int64_t>(
        static_cast<int64_t>(pageIndices[s * pagesPerSeq + t / pageSize]), 0,
        numPages - 1);
  };
  auto store = [&](float v) {
    if (!options.int8Cache)
      return v;
    return std::clamp(std::nearbyint(v), -128.0f, 127.0f);
  };

  // The write first: attention reads the written cache (v3's order).
  if (writes)
    for (int64_t s = 0; s < live; ++s) {
      int64_t qLen = cu[s + 1] - cu[s];
      int64_t length =
          std::clamp<int64_t>(static_cast<int64_t>(kvLens[s]), 0, maxContext);
      for (int64_t j = 0; j < qLen; ++j) {
        int64_t pos = length - qLen + j;
        if (pos < 0)
          continue;
        for (int64_t kh = 0; kh < kvHeads; ++kh) {
          int64_t offset = cacheOffset(pageOf(s, pos), pos % pageSize, kh);
          int64_t src = ((cu[s] + j) * kvHeads + kh) * dim;
          for (int64_t d = 0; d < dim; ++d) {
            updatedKeys[offset + d] = store(newKeys[src + d]);
            updatedValues[offset + d] = store(newValues[src + d]);
          }
        }
      }
    }

  int64_t group = heads / kvHeads;
  std::vector<double> scores, acc(static_cast<size_t>(dim));
  std::vector<int64_t> offsets;
  for (int64_t s = 0; s < live; ++s) {
    int64_t qLen = cu[s + 1] - cu[s];
    int64_t length =
        std::clamp<int64_t>(static_cast<int64_t>(kvLens[s]), 0, maxContext);
    for (int64_t i = 0; i < qLen; ++i) {
      int64_t row = cu[s] + i;
      int64_t pos = length - qLen + i;
      int64_t first = 0;
      if (options.window)
        first = std::max<int64_t>(0, pos + 1 - *options.window);
      int64_t end = std::min(length, pos + 1);
      for (int64_t h = 0; h < heads; ++h) {
        int64_t kvHead = h / group;
        const float *q = &queries[(row * heads + h) * dim];
        scores.clear();
        offsets.clear();
        double maxScore = sinks.data ? static_cast<double>(sinks[h])
                                     : -std::numeric_limits<double>::infinity();
        for (int64_t t = first; t < end; ++t) {
          int64_t offset = cacheOffset(pageOf(s, t), t % pageSize, kvHead);
          offsets.push_back(offset);
          double dot = 0;
          for (int64_t d = 0; d < dim; ++d)
            dot += static_cast<double>(q[d]) * updatedKeys[offset + d];
          dot *= static_cast<double>(options.softmaxScale) * options.kScale;
          int64_t rel = t - (length - qLen);
          if (!options.alibiSlopes.empty())
            dot += static_cast<double>(options.alibiSlopes[h]) * rel;
          int64_t n = options.qqBiasSize;
          if (n > 0 && i < n && rel >= 0 && rel < n)
            dot += options.qqBias[i * n + rel];
          if (options.softCap)
            dot = *options.softCap * std::tanh(dot / *options.softCap);
          scores.push_back(dot);
          maxScore = std::max(maxScore, dot);
        }
        if (offsets.empty())
          continue;
        double sum = sinks.data ? std::exp(sinks[h] - maxScore) : 0.0;
        for (double &x : scores) {
          x = std::exp(x - maxScore);
          sum += x;
        }
        std::fill(acc.begin(), acc.end(), 0.0);
        for (size_t k = 0; k < offsets.size(); ++k)
          for (int64_t d = 0; d < dim; ++d)
            acc[d] += scores[k] * updatedValues[offsets[k] + d];
        for (int64_t d = 0; d < dim; ++d)
          out[(row * heads + h) * dim + d] =
              static_cast<float>(acc[d] / sum * options.vScale);
      }
    }
  }
  return Status::success();
}
