//===- RandomInputs.cpp - seeded random inputs for an entry ---------------===//
//
// Mamba's ranges: A = -exp(A_log) is negative (here in [-4, -0.25)); step
// sizes are positive and small. With softplus, the raw step and its bias
// are N(-1, 0.5) and U(-1, 0.5), so dt = softplus(...) is about 0.1-0.5;
// without it, dt itself is U(0.01, 0.2) and the bias U(0, 0.1), so the
// sum stays positive and the state decays.
//
//===----------------------------------------------------------------------===//

#include "ejk/Driver/RandomInputs.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
using Kind = InputDistribution::Kind;

std::optional<InputDistribution> stateSpaceRange(Value arg, Value a, Value step,
                                                 Value bias, bool softplus) {
  if (arg == a)
    return InputDistribution{Kind::Uniform, -4.0f, -0.25f};
  if (arg == step)
    return softplus ? InputDistribution{Kind::Normal, -1.0f, 0.5f}
                    : InputDistribution{Kind::Uniform, 0.01f, 0.2f};
  if (arg == bias)
    return softplus ? InputDistribution{Kind::Uniform, -1.0f, 0.5f}
                    : InputDistribution{Kind::Uniform, 0.0f, 0.1f};
  return std::nullopt;
}
} // namespace

InputDistribution mlir::ejk::inputDistributionFor(BlockArgument arg) {
  for (Operation *user : arg.getUsers()) {
    std::optional<InputDistribution> range;
    if (auto scan = dyn_cast<SelectiveScanOp>(user))
      range = stateSpaceRange(arg, scan.getA(), scan.getDelta(),
                              scan.getDeltaBias(), scan.getDeltaSoftplus());
    else if (auto ssd = dyn_cast<SsdOp>(user))
      range = stateSpaceRange(arg, ssd.getA(), ssd.getDt(), ssd.getDtBias(),
                              ssd.getDtSoftplus());
    if (range)
      return *range;
  }
  return InputDistribution();
}

HostTensor mlir::ejk::randomTensor(ShapedType type,
                                   const InputDistribution &floats,
                                   std::mt19937_64 &rng) {
  return ::ejk::randomTensor(dtypeOf(type.getElementType()),
                             type.getShape().vec(), floats, rng);
}
