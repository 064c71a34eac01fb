//===- SoftmaxScale.h - the default softmax scale of attention --*- C++ -*-===//

#ifndef EJK_DIALECT_EJK_LIB_SOFTMAXSCALE_H
#define EJK_DIALECT_EJK_LIB_SOFTMAXSCALE_H

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace mlir::ejk {

/// `scale` when the op sets it, else 1 / sqrt(head_dim) (every attention
/// op of ejKernel defaults to it).
inline float effectiveSoftmaxScale(std::optional<llvm::APFloat> scale,
                                   int64_t headDim) {
  if (scale)
    return scale->convertToFloat();
  return 1.0f / std::sqrt(static_cast<float>(headDim));
}

} // namespace mlir::ejk

#endif // EJK_DIALECT_EJK_LIB_SOFTMAXSCALE_H
