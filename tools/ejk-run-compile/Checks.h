//===- Checks.h - checking results against the reference -------*- C++ -*-===//

#ifndef EJK_TOOLS_EJKRUN_CHECKS_H
#define EJK_TOOLS_EJKRUN_CHECKS_H

#include "ejk/Driver/HostTensor.h"

#include "mlir/Support/LLVM.h"

namespace mlir::ejk {

/// Elementwise |actual - expected| <= absolute + relative * |expected|.
struct Tolerance {
  double absolute, relative;
};

/// The tolerance for results of `dtype`: f32 accumulation error for f32,
/// plus one rounding of the output for f16/bf16.
Tolerance toleranceFor(StringRef dtype);

struct ComparisonResult {
  bool passed = true;
  double maxAbsError = 0, maxRelError = 0;
  Tolerance tolerance{0, 0};
  int64_t firstBadIndex = -1;
  float firstBadActual = 0, firstBadExpected = 0;
};

/// Compares a result with the reference's f32 result. Infinities must match
/// exactly (e.g. lse = -inf of fully masked rows); NaN never passes.
ComparisonResult compareWithReference(const HostTensor &actual,
                                      const HostTensor &expected);

} // namespace mlir::ejk

#endif // EJK_TOOLS_EJKRUN_CHECKS_H
