//===- Autotuner.h - compile, check and time config candidates --*- C++ -*-===//
//
// The compiler half of autotuning. For each problem (one tunable op on its
// own, see extractProblem) it enumerates the op's config space for the
// device (pruned by verifyConfig), draws random inputs, computes the
// reference outputs, and compiles one artifact per candidate into a
// candidate directory (ejk/Autotune/Runner/CandidateRunner.h): shared objects
// for the CPU, SPIR-V for a Vulkan device. The runner then checks and times the
// candidates, on this machine (tuneOnThisMachine) or on the device's machine
// (`ejk-tune-runner`), and the winners go to the tuning database.
//
// Lives above the driver (it compiles) and the runtime (it runs), which is
// why config selection reaches it only through ProblemTuner.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_AUTOTUNE_AUTOTUNER_H
#define EJK_AUTOTUNE_AUTOTUNER_H

#include "ejk/Autotune/Runner/CandidateRunner.h"
#include "ejk/Selection/Selection.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::ejk {

/// A problem to tune: its key and the IR of extractProblem (entry
/// `@problem`).
struct TuningProblem {
  std::string key;
  std::string ir;
};

/// The problem of `op`.
FailureOr<TuningProblem> makeTuningProblem(TunableOpInterface op);

struct AutotuneOptions {
  /// Enumerate the op's full config space instead of the small one.
  bool fullSpace = false;
  /// Seconds for the whole tuning (compiling and timing); 0: no limit.
  /// Candidates left when it runs out are skipped; the heuristic comes
  /// first so that it is always measured.
  double budgetSeconds = 0;
  unsigned warmupRuns = 2;
  unsigned timedRuns = 5;
  /// Seed of the random inputs.
  uint64_t seed = 0;
  /// Cache root of the tuning database; "" means the default.
  std::string cacheDir;
  /// Where progress and the result tables go (null: nowhere).
  llvm::raw_ostream *log = nullptr;
};

/// Compiles every candidate of `problems` for the device `fingerprint`
/// describes into `dir` and writes `dir/plan.json`. CPU code is generated
/// for this machine's CPU, so a CPU fingerprint must have this machine's
/// ISA; SPIR-V is generated for the Vulkan fingerprint's facts (the device
/// need not be here). Fails with a message.
LogicalResult emitCandidates(ArrayRef<TuningProblem> problems,
                             const ::ejk::DeviceFingerprint &fingerprint,
                             StringRef dir, const AutotuneOptions &options,
                             ::ejk::TuningPlan &plan, std::string &error);

/// Tunes `problems` on `device`, a device of this machine (the host CPU,
/// or the Vulkan device the runtime opens): emits the candidates into a
/// temporary directory, runs them, stores the winners in the device's
/// tuning database and logs a table. Fails with a message when nothing
/// could be measured or the runtime's device is not `device`; a problem
/// without a correct candidate gets no entry.
LogicalResult tuneOnThisMachine(ArrayRef<TuningProblem> problems,
                                const ::ejk::DeviceFingerprint &device,
                                const AutotuneOptions &options,
                                ::ejk::TuningResults &results,
                                std::string &error);

/// Stores the winners of `results` in the tuning database of the device
/// the results were measured on. Returns the entries stored.
FailureOr<::ejk::TuningEntries>
importResults(const ::ejk::TuningResults &results, const std::string &cacheDir,
              std::string &error, std::vector<std::string> &warnings);

/// The autotune tier's engine for a device of this machine: tunes the
/// problem with tuneOnThisMachine on the selection's device (which stores
/// the winner).
std::shared_ptr<ProblemTuner> createLocalProblemTuner(AutotuneOptions options);

} // namespace mlir::ejk

#endif // EJK_AUTOTUNE_AUTOTUNER_H
