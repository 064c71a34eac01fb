//===- MeanPooling.cpp - Reference mean pooling and its backward ----------===//

#include "ejk/Reference/Pooling.h"

#include <algorithm>
#include <string>

using namespace ejk::reference;

std::vector<std::pair<int64_t, int64_t>>
ejk::reference::sequenceRowRanges(const std::vector<int64_t> &cuSeqlens,
                                  int64_t total) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (size_t b = 0; b + 1 < cuSeqlens.size(); ++b) {
    int64_t start = std::clamp<int64_t>(cuSeqlens[b], 0, total);
    int64_t end = std::clamp<int64_t>(cuSeqlens[b + 1], start, total);
    ranges.emplace_back(start, end);
  }
  return ranges;
}

std::string ejk::reference::checkCuSeqlens(const std::vector<int64_t> &cu,
                                           int64_t total,
                                           const std::string &name) {
  if (!cu.empty() && cu[0] != 0)
    return name + "[0] is " + std::to_string(cu[0]) + ", not 0";
  for (size_t b = 0; b + 1 < cu.size(); ++b)
    if (cu[b + 1] < cu[b])
      return name + " decreases at " + std::to_string(b + 1) + " (" +
             std::to_string(cu[b]) + " then " + std::to_string(cu[b + 1]) + ")";
  if (!cu.empty() && cu.back() > total)
    return name + " ends at " + std::to_string(cu.back()) + ", past the " +
           std::to_string(total) + " packed rows";
  return "";
}

namespace {
/// Sequence b is rows [ranges[b].first, ranges[b].second) of a [rows, hidden]
/// view of the tokens.
struct Sequences {
  int64_t hidden = 0;
  std::vector<std::pair<int64_t, int64_t>> ranges;
};
} // namespace

/// The sequences of `tokenShape`, dense or packed.
static Status readSequences(const std::string &op,
                            const std::vector<int64_t> &tokenShape,
                            const std::optional<TensorRef<float>> &cuSeqlens,
                            Sequences &seqs) {
  if (!cuSeqlens) {
    if (tokenShape.size() != 3)
      return Status::error(op + ": dense tokens must have rank 3");
    seqs.hidden = tokenShape[2];
    for (int64_t b = 0; b < tokenShape[0]; ++b)
      seqs.ranges.emplace_back(b * tokenShape[1], (b + 1) * tokenShape[1]);
    return Status::success();
  }
  if (tokenShape.size() != 2)
    return Status::error(op + ": packed tokens must have rank 2");
  if (Status s = checkShape(op + ": cu_seqlens", *cuSeqlens, {kAnyDim}); !s)
    return s;
  seqs.hidden = tokenShape[1];
  std::vector<int64_t> cu(cuSeqlens->numElements);
  for (size_t i = 0; i < cu.size(); ++i)
    cu[i] = static_cast<int64_t>((*cuSeqlens)[static_cast<int64_t>(i)]);
  seqs.ranges = sequenceRowRanges(cu, tokenShape[0]);
  return Status::success();
}

Status
ejk::reference::meanPooling(const TensorRef<float> &input,
                            const std::optional<TensorRef<float>> &cuSeqlens,
                            std::vector<float> &out) {
  const std::string op = "mean_pooling";
  if (Status s = checkShape(op + ": input", input,
                            std::vector<int64_t>(input.rank(), kAnyDim));
      !s)
    return s;
  Sequences seqs;
  if (Status s = readSequences(op, input.shape, cuSeqlens, seqs); !s)
    return s;
  int64_t hidden = seqs.hidden;
  out.assign(seqs.ranges.size() * hidden, 0.0f);
  for (size_t b = 0; b < seqs.ranges.size(); ++b) {
    auto [start, end] = seqs.ranges[b];
    if (end == start)
      continue;
    for (int64_t d = 0; d < hidden; ++d) {
      double sum = 0.0;
      for (int64_t r = start; r < end; ++r)
        sum += input[r * hidden + d];
      out[b * hidden + d] = static_cast<float>(sum / double(end - start));
    }
  }
  return Status::success();
}

Status ejk::reference::meanPoolingGrad(
    const TensorRef<float> &gradOutput,
    const std::optional<TensorRef<float>> &cuSeqlens,
    const std::vector<int64_t> &tokenShape, std::vector<float> &gradInput) {
  const std::string op = "mean_pooling_grad";
  Sequences seqs;
  if (Status s = readSequences(op, tokenShape, cuSeqlens, seqs); !s)
    return s;
  int64_t hidden = seqs.hidden;
  int64_t batch = static_cast<int64_t>(seqs.ranges.size());
  if (Status s = checkShape(op + ": grad_output", gradOutput, {batch, hidden});
      !s)
    return s;
  int64_t count = 0;
  if (!shapeElementCount(tokenShape, count))
    return Status::error(op + ": grad_input has too many elements");
  gradInput.assign(static_cast<size_t>(count), 0.0f);
  for (int64_t b = 0; b < batch; ++b) {
    auto [start, end] = seqs.ranges[b];
    for (int64_t r = start; r < end; ++r)
      for (int64_t d = 0; d < hidden; ++d)
        gradInput[r * hidden + d] = static_cast<float>(
            double(gradOutput[b * hidden + d]) / double(end - start));
  }
  return Status::success();
}
