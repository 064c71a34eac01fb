//===- RandomTensor.h - seeded random tensors -------------------*- C++ -*-===//
//
// The values `ejk-run --random-inputs` and the autotuner draw. MLIR-free:
// `ejk-run`'s front draws the same inputs as the compiling tool without
// the IR, from the distributions recorded for each argument (which
// ejk/Driver/RandomInputs.h derives from the argument's uses).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_RANDOMTENSOR_H
#define EJK_SUPPORT_RANDOMTENSOR_H

#include "ejk/Support/HostTensor.h"

#include <random>

namespace ejk {

/// How to draw the elements of one floating-point input.
struct InputDistribution {
  enum class Kind { Normal, Uniform };
  Kind kind = Kind::Normal;
  /// Normal: mean and standard deviation; Uniform: [first, second).
  float first = 0.0f, second = 1.0f;
};

/// A random tensor of `dtype` and `shape`: floats (f32, f16, bf16, f64)
/// from `floats`, i1 true with probability 0.85, integers in [0, 3) sorted
/// along the last dimension (segment-id like).
HostTensor randomTensor(const std::string &dtype, std::vector<int64_t> shape,
                        const InputDistribution &floats, std::mt19937_64 &rng);

} // namespace ejk

#endif // EJK_SUPPORT_RANDOMTENSOR_H
