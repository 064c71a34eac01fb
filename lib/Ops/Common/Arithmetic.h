//===- Arithmetic.h - integer helpers of config rules and kernels -*- C++ -*-//
//
// Sizes in config rules come from user IR and configs, so products of dims
// and block sizes may overflow int64_t: rules compute them with
// `checkedProduct` and treat an overflow as "too large".
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_ARITHMETIC_H
#define EJK_OPS_COMMON_ARITHMETIC_H

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>

namespace mlir::ejk {

/// Smallest power of two >= n (and >= 1).
inline int64_t ceilPow2(int64_t n) {
  return static_cast<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(n, 1)));
}

/// `value` rounded up to a multiple of `multiple` (> 0).
inline int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// ceil(value / divisor) for value >= 0, divisor > 0.
inline int64_t ceilDiv(int64_t value, int64_t divisor) {
  return (value + divisor - 1) / divisor;
}

/// The product of non-negative `factors`, or nullopt when it overflows
/// int64_t.
inline std::optional<int64_t>
checkedProduct(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (int64_t factor : factors)
    if (llvm::MulOverflow(product, factor, product))
      return std::nullopt;
  return product;
}

/// The sum of non-negative `terms`, or nullopt when it overflows int64_t.
inline std::optional<int64_t>
checkedSum(std::initializer_list<std::optional<int64_t>> terms) {
  int64_t sum = 0;
  for (std::optional<int64_t> term : terms)
    if (!term || llvm::AddOverflow(sum, *term, sum))
      return std::nullopt;
  return sum;
}

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_ARITHMETIC_H
