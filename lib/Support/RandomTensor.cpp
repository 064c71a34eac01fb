//===- RandomTensor.cpp - seeded random tensors ---------------------------===//

#include "ejk/Support/RandomTensor.h"

#include <algorithm>

using namespace ejk;

HostTensor ejk::randomTensor(const std::string &dtype,
                             std::vector<int64_t> shape,
                             const InputDistribution &floats,
                             std::mt19937_64 &rng) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<float> values(n);
  if (dtype == "f32" || dtype == "f16" || dtype == "bf16" || dtype == "f64") {
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
  } else if (dtype == "i1") {
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
  return HostTensor::fromFloats(dtype, std::move(shape), values);
}
