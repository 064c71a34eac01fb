//===- LinearRecurrence.cpp - what the linear recurrences' oracles share --===//

#include "LinearRecurrence.h"
#include "ejk/Reference/Pooling.h"

#include <algorithm>

using namespace ejk::reference;

Status ejk::reference::checkRecurrenceInputs(const std::string &op,
                                             const TensorRef<float> &q,
                                             const TensorRef<float> &k,
                                             const TensorRef<float> &v,
                                             RecurrenceSizes &sizes) {
  const std::string prefix = op + ": ";
  if (Status s =
          checkShape(prefix + "q", q, {kAnyDim, kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  sizes.batch = q.shape[0];
  sizes.seq = q.shape[1];
  sizes.heads = q.shape[2];
  sizes.dimK = q.shape[3];
  if (Status s = checkShape(prefix + "k", k,
                            {sizes.batch, sizes.seq, kAnyDim, sizes.dimK});
      !s)
    return s;
  sizes.kvHeads = k.shape[2];
  if (sizes.kvHeads < 1 || sizes.heads % sizes.kvHeads != 0)
    return Status::error(
        prefix + "k: dim 2 (kv heads = " + std::to_string(sizes.kvHeads) +
        ") must be >= 1 and divide q dim 2 (heads = " +
        std::to_string(sizes.heads) + ")");
  if (Status s = checkShape(prefix + "v", v,
                            {sizes.batch, sizes.seq, sizes.kvHeads, kAnyDim});
      !s)
    return s;
  sizes.dimV = v.shape[3];
  return Status::success();
}

Status ejk::reference::recurrenceSequences(
    const std::string &op, const std::optional<TensorRef<float>> &cuSeqlens,
    const RecurrenceSizes &sizes,
    std::vector<std::pair<int64_t, int64_t>> &ranges) {
  const std::string prefix = op + ": ";
  ranges.clear();
  if (!cuSeqlens) {
    for (int64_t b = 0; b < sizes.batch; ++b)
      ranges.push_back({b * sizes.seq, (b + 1) * sizes.seq});
    return Status::success();
  }
  if (Status s = checkShape(prefix + "cuSeqlens", *cuSeqlens, {kAnyDim}); !s)
    return s;
  if (cuSeqlens->shape[0] < 1)
    return Status::error(prefix + "cuSeqlens: needs at least one entry");
  if (sizes.batch != 1)
    return Status::error(prefix +
                         "q: dim 0 (batch) must be 1 with cuSeqlens, got " +
                         std::to_string(sizes.batch));
  // The running maximum of the clamped entries, as the kernels read them
  // (lib/Ops/Linear/Sequences.h): the sequences stay disjoint and in order
  // whatever the table holds.
  std::vector<int64_t> cu(cuSeqlens->shape[0]);
  int64_t edge = 0;
  for (size_t i = 0; i < cu.size(); ++i) {
    int64_t entry = static_cast<int64_t>((*cuSeqlens)[i]);
    edge = std::max(edge, std::clamp<int64_t>(entry, 0, sizes.seq));
    cu[i] = edge;
  }
  ranges = sequenceRowRanges(cu, sizes.seq);
  return Status::success();
}

Status ejk::reference::prepareRecurrenceOutputs(
    const std::string &op, const std::optional<TensorRef<float>> &initialState,
    const RecurrenceSizes &sizes, int64_t numSeqs, std::vector<float> &o,
    std::vector<float> &finalState) {
  const std::string prefix = op + ": ";
  const std::vector<int64_t> stateShape = {numSeqs, sizes.heads, sizes.dimK,
                                           sizes.dimV};
  if (initialState)
    if (Status s =
            checkShape(prefix + "initialState", *initialState, stateShape);
        !s)
      return s;
  if (Status s = allocateOutput(
          prefix + "o", {sizes.batch, sizes.seq, sizes.heads, sizes.dimV}, 0.0f,
          o);
      !s)
    return s;
  return allocateOutput(prefix + "finalState", stateShape, 0.0f, finalState);
}

void ejk::reference::loadRecurrenceState(
    const std::optional<TensorRef<float>> &initialState, int64_t offset,
    int64_t size, std::vector<double> &state) {
  state.assign(size, 0.0);
  if (initialState)
    for (int64_t e = 0; e < size; ++e)
      state[e] = (*initialState)[offset + e];
}
