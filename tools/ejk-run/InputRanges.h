//===- InputRanges.h - op-aware ranges for random inputs --------*- C++ -*-===//
//
// --random-inputs draws floats from N(0, 1), which suits attention but not
// every operand: a Mamba scan with a positive A or a negative step size
// grows exponentially over the sequence, and the kernel and the reference
// both overflow. An argument's uses decide its range here.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TOOLS_EJKRUN_INPUTRANGES_H
#define EJK_TOOLS_EJKRUN_INPUTRANGES_H

#include "mlir/IR/Value.h"

namespace mlir::ejk {

/// How to draw the elements of one floating-point input.
struct InputDistribution {
  enum class Kind { Normal, Uniform };
  Kind kind = Kind::Normal;
  /// Normal: mean and standard deviation; Uniform: [first, second).
  float first = 0.0f, second = 1.0f;
};

/// The distribution for entry argument `arg`, from the first use that asks
/// for a special range (Mamba's A, step sizes and their biases), else
/// N(0, 1).
InputDistribution inputDistributionFor(BlockArgument arg);

} // namespace mlir::ejk

#endif // EJK_TOOLS_EJKRUN_INPUTRANGES_H
