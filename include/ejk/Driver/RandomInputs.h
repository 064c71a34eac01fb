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
#include "ejk/Support/RandomTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <random>

namespace mlir::ejk {

using InputDistribution = ::ejk::InputDistribution;

/// The distribution for entry argument `arg`, from the first use that asks
/// for a special range (Mamba's A, step sizes and their biases), else
/// N(0, 1).
InputDistribution inputDistributionFor(BlockArgument arg);

/// A random tensor of `type` (::ejk::randomTensor of its dtype and shape).
HostTensor randomTensor(ShapedType type, const InputDistribution &floats,
                        std::mt19937_64 &rng);

} // namespace mlir::ejk

#endif // EJK_DRIVER_RANDOMINPUTS_H
