//===- Checks.h - running on the runtime and checking results ---*- C++ -*-===//

#ifndef EJK_TOOLS_EJKRUN_CHECKS_H
#define EJK_TOOLS_EJKRUN_CHECKS_H

#include "ejk/Driver/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

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

/// Outputs and timings of runs on the runtime.
struct RunResult {
  std::vector<HostTensor> outputs;
  /// Kernel time of each timed run, in nanoseconds.
  std::vector<uint64_t> timesNs;
  /// FLOPs and bytes of one run, from the manifest.
  int64_t flops = 0, bytes = 0;
};

/// Loads the artifact on the runtime device `deviceSpec` ("cpu", "vulkan"),
/// runs `entry` once (plus 2 warm-up and `benchRuns` timed runs when
/// benchRuns > 0) and downloads the outputs, whose types are `resultTypes`.
/// Timed runs report the runtime's kernel time (on Vulkan, the GPU's).
bool runOnRuntime(const std::string &deviceSpec,
                  const std::string &manifestPath, const std::string &entry,
                  const std::vector<HostTensor> &inputs,
                  ArrayRef<ShapedType> resultTypes, unsigned benchRuns,
                  RunResult &result, std::string &error);

/// Prints median and min time and GFLOP/s of the timed runs.
void printBench(const RunResult &result, unsigned runs, raw_ostream &os);

} // namespace mlir::ejk

#endif // EJK_TOOLS_EJKRUN_CHECKS_H
