//===- CandidateRunner.h - time compiled candidates on a device -*- C++ -*-===//
//
// The device half of autotuning, MLIR-free so that it runs where the
// compiler does not (`ejk-tune-runner` on the machine with the device).
//
// A candidate directory holds `plan.json` and, per problem, the inputs, the
// reference outputs and one compiled artifact per candidate config:
//
//   DIR/plan.json
//   DIR/p0/input0.npy ...        the entry's arguments (raw element bytes:
//                                bf16 as uint16, i1 as bool)
//   DIR/p0/expected0.npy ...     the reference evaluator's outputs (f32)
//   DIR/p0/c3/kernel.{so,json}   candidate 3 of problem 0
//
// The runner checks every candidate's outputs against the reference (a
// wrong candidate is never timed, so never chosen), then times it: warm-up
// runs, then the median of N runs of the runtime's kernel timer. Results go
// to a JSON file that `ejk-tune --import-results` turns into database
// entries.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_AUTOTUNE_RUNNER_CANDIDATERUNNER_H
#define EJK_AUTOTUNE_RUNNER_CANDIDATERUNNER_H

#include "ejk/Store/Tuning/TuningDatabase.h"
#include "ejk/Support/Fingerprint.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace ejk {

/// One compiled candidate of a problem.
struct PlanCandidate {
  ConfigValues config;
  /// The artifact's manifest, relative to the directory; empty when the
  /// candidate did not compile (then `compileError` says why).
  std::string manifest;
  std::string compileError;
};

/// One problem: an entry with its inputs, expected outputs and candidates.
struct PlanProblem {
  std::string key;
  std::string entry;
  /// .npy files relative to the directory.
  std::vector<std::string> inputs;
  std::vector<std::string> expected;
  ConfigValues heuristic;
  std::vector<PlanCandidate> candidates;
};

/// What `ejk-tune --emit-candidates` writes and the runner reads.
struct TuningPlan {
  /// The device the candidates were compiled for.
  DeviceFingerprint fingerprint;
  std::vector<PlanProblem> problems;

  /// Writes `<dir>/plan.json`.
  bool write(const std::string &dir, std::string &error) const;
  /// Reads `<dir>/plan.json`.
  static bool read(const std::string &dir, TuningPlan &plan,
                   std::string &error);
};

/// The outcome of one candidate.
struct CandidateResult {
  ConfigValues config;
  /// "ok" (correct and timed), "wrong" (outputs differ from the reference),
  /// "failed" (did not compile, load or run) or "skipped" (out of budget).
  std::string status;
  std::string message;
  double medianNs = 0, minNs = 0;
  std::vector<double> timesNs;
  double maxAbsError = 0;
};

struct ProblemResult {
  std::string key;
  ConfigValues heuristic;
  std::vector<CandidateResult> candidates;
};

/// What the runner writes: the device it ran on and every candidate.
struct TuningResults {
  DeviceFingerprint fingerprint;
  std::vector<ProblemResult> problems;

  bool write(const std::string &path, std::string &error) const;
  static bool read(const std::string &path, TuningResults &results,
                   std::string &error);
};

struct RunnerOptions {
  /// The runtime device spec; "" means the plan's kind ("cpu", or "vulkan":
  /// the Vulkan device EJK_VULKAN_DEVICE picks).
  std::string device;
  unsigned warmupRuns = 2;
  unsigned timedRuns = 5;
  /// Seconds after which the remaining candidates are skipped; 0: none.
  double budgetSeconds = 0;
  /// Called with a line per candidate, as it finishes.
  std::function<void(const std::string &)> progress;
};

/// Runs every candidate of `plan` (read from `dir`) on the device and sets
/// `results.fingerprint` to the device's. Fails only when the device cannot
/// be created (or is not of the plan's kind) or an input cannot be read; a
/// failing candidate is a result.
bool runPlan(const std::string &dir, const TuningPlan &plan,
             const RunnerOptions &options, TuningResults &results,
             std::string &error);

/// The database entry of each problem that has a correct candidate: the
/// fastest (median) wins, unless it beats the heuristic by less than 3 %
/// (noise on a shared machine), then the heuristic does; the others are its
/// runner-ups.
TuningEntries winnersOf(const TuningResults &results);

/// A table per problem: every candidate with its status and times, the
/// winner and heuristic marked, and the winner's speedup over the heuristic.
void printResultsTable(const TuningResults &results, std::ostream &os);

} // namespace ejk

#endif // EJK_AUTOTUNE_RUNNER_CANDIDATERUNNER_H
