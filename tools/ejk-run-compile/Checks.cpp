//===- Checks.cpp - checking results against the reference ----------------===//

#include "Checks.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::ejk;

Tolerance mlir::ejk::toleranceFor(StringRef dtype) {
  if (dtype == "f16")
    return {5e-3, 5e-3};
  if (dtype == "bf16")
    return {4e-2, 2e-2};
  return {1e-4, 1e-4};
}

ComparisonResult mlir::ejk::compareWithReference(const HostTensor &actual,
                                                 const HostTensor &expected) {
  ComparisonResult result;
  result.tolerance = toleranceFor(actual.dtype);
  std::vector<float> a = actual.toFloats(), e = expected.toFloats();
  for (size_t i = 0; i < a.size() && i < e.size(); ++i) {
    bool bad;
    if (std::isinf(e[i]) || std::isinf(a[i])) {
      bad = a[i] != e[i];
    } else {
      double diff = std::fabs(static_cast<double>(a[i]) - e[i]);
      result.maxAbsError = std::max(result.maxAbsError, diff);
      if (e[i] != 0.0f)
        result.maxRelError =
            std::max(result.maxRelError, diff / std::fabs(e[i]));
      bad = !(diff <= result.tolerance.absolute +
                          result.tolerance.relative * std::fabs(e[i]));
    }
    if (bad && result.passed) {
      result.passed = false;
      result.firstBadIndex = static_cast<int64_t>(i);
      result.firstBadActual = a[i];
      result.firstBadExpected = e[i];
    }
  }
  if (a.size() != e.size())
    result.passed = false;
  return result;
}
