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
#include <string>

namespace ejk {

/// How to draw the elements of one input.
struct InputDistribution {
  enum class Kind {
    /// Floats: N(first, second).
    Normal,
    /// Floats: U[first, second).
    Uniform,
    /// Integers: the sizes of consecutive row groups (MoE group sizes), each
    /// >= 0, summing to `first` rows or a little less (rows past the last
    /// group), some groups empty.
    GroupSizes,
    /// Integers: cumulative sequence lengths over `first` packed rows:
    /// 0 first, non-decreasing, the last entry `first`, some sequences
    /// empty or of length 1.
    CumulativeLengths,
    /// Integers: uniform in [first, second].
    IntegerRange,
    /// Integers: sequence lengths in [0, first] over pages of `second`
    /// tokens (paged attention's context lengths): some 0, 1, a whole
    /// number of pages or `first`, the rest uniform.
    ContextLengths,
    /// Integers: page indices in [0, first) (a paged cache's block table):
    /// the pages of a shuffled pool, distinct while the pool lasts.
    PageTable,
    /// Integers: a ragged batch's kv_lens, drawn as ContextLengths; ejk-run
    /// then raises each to its sequence's query count in the
    /// CumulativeLengths input over one more entry that follows it (see
    /// fitDependentInputs), so that every sequence holds its new tokens.
    RaggedContextLengths,
    /// Integers: a count of live sequences in [0, first] (first half of the
    /// time).
    SequenceCount,
    /// Integers: the first key of each sequence of a ragged decode over
    /// `first` keys; ejk-run then fits each into [0, end] of the
    /// SequenceEnds input of its shape that follows it (see
    /// fitDependentInputs): often 0, sometimes the end (no key) or one
    /// before it (one key).
    SequenceStarts,
    /// Integers: one past the last key of each sequence of a ragged decode,
    /// in [0, first], drawn as ContextLengths over pages of `second`.
    SequenceEnds,
  };
  Kind kind = Kind::Normal;
  float first = 0.0f, second = 1.0f;
  /// The operand the values feed, as its op names it ("page_indices"),
  /// for validation messages; empty when the op gave none.
  std::string name = {};
};

/// The name of `kind` in artifact manifests ("normal", "group_sizes", ...).
const char *distributionKindName(InputDistribution::Kind kind);
/// The kind named `name`; false when there is none.
bool parseDistributionKind(const std::string &name,
                           InputDistribution::Kind &kind);

/// Makes drawn inputs that depend on others valid (`kinds` describes
/// `inputs`): raises every RaggedContextLengths input to the query counts of
/// the CumulativeLengths input of one more entry that follows it, within
/// its bound, and fits every SequenceStarts input into [0, end] of the
/// SequenceEnds input of its size that follows it.
void fitDependentInputs(const std::vector<InputDistribution> &kinds,
                        std::vector<HostTensor> &inputs);

/// A random tensor of `dtype` and `shape`: floats (f32, f16, bf16, f64)
/// from `floats`, i1 true with probability 0.85, integers from `floats` when
/// it is an integer kind and otherwise in [0, 3) sorted along the last
/// dimension (segment-id like).
HostTensor randomTensor(const std::string &dtype, std::vector<int64_t> shape,
                        const InputDistribution &floats, std::mt19937_64 &rng);

} // namespace ejk

#endif // EJK_SUPPORT_RANDOMTENSOR_H
