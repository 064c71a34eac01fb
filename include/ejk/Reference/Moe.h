//===- Moe.h - Reference grouped matmuls ------------------------*- C++ -*-===//
//
// The oracles for ejk.grouped_matmul and ejk.transposed_grouped_matmul over
// host f32 buffers, with every sum in double. Group g (global index) owns
// the rows [start_g, end_g): start_g is the sum of the earlier sizes, each
// negative size counted as 0, and both ends are cut at `rows` (the kernels'
// guard against bad sizes). A shard holding `local` groups from `offset`
// computes only the groups offset .. offset + local - 1 that exist.
//
//   grouped_matmul:  out[r, j] = existingOut[r, j] (or 0)
//                       + sum_i lhs[r, i] * rhs[g - offset, i, j]
//                    for the rows r of each owned group g (rhs[g, j, i] when
//                    transposeRhs); other rows are existingOut (or 0).
//   transposed:      out[g, i, j] = existingOut[g, i, j] (or 0)
//                       + sum_{r in group g + offset} lhs[r, i] * rhs[r, j]
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_MOE_H
#define EJK_REFERENCE_MOE_H

#include "ejk/Reference/Tensor.h"

#include <optional>
#include <vector>

namespace ejk::reference {

/// The row range [begin, end) of each global group, as the kernels guard
/// them (see above).
std::vector<std::pair<int64_t, int64_t>>
groupRowRanges(const std::vector<int64_t> &groupSizes, int64_t rows);

/// What is wrong with `groupSizes` for `rows` rows ("" when they are valid:
/// non-negative and summing to at most `rows`).
std::string checkGroupSizes(const std::vector<int64_t> &groupSizes,
                            int64_t rows);

struct GroupedMatmulOptions {
  /// The first group the rhs holds; 0 when absent.
  int64_t groupOffset = 0;
  /// rhs is [groups, n, k] instead of [groups, k, n].
  bool transposeRhs = false;
  /// Added to the result; the result's shape.
  std::optional<TensorRef<float>> existingOut;
  /// grouped_matmul with quantized weights: [local, n], each column's sum
  /// (over rhs's integer values) is multiplied by its group's scale.
  std::optional<TensorRef<float>> rhsScales;
};

/// lhs [rows, k], rhs [local, k, n] (or [local, n, k]), group sizes (as
/// floats holding integers) [groups]; out is [rows, n]. Messages start with
/// "grouped_matmul: ".
Status groupedMatmul(const TensorRef<float> &lhs, const TensorRef<float> &rhs,
                     const TensorRef<float> &groupSizes,
                     const GroupedMatmulOptions &options,
                     std::vector<float> &out);

/// lhs [rows, k], rhs [rows, n], group sizes [groups]; out is [local, k, n]
/// with `local` given. Messages start with "transposed_grouped_matmul: ".
Status transposedGroupedMatmul(const TensorRef<float> &lhs,
                               const TensorRef<float> &rhs,
                               const TensorRef<float> &groupSizes,
                               int64_t localGroups,
                               const GroupedMatmulOptions &options,
                               std::vector<float> &out);

} // namespace ejk::reference

#endif // EJK_REFERENCE_MOE_H
