//===- RandomInputs.h - seeded random inputs for an entry -------*- C++ -*-===//
//
// `ejk-run --random-inputs` and the autotuner draw the same inputs. Floats
// come from N(0, 1), which suits attention but not every operand: a Mamba scan
// with a positive A or a negative step size grows exponentially over the
// sequence, and the kernel and the reference both overflow. An argument's uses
// decide its range here.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DRIVER_RANDOMINPUTS_H
#define EJK_DRIVER_RANDOMINPUTS_H

#include "ejk/Driver/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <random>

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

/// A random tensor of `type`: floats from `floats`, i1 true with
/// probability 0.85, integers in [0, 3) sorted along the last dimension
/// (segment-id like).
HostTensor randomTensor(ShapedType type, const InputDistribution &floats,
                        std::mt19937_64 &rng);

} // namespace mlir::ejk

#endif // EJK_DRIVER_RANDOMINPUTS_H
