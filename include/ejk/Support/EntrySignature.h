//===- EntrySignature.h - what running an entry needs -----------*- C++ -*-===//
//
// The types of an entry point's inputs and results and how `ejk-run
// --random-inputs` draws each input: everything ejk-run takes from the IR to
// run an entry. The compiling tool derives it from the IR; the front, which
// has no IR, reads it from the source index
// (ejk/Store/Artifacts/SourceIndex.h).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_ENTRYSIGNATURE_H
#define EJK_SUPPORT_ENTRYSIGNATURE_H

#include "ejk/Support/RandomTensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ejk {

/// One input or result: its manifest dtype and static shape and, for an
/// input, the distribution of its random values.
struct TensorSpec {
  std::string dtype;
  std::vector<int64_t> shape;
  InputDistribution random;
};

struct EntrySignature {
  std::vector<TensorSpec> inputs, results;
};

} // namespace ejk

#endif // EJK_SUPPORT_ENTRYSIGNATURE_H
