//===- GroupedMatmul.cpp - Reference grouped matmuls ----------------------===//
//
// The plain loops of Moe.h: per owned group, its rows times its matrix.
//
//===----------------------------------------------------------------------===//

#include "ejk/Reference/Moe.h"

#include <algorithm>
#include <string>

using namespace ejk::reference;

std::vector<std::pair<int64_t, int64_t>>
ejk::reference::groupRowRanges(const std::vector<int64_t> &groupSizes,
                               int64_t rows) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  int64_t start = 0;
  for (int64_t size : groupSizes) {
    int64_t end = std::min(rows, start + std::max<int64_t>(size, 0));
    ranges.emplace_back(start, end);
    start = end;
  }
  return ranges;
}

std::string
ejk::reference::checkGroupSizes(const std::vector<int64_t> &groupSizes,
                                int64_t rows) {
  int64_t sum = 0;
  for (size_t g = 0; g < groupSizes.size(); ++g) {
    if (groupSizes[g] < 0)
      return "group " + std::to_string(g) + " has a negative size (" +
             std::to_string(groupSizes[g]) + ")";
    sum += groupSizes[g];
    if (sum > rows)
      return "the group sizes up to group " + std::to_string(g) + " sum to " +
             std::to_string(sum) + ", more than the " + std::to_string(rows) +
             " rows";
  }
  return "";
}

/// The group sizes of a float tensor holding integers.
static std::vector<int64_t> readSizes(const TensorRef<float> &sizes) {
  std::vector<int64_t> values(sizes.numElements);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<int64_t>(sizes[static_cast<int64_t>(i)]);
  return values;
}

/// Starts `out` (of `count` elements) from existingOut or zeros.
static Status startOutput(const std::string &op,
                          const GroupedMatmulOptions &options,
                          const std::vector<int64_t> &shape,
                          std::vector<float> &out) {
  int64_t count = 0;
  if (!shapeElementCount(shape, count))
    return Status::error(op + ": the result has too many elements");
  out.assign(static_cast<size_t>(count), 0.0f);
  if (!options.existingOut)
    return Status::success();
  if (Status s = checkShape(op + ": existing_out", *options.existingOut, shape);
      !s)
    return s;
  std::copy(options.existingOut->data, options.existingOut->data + count,
            out.begin());
  return Status::success();
}

Status ejk::reference::groupedMatmul(const TensorRef<float> &lhs,
                                     const TensorRef<float> &rhs,
                                     const TensorRef<float> &groupSizes,
                                     const GroupedMatmulOptions &options,
                                     std::vector<float> &out) {
  const std::string op = "grouped_matmul";
  if (Status s = checkShape(op + ": lhs", lhs, {kAnyDim, kAnyDim}); !s)
    return s;
  int64_t rows = lhs.shape[0], k = lhs.shape[1];
  if (Status s = checkShape(op + ": rhs", rhs, {kAnyDim, kAnyDim, kAnyDim}); !s)
    return s;
  int64_t local = rhs.shape[0];
  int64_t n = options.transposeRhs ? rhs.shape[1] : rhs.shape[2];
  int64_t rhsK = options.transposeRhs ? rhs.shape[2] : rhs.shape[1];
  if (rhsK != k)
    return Status::error(op + ": rhs k (" + std::to_string(rhsK) +
                         ") must match lhs k (" + std::to_string(k) + ")");
  if (Status s = checkShape(op + ": group_sizes", groupSizes, {kAnyDim}); !s)
    return s;
  if (options.rhsScales)
    if (Status s =
            checkShape(op + ": rhs_scales", *options.rhsScales, {local, n});
        !s)
      return s;
  if (Status s = startOutput(op, options, {rows, n}, out); !s)
    return s;
  std::vector<std::pair<int64_t, int64_t>> ranges =
      groupRowRanges(readSizes(groupSizes), rows);
  for (int64_t g = 0; g < local; ++g) {
    int64_t global = g + options.groupOffset;
    if (global < 0 || global >= static_cast<int64_t>(ranges.size()))
      continue;
    for (int64_t r = ranges[global].first; r < ranges[global].second; ++r)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int64_t i = 0; i < k; ++i) {
          int64_t w =
              options.transposeRhs ? (g * n + j) * k + i : (g * k + i) * n + j;
          sum += double(lhs[r * k + i]) * double(rhs[w]);
        }
        if (options.rhsScales)
          sum *= double((*options.rhsScales)[g * n + j]);
        out[r * n + j] = static_cast<float>(out[r * n + j] + sum);
      }
  }
  return Status::success();
}

Status ejk::reference::transposedGroupedMatmul(
    const TensorRef<float> &lhs, const TensorRef<float> &rhs,
    const TensorRef<float> &groupSizes, int64_t localGroups,
    const GroupedMatmulOptions &options, std::vector<float> &out) {
  const std::string op = "transposed_grouped_matmul";
  if (Status s = checkShape(op + ": lhs", lhs, {kAnyDim, kAnyDim}); !s)
    return s;
  int64_t rows = lhs.shape[0], k = lhs.shape[1];
  if (Status s = checkShape(op + ": rhs", rhs, {rows, kAnyDim}); !s)
    return s;
  int64_t n = rhs.shape[1];
  if (Status s = checkShape(op + ": group_sizes", groupSizes, {kAnyDim}); !s)
    return s;
  if (localGroups < 0)
    return Status::error(op + ": negative number of groups");
  if (Status s = startOutput(op, options, {localGroups, k, n}, out); !s)
    return s;
  std::vector<std::pair<int64_t, int64_t>> ranges =
      groupRowRanges(readSizes(groupSizes), rows);
  for (int64_t g = 0; g < localGroups; ++g) {
    int64_t global = g + options.groupOffset;
    if (global < 0 || global >= static_cast<int64_t>(ranges.size()))
      continue;
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int64_t r = ranges[global].first; r < ranges[global].second; ++r)
          sum += double(lhs[r * k + i]) * double(rhs[r * n + j]);
        float &o = out[(g * k + i) * n + j];
        o = static_cast<float>(o + sum);
      }
  }
  return Status::success();
}
