//===- LinearRecurrence.h - what the linear recurrences' oracles share ----===//
//
// The oracles of gla (Gla.cpp) and of the delta rule (DeltaRule.cpp) run a
// [head_dim_k, head_dim_v] state per (sequence, head) over the same inputs:
// q, k, v of grouped heads, sequences packed by cu_seqlens or one per
// batch row, an optional initial state and a final state. These are the
// checks and the bookkeeping around that state; each recurrence stays in its
// own file.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_LINEARRECURRENCE_H
#define EJK_REFERENCE_LINEARRECURRENCE_H

#include "ejk/Reference/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ejk::reference {

/// The sizes of q [batch, seq, heads, dimK], k [batch, seq, kvHeads, dimK]
/// and v [batch, seq, kvHeads, dimV].
struct RecurrenceSizes {
  int64_t batch, seq, heads, dimK, kvHeads, dimV;
};

/// Checks q, k and v (kvHeads >= 1 dividing heads) and reads their sizes;
/// errors start with "`op`: ".
Status checkRecurrenceInputs(const std::string &op, const TensorRef<float> &q,
                             const TensorRef<float> &k,
                             const TensorRef<float> &v, RecurrenceSizes &sizes);

/// The steps [begin, end) of each sequence, as rows flat over batch x seq:
/// the packed sequences of `cuSeqlens` (batch 1), or one per batch row.
Status recurrenceSequences(const std::string &op,
                           const std::optional<TensorRef<float>> &cuSeqlens,
                           const RecurrenceSizes &sizes,
                           std::vector<std::pair<int64_t, int64_t>> &ranges);

/// Checks the initial state ([numSeqs, heads, dimK, dimV]) and allocates o
/// ([batch, seq, heads, dimV]) and the final state.
Status
prepareRecurrenceOutputs(const std::string &op,
                         const std::optional<TensorRef<float>> &initialState,
                         const RecurrenceSizes &sizes, int64_t numSeqs,
                         std::vector<float> &o, std::vector<float> &finalState);

/// The state of one (sequence, head) at `offset` in the initial state, or
/// zeros without one.
void loadRecurrenceState(const std::optional<TensorRef<float>> &initialState,
                         int64_t offset, int64_t size,
                         std::vector<double> &state);

} // namespace ejk::reference

#endif // EJK_REFERENCE_LINEARRECURRENCE_H
