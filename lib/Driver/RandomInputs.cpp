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

#include <algorithm>

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

/// Random inputs: floats from `floats` (N(0, 1) unless the argument's use
/// asks otherwise, see inputDistributionFor), i1 true with probability 0.85,
/// integers in [0, 3) sorted along the last dimension (segment-id like).
HostTensor mlir::ejk::randomTensor(ShapedType type,
                                   const InputDistribution &floats,
                                   std::mt19937_64 &rng) {
  std::string dtype = HostTensor::dtypeOf(type.getElementType());
  std::vector<int64_t> shape = type.getShape().vec();
  int64_t n = type.getNumElements();
  std::vector<float> values(n);
  if (isa<FloatType>(type.getElementType())) {
    if (floats.kind == InputDistribution::Kind::Normal) {
      std::normal_distribution<float> normal(floats.first, floats.second);
      for (float &v : values)
        v = normal(rng);
    } else {
      std::uniform_real_distribution<float> uniform(floats.first,
                                                    floats.second);
      for (float &v : values)
        v = uniform(rng);
    }
  } else if (type.getElementType().isInteger(1)) {
    std::bernoulli_distribution keep(0.85);
    for (float &v : values)
      v = keep(rng) ? 1.0f : 0.0f;
  } else {
    std::uniform_int_distribution<int> small(0, 2);
    for (float &v : values)
      v = static_cast<float>(small(rng));
    int64_t last = shape.empty() ? 1 : shape.back();
    for (int64_t i = 0; i + last <= n && last > 0; i += last)
      std::sort(values.begin() + i, values.begin() + i + last);
  }
  return HostTensor::fromFloats(dtype, shape, values);
}
