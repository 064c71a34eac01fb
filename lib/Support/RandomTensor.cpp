//===- RandomTensor.cpp - seeded random tensors ---------------------------===//

#include "ejk/Support/RandomTensor.h"

#include <algorithm>

using namespace ejk;

const char *ejk::distributionKindName(InputDistribution::Kind kind) {
  switch (kind) {
  case InputDistribution::Kind::Normal:
    return "normal";
  case InputDistribution::Kind::Uniform:
    return "uniform";
  case InputDistribution::Kind::GroupSizes:
    return "group_sizes";
  case InputDistribution::Kind::CumulativeLengths:
    return "cumulative_lengths";
  case InputDistribution::Kind::IntegerRange:
    return "integer_range";
  case InputDistribution::Kind::ContextLengths:
    return "context_lengths";
  case InputDistribution::Kind::PageTable:
    return "page_table";
  case InputDistribution::Kind::RaggedContextLengths:
    return "ragged_context_lengths";
  case InputDistribution::Kind::SequenceCount:
    return "sequence_count";
  case InputDistribution::Kind::SequenceStarts:
    return "sequence_starts";
  case InputDistribution::Kind::SequenceEnds:
    return "sequence_ends";
  }
  return "normal";
}

bool ejk::parseDistributionKind(const std::string &name,
                                InputDistribution::Kind &kind) {
  for (InputDistribution::Kind k :
       {InputDistribution::Kind::Normal, InputDistribution::Kind::Uniform,
        InputDistribution::Kind::GroupSizes,
        InputDistribution::Kind::CumulativeLengths,
        InputDistribution::Kind::IntegerRange,
        InputDistribution::Kind::ContextLengths,
        InputDistribution::Kind::PageTable,
        InputDistribution::Kind::RaggedContextLengths,
        InputDistribution::Kind::SequenceCount,
        InputDistribution::Kind::SequenceStarts,
        InputDistribution::Kind::SequenceEnds})
    if (name == distributionKindName(k)) {
      kind = k;
      return true;
    }
  return false;
}

/// `parts` sizes >= 0 summing to `total`: cut points drawn uniformly, a
/// third of them pulled onto a neighbour so that empty and length-1 parts
/// occur.
static std::vector<int64_t> randomSplit(int64_t total, int64_t parts,
                                        std::mt19937_64 &rng) {
  std::vector<int64_t> cuts(parts > 0 ? parts - 1 : 0);
  std::uniform_int_distribution<int64_t> anywhere(0,
                                                  std::max<int64_t>(total, 0));
  for (int64_t &cut : cuts)
    cut = anywhere(rng);
  std::sort(cuts.begin(), cuts.end());
  std::uniform_int_distribution<int> oneIn(0, 2);
  for (size_t i = 1; i < cuts.size(); ++i)
    if (oneIn(rng) == 0)
      cuts[i] = std::min(total, cuts[i - 1] + oneIn(rng) % 2);
  std::vector<int64_t> sizes;
  int64_t previous = 0;
  for (int64_t cut : cuts) {
    sizes.push_back(cut - previous);
    previous = cut;
  }
  if (parts > 0)
    sizes.push_back(total - previous);
  return sizes;
}

/// Integers of an integer kind, `n` of them.
static std::vector<float> randomIntegers(const InputDistribution &d, int64_t n,
                                         std::mt19937_64 &rng) {
  int64_t first = static_cast<int64_t>(d.first);
  std::vector<float> values(n, 0.0f);
  if (d.kind == InputDistribution::Kind::IntegerRange) {
    std::uniform_int_distribution<int64_t> range(
        first, std::max(first, static_cast<int64_t>(d.second)));
    for (float &v : values)
      v = static_cast<float>(range(rng));
  } else if (d.kind == InputDistribution::Kind::SequenceCount) {
    std::uniform_int_distribution<int64_t> any(0, std::max<int64_t>(first, 0));
    for (float &v : values)
      v = static_cast<float>(rng() % 2 ? first : any(rng));
  } else if (d.kind == InputDistribution::Kind::SequenceStarts) {
    // A raw draw; fitDependentInputs maps it into [0, end]: its value mod
    // 8 picks 0 (three in eight), the end, one before the end, or (mod
    // end + 1) anywhere.
    std::uniform_int_distribution<int64_t> any(
        0, 8 * (std::max<int64_t>(first, 0) + 1) - 1);
    for (float &v : values)
      v = static_cast<float>(any(rng));
  } else if (d.kind == InputDistribution::Kind::ContextLengths ||
             d.kind == InputDistribution::Kind::RaggedContextLengths ||
             d.kind == InputDistribution::Kind::SequenceEnds) {
    // Edge lengths (empty, one token, a page boundary, full) among uniform
    // ones.
    int64_t page = std::max<int64_t>(1, static_cast<int64_t>(d.second));
    std::uniform_int_distribution<int64_t> any(0, std::max<int64_t>(first, 0));
    std::uniform_int_distribution<int> pick(0, 7);
    for (float &v : values) {
      int64_t length = any(rng);
      switch (pick(rng)) {
      case 0:
        length = 0;
        break;
      case 1:
        length = std::min<int64_t>(first, 1);
        break;
      case 2:
        length = length / page * page;
        break;
      case 3:
        length = first;
        break;
      default:
        break;
      }
      v = static_cast<float>(length);
    }
  } else if (d.kind == InputDistribution::Kind::PageTable) {
    // A shuffled pool, dealt out in order, reshuffled when it runs out.
    std::vector<int64_t> pool(static_cast<size_t>(std::max<int64_t>(first, 0)));
    for (size_t i = 0; i < pool.size(); ++i)
      pool[i] = static_cast<int64_t>(i);
    size_t next = pool.size();
    for (float &v : values) {
      if (pool.empty())
        break;
      if (next == pool.size()) {
        std::shuffle(pool.begin(), pool.end(), rng);
        next = 0;
      }
      v = static_cast<float>(pool[next++]);
    }
  } else if (d.kind == InputDistribution::Kind::GroupSizes) {
    // Half of the draws leave a few rows past the last group.
    std::uniform_int_distribution<int64_t> slack(0,
                                                 std::min<int64_t>(first, 3));
    int64_t used = first - (rng() % 2 ? slack(rng) : 0);
    std::vector<int64_t> sizes = randomSplit(used, n, rng);
    for (int64_t i = 0; i < n; ++i)
      values[i] = static_cast<float>(sizes[i]);
  } else if (n > 0) {
    std::vector<int64_t> sizes = randomSplit(first, n - 1, rng);
    int64_t sum = 0;
    for (int64_t i = 0; i + 1 < n; ++i) {
      values[i] = static_cast<float>(sum);
      sum += sizes[i];
    }
    values[n - 1] = static_cast<float>(n == 1 ? 0 : first);
  }
  return values;
}

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
  } else if (floats.kind != InputDistribution::Kind::Normal &&
             floats.kind != InputDistribution::Kind::Uniform) {
    values = randomIntegers(floats, n, rng);
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

/// Fits the raw draws of a SequenceStarts input into [0, end] of `ends`.
static std::vector<float> fitStarts(const std::vector<float> &raw,
                                    const std::vector<float> &ends) {
  std::vector<float> starts(raw.size(), 0.0f);
  for (size_t b = 0; b < raw.size() && b < ends.size(); ++b) {
    int64_t r = static_cast<int64_t>(raw[b]);
    int64_t end = std::max<int64_t>(0, static_cast<int64_t>(ends[b]));
    int64_t start = 0;
    switch (r % 8) {
    case 3:
      start = end;
      break;
    case 4:
      start = std::max<int64_t>(0, end - 1);
      break;
    case 5:
    case 6:
    case 7:
      start = (r / 8) % (end + 1);
      break;
    default:
      break;
    }
    starts[b] = static_cast<float>(start);
  }
  return starts;
}

void ejk::fitDependentInputs(const std::vector<InputDistribution> &kinds,
                             std::vector<HostTensor> &inputs) {
  for (size_t i = 0; i < inputs.size() && i < kinds.size(); ++i) {
    if (kinds[i].kind == InputDistribution::Kind::SequenceStarts) {
      for (size_t j = i + 1; j < inputs.size() && j < kinds.size(); ++j) {
        if (kinds[j].kind != InputDistribution::Kind::SequenceEnds ||
            inputs[j].shape != inputs[i].shape)
          continue;
        inputs[i] = HostTensor::fromFloats(
            inputs[i].dtype, inputs[i].shape,
            fitStarts(inputs[i].toFloats(), inputs[j].toFloats()));
        break;
      }
      continue;
    }
    if (kinds[i].kind != InputDistribution::Kind::RaggedContextLengths)
      continue;
    std::vector<float> lengths = inputs[i].toFloats();
    for (size_t j = i + 1; j < inputs.size() && j < kinds.size(); ++j) {
      if (kinds[j].kind != InputDistribution::Kind::CumulativeLengths)
        continue;
      std::vector<float> cu = inputs[j].toFloats();
      if (cu.size() != lengths.size() + 1)
        continue;
      for (size_t s = 0; s < lengths.size(); ++s)
        lengths[s] =
            std::min(kinds[i].first, std::max(lengths[s], cu[s + 1] - cu[s]));
      inputs[i] =
          HostTensor::fromFloats(inputs[i].dtype, inputs[i].shape, lengths);
      break;
    }
  }
}
