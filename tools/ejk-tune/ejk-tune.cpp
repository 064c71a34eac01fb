//===- ejk-tune.cpp - autotune the tunable ops of a file ------------------===//
//
//   ejk-tune FILE.mlir [--target cpu|vulkan] [--budget SECONDS]
//                      [--space small|full]
//   ejk-tune --recorded                  the problems tools logged (--record)
//   ejk-tune FILE.mlir --emit-candidates DIR --fingerprint FILE
//   ejk-tune --import-results RESULTS.json
//   ejk-tune --export-db FILE | --import-db FILE
//
// Each problem goes through the selection tiers with the autotune policy
// (the default here): the cache and the tuning database answer for problems
// already tuned (--retune skips them), the autotuner for the others.
//
//===----------------------------------------------------------------------===//

#include "ejk/Autotune/Autotuner.h"
#include "ejk/Driver/DeviceFingerprint.h"
#include "ejk/Driver/Tooling.h"
#include "ejk/Selection/Selection.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <sstream>

using namespace mlir;
using namespace mlir::ejk;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("[<input.mlir>]"));
static cl::opt<std::string>
    target("target",
           cl::desc("cpu or vulkan (the Vulkan device EJK_VULKAN_DEVICE "
                    "selects, or the --fingerprint file's device)"),
           cl::init("cpu"));
static cl::opt<double>
    budget("budget",
           cl::desc("Seconds for tuning each problem, compiling included; "
                    "0: no limit"),
           cl::init(0));
static cl::opt<std::string>
    space("space", cl::desc("Config space: small or full"), cl::init("small"));
static cl::opt<unsigned> runs("runs", cl::desc("Timed runs per candidate"),
                              cl::init(5));
static cl::opt<unsigned>
    warmup("warmup", cl::desc("Warm-up runs per candidate"), cl::init(2));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(0));
static cl::opt<bool> retune("retune",
                            cl::desc("Tune problems the database already has"));
static cl::opt<bool>
    recorded("recorded",
             cl::desc("Tune the problems that tools logged with --record "
                      "(those the database does not have yet)"));
static cl::opt<std::string>
    emitDir("emit-candidates",
            cl::desc("Compile every candidate into DIR for "
                     "`ejk-tune-runner DIR` on the device"),
            cl::value_desc("dir"));
static cl::opt<std::string>
    fingerprintFile("fingerprint",
                    cl::desc("The device's fingerprint (`ejk-run "
                             "--fingerprint-out`); default: this machine"),
                    cl::value_desc("file"));
static cl::opt<std::string>
    importResultsFile("import-results",
                      cl::desc("Store the winners of a runner's results"),
                      cl::value_desc("file"));
static cl::opt<std::string>
    exportDb("export-db",
             cl::desc("Write the device's tuning database to FILE"),
             cl::value_desc("file"));
static cl::opt<std::string>
    importDb("import-db",
             cl::desc("Merge a tuning database file (an --export-db) into the "
                      "database of the device it was tuned on"),
             cl::value_desc("file"));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("Cache root (default: $EJK_CACHE_DIR, "
                      "$XDG_CACHE_HOME/ejk, ~/.cache/ejk)"),
             cl::value_desc("dir"));
static cl::opt<bool> explain("ejk-explain-configs",
                             cl::desc("Report the tier of each problem"));

static int fail(const Twine &message) {
  llvm::errs() << "ejk-tune: error: " << message << "\n";
  return 1;
}

static void printWarnings(const std::vector<std::string> &warnings) {
  for (const std::string &warning : warnings)
    llvm::errs() << "ejk-tune: warning: " << warning << "\n";
}

static std::string resolvedCacheDir() {
  return cacheDir.empty() ? ::ejk::defaultCacheDirectory()
                          : cacheDir.getValue();
}

/// The device: --fingerprint FILE (its kind is the target unless --target
/// says otherwise), else this machine's device of the target.
static bool readDevice(::ejk::DeviceFingerprint &device, std::string &error) {
  if (!fingerprintFile.empty() && !target.getNumOccurrences()) {
    if (!readFingerprintFile(fingerprintFile, device, error))
      return false;
    target = device.kind;
    return true;
  }
  return fingerprintForTarget(target, fingerprintFile, device, error);
}

static int importResultsMain() {
  ::ejk::TuningResults results;
  std::string error;
  if (!::ejk::TuningResults::read(importResultsFile, results, error))
    return fail(error);
  std::ostringstream table;
  ::ejk::printResultsTable(results, table);
  llvm::outs() << table.str();
  std::vector<std::string> warnings;
  FailureOr<::ejk::TuningEntries> stored =
      importResults(results, resolvedCacheDir(), error, warnings);
  printWarnings(warnings);
  if (failed(stored))
    return fail(error);
  ::ejk::TuningDatabase database(resolvedCacheDir(), results.fingerprint);
  llvm::outs() << "stored " << stored->size() << " winner(s) in "
               << database.path() << "\n";
  return stored->size() == results.problems.size() ? 0 : 1;
}

static int databaseFileMain() {
  std::string error;
  std::vector<std::string> warnings;
  if (!importDb.empty()) {
    ::ejk::DeviceFingerprint device;
    ::ejk::TuningEntries entries;
    if (!::ejk::TuningDatabase::readFile(importDb, device, entries, error))
      return fail(error);
    ::ejk::TuningDatabase database(resolvedCacheDir(), device);
    if (!database.store(entries, error, warnings))
      return fail(error);
    printWarnings(warnings);
    llvm::outs() << "imported " << entries.size() << " entr"
                 << (entries.size() == 1 ? "y" : "ies") << " into "
                 << database.path() << "\n";
  }
  if (!exportDb.empty()) {
    ::ejk::DeviceFingerprint device;
    if (!readDevice(device, error))
      return fail(error);
    ::ejk::TuningDatabase database(resolvedCacheDir(), device);
    if (!database.exportTo(exportDb, error, warnings))
      return fail(error);
    printWarnings(warnings);
    llvm::outs() << "exported " << database.entries(warnings).size()
                 << " entries of " << database.path() << " to " << exportDb
                 << "\n";
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "ejk-tune: autotune the tunable ops of a file\n");
  if (target != "cpu" && target != "vulkan")
    return fail("unknown target '" + target + "' (expected cpu or vulkan)");
  if (space != "small" && space != "full")
    return fail("unknown --space '" + space + "' (expected small or full)");
  if (budget < 0)
    return fail("--budget must not be negative");
  if (!importResultsFile.empty())
    return importResultsMain();
  if (!importDb.empty() || !exportDb.empty())
    return databaseFileMain();
  if (inputFile.empty() && !recorded)
    return fail("nothing to tune: give an input file or --recorded");

  std::string error;
  ::ejk::AutotunePolicy policy;
  if (!::ejk::autotunePolicyFromEnv(::ejk::AutotunePolicy::Autotune, policy,
                                    error))
    return fail(error);
  ::ejk::DeviceFingerprint device;
  if (!readDevice(device, error))
    return fail(error);

  // The problems: the file's tunable ops and the recorded ones, once each.
  MLIRContext context;
  registerEjkDialects(context);
  std::vector<TuningProblem> problems;
  std::set<std::string> seen;
  if (!inputFile.empty()) {
    OwningOpRef<ModuleOp> module = parseEjkFile(context, inputFile);
    if (!module)
      return 1;
    bool ok = true;
    module->walk([&](TunableOpInterface op) {
      FailureOr<TuningProblem> problem = makeTuningProblem(op);
      if (failed(problem)) {
        ok = false;
        return;
      }
      if (seen.insert(problem->key).second)
        problems.push_back(std::move(*problem));
    });
    if (!ok)
      return 1;
  }
  if (recorded) {
    std::vector<std::string> warnings;
    std::string path = recordFilePath(resolvedCacheDir(), device);
    ::ejk::TuningDatabase database(resolvedCacheDir(), device);
    const ::ejk::TuningEntries &tuned = database.entries(warnings);
    for (RecordedProblem &problem : readRecordedProblems(path, warnings))
      if ((retune || !tuned.count(problem.key)) &&
          seen.insert(problem.key).second)
        problems.push_back({problem.key, problem.ir});
    printWarnings(warnings);
    llvm::outs() << "recorded problems to tune: " << problems.size() << " ("
                 << path << ")\n";
  }
  if (problems.empty()) {
    llvm::outs() << "no tunable ops to tune\n";
    return 0;
  }

  AutotuneOptions tune;
  tune.fullSpace = space == "full";
  tune.budgetSeconds = budget;
  tune.timedRuns = runs;
  tune.warmupRuns = warmup;
  tune.seed = seed;
  tune.cacheDir = resolvedCacheDir();
  tune.log = &llvm::outs();

  // Tuning for a device elsewhere: compile here, time there.
  if (!emitDir.empty()) {
    ::ejk::TuningPlan plan;
    if (failed(emitCandidates(problems, device, emitDir, tune, plan, error)))
      return fail(error);
    size_t count = 0;
    for (const auto &problem : plan.problems)
      count += problem.candidates.size();
    llvm::outs() << "wrote " << count << " candidates of "
                 << plan.problems.size() << " problem(s) to " << emitDir
                 << "\nnext: ejk-tune-runner " << emitDir
                 << " on the device, then ejk-tune --import-results " << emitDir
                 << "/results.json\n";
    return 0;
  }
  if (!fingerprintFile.empty() && !isDeviceOfThisMachine(device))
    return fail("the fingerprint is not of a device on this machine: tune "
                "another device with --emit-candidates DIR and "
                "ejk-tune-runner there");

  // Tune here, through the tiers.
  ConfigSelectionOptions selection;
  selection.policy = policy;
  selection.fingerprint = device;
  selection.cacheDir = resolvedCacheDir();
  selection.skipStoredConfigs = retune;
  selection.tuner = createLocalProblemTuner(tune);
  FailureOr<std::unique_ptr<ConfigSelector>> selector =
      buildConfigSelector(selection, error);
  if (failed(selector))
    return fail(error);
  FailureOr<TargetInfo> info = targetInfoFromFingerprint(device, error);
  if (failed(info))
    return fail(error);
  int status = 0;
  for (const TuningProblem &problem : problems) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(problem.ir, ParserConfig(&context));
    TunableOpInterface op;
    if (module)
      module->walk([&](TunableOpInterface found) { op = found; });
    if (!op) {
      status = fail("recorded problem '" + problem.key + "' does not parse");
      continue;
    }
    FailureOr<SelectedConfig> selected = (*selector)->select(op, *info);
    if (failed(selected)) {
      status = 1;
      continue;
    }
    bool tuned = selected->tier != "heuristic";
    if (policy == ::ejk::AutotunePolicy::Autotune && !tuned)
      status = 1;
    llvm::outs() << problem.key << "\n  " << selected->config << " from the "
                 << selected->tier << " tier\n";
    if (explain)
      op->emitRemark("config ")
          << selected->config << " from the " << selected->tier << " tier";
  }
  return status;
}
