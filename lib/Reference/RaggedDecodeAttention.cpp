//===- RaggedDecodeAttention.cpp - Reference ragged decode ----------------===//

#include "ejk/Reference/RaggedPaged.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace ejk::reference;

std::string ejk::reference::checkSequenceBounds(
    const std::vector<int64_t> &starts, const std::vector<int64_t> &ends,
    int64_t seqLen, const std::string &startName, const std::string &endName) {
  for (size_t b = 0; b < ends.size(); ++b) {
    if (ends[b] < 0 || ends[b] > seqLen)
      return endName + "[" + std::to_string(b) + "] is " +
             std::to_string(ends[b]) + ", outside [0, " +
             std::to_string(seqLen) + "] (the keys of its row)";
    if (b < starts.size() && (starts[b] < 0 || starts[b] > ends[b]))
      return startName + "[" + std::to_string(b) + "] is " +
             std::to_string(starts[b]) + ", outside [0, " +
             std::to_string(ends[b]) + "] (0 and its " + endName + ")";
  }
  return "";
}

Status ejk::reference::raggedDecodeAttention(
    const TensorRef<float> &query, const TensorRef<float> &key,
    const TensorRef<float> &value, const TensorRef<float> &sequenceStart,
    const TensorRef<float> &sequenceEnd, const TensorRef<float> &sinks,
    const RaggedDecodeOptions &options, std::vector<float> &out) {
  const std::string name = "ragged_decode_attention";
  if (Status s =
          checkShape(name + ": query", query, {kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  int64_t batch = query.shape[0], heads = query.shape[1], dim = query.shape[2];
  if (Status s =
          checkShape(name + ": key", key, {batch, kAnyDim, kAnyDim, dim});
      !s)
    return s;
  if (Status s = checkShape(name + ": value", value, key.shape); !s)
    return s;
  int64_t seqLen = key.shape[1], kvHeads = key.shape[2];
  if (kvHeads == 0 || heads % kvHeads != 0)
    return Status::error(name + ": num_kv_heads must divide num_heads");
  if (Status s = checkShape(name + ": sequence_start", sequenceStart, {batch});
      !s)
    return s;
  if (Status s = checkShape(name + ": sequence_end", sequenceEnd, {batch}); !s)
    return s;
  int64_t group = heads / kvHeads;
  // The sink row of head h: [n], [kv_heads, n] or [heads, n].
  int64_t numSinks = 0;
  auto sinkAt = [&](int64_t h, int64_t j) -> double {
    if (sinks.shape.size() == 1)
      return sinks[j];
    int64_t row = sinks.shape[0] == kvHeads ? h / group : h;
    return sinks[row * numSinks + j];
  };
  if (sinks.data) {
    numSinks = sinks.shape.back();
    if (sinks.shape.size() == 2 && sinks.shape[0] != kvHeads &&
        sinks.shape[0] != heads)
      return Status::error(name + ": softmax_aux rows must be num_kv_heads "
                                  "or num_heads");
  }
  if (Status s =
          allocateOutput(name + ": output", {batch, heads, dim}, 0.0f, out);
      !s)
    return s;

  std::vector<double> scores, acc(static_cast<size_t>(dim));
  for (int64_t b = 0; b < batch; ++b) {
    int64_t end =
        std::clamp<int64_t>(static_cast<int64_t>(sequenceEnd[b]), 0, seqLen);
    int64_t first =
        std::clamp<int64_t>(static_cast<int64_t>(sequenceStart[b]), 0, end);
    if (options.windowLeft)
      first = std::max(first, end - 1 - *options.windowLeft);
    if (first >= end)
      continue;
    for (int64_t h = 0; h < heads; ++h) {
      int64_t kvHead = h / group;
      const float *q = &query[(b * heads + h) * dim];
      scores.clear();
      double maxScore = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < numSinks; ++j)
        maxScore = std::max(maxScore, sinkAt(h, j));
      for (int64_t t = first; t < end; ++t) {
        int64_t offset = ((b * seqLen + t) * kvHeads + kvHead) * dim;
        double s = 0;
        for (int64_t d = 0; d < dim; ++d)
          s += static_cast<double>(q[d]) * key[offset + d];
        s *= options.softmaxScale;
        if (options.softCap)
          s = *options.softCap * std::tanh(s / *options.softCap);
        scores.push_back(s);
        maxScore = std::max(maxScore, s);
      }
      double sum = 0;
      for (int64_t j = 0; j < numSinks; ++j)
        sum += std::exp(sinkAt(h, j) - maxScore);
      for (double &x : scores) {
        x = std::exp(x - maxScore);
        sum += x;
      }
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t t = first; t < end; ++t) {
        int64_t offset = ((b * seqLen + t) * kvHeads + kvHead) * dim;
        for (int64_t d = 0; d < dim; ++d)
          acc[d] += scores[t - first] * value[offset + d];
      }
      for (int64_t d = 0; d < dim; ++d)
        out[(b * heads + h) * dim + d] = static_cast<float>(acc[d] / sum);
    }
  }
  return Status::success();
}
