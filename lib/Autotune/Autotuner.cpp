//===- Autotuner.cpp - compile, check and time config candidates ----------===//

#include "ejk/Autotune/Autotuner.h"

#include "ejk/Driver/Compiler.h"
#include "ejk/Driver/DeviceFingerprint.h"
#include "ejk/Driver/HostTensor.h"
#include "ejk/Driver/RandomInputs.h"
#include "ejk/Driver/ReferenceRunner.h"
#include "ejk/Driver/Tooling.h"
#include "ejk/Support/Npy.h"
#include "ejk/Support/PathText.h"
#include "ejk/Support/Stopwatch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <sstream>

using namespace mlir;
using namespace mlir::ejk;
using ::ejk::joinPath;
using ::ejk::Stopwatch;

FailureOr<TuningProblem> mlir::ejk::makeTuningProblem(TunableOpInterface op) {
  FailureOr<OwningOpRef<ModuleOp>> module = extractProblem(op, "problem");
  if (failed(module))
    return failure();
  TuningProblem problem;
  problem.key = op.getProblemKey();
  llvm::raw_string_ostream os(problem.ir);
  (*module)->print(os);
  return problem;
}

/// A host tensor as a .npy array: the same bytes, with numpy's name for the
/// element type (bf16 as its uint16 bits, i1 as bool).
static ::ejk::NpyArray toNpy(const HostTensor &tensor) {
  ::ejk::NpyArray array;
  array.dtype = tensor.dtype == "bf16" ? "u16"
                : tensor.dtype == "i1" ? "bool"
                                       : tensor.dtype;
  array.shape = tensor.shape;
  array.data = tensor.data;
  return array;
}

/// Diagnostics of a nested compile, as text for a message.
namespace {
class CollectDiagnostics {
public:
  explicit CollectDiagnostics(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error)
            text += (text.empty() ? "" : "; ") + diag.str();
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};
} // namespace

namespace {
/// An input file already in the candidate directory.
struct WrittenInput {
  std::string name;
  ::ejk::NpyArray array;
};
} // namespace

/// Compiles one problem's candidates into `problemDir`; its inputs refer to
/// an identical file in `written` (of an earlier problem) when there is one.
static LogicalResult
emitProblem(const TuningProblem &source, const ::ejk::DeviceFingerprint &device,
            const TargetInfo &target, StringRef dir, StringRef relativeDir,
            std::vector<WrittenInput> &written, const AutotuneOptions &options,
            const Stopwatch &clock, ::ejk::PlanProblem &problem,
            std::string &error) {
  MLIRContext context;
  CollectDiagnostics diagnostics(&context);
  registerEjkDialects(context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source.ir, ParserConfig(&context));
  auto fail = [&](const Twine &what) {
    error = ("problem '" + source.key + "': " + what).str();
    if (!diagnostics.text.empty())
      error += ": " + diagnostics.text;
    return failure();
  };
  if (!module)
    return fail("its IR does not parse");
  auto entry = module->lookupSymbol<func::FuncOp>("problem");
  TunableOpInterface op;
  if (entry)
    entry.walk([&](TunableOpInterface found) { op = found; });
  if (!op)
    return fail("no @problem function with a tunable op");
  problem.key = op.getProblemKey();
  problem.entry = "problem";

  // Candidates: the heuristic first, so that a short budget still measures
  // what the compile would have used without tuning.
  ConfigAttr heuristic = op.getHeuristicConfig(target);
  problem.heuristic = toConfigValues(heuristic);
  SmallVector<ConfigAttr> space = {heuristic};
  for (ConfigAttr config : op.getConfigSpace(target, options.fullSpace))
    if (config != heuristic)
      space.push_back(config);

  // Inputs and the reference's outputs on the actual shapes.
  std::mt19937_64 rng(options.seed);
  std::vector<HostTensor> inputs;
  // The inputs `ejk-run --random-inputs` draws: Mamba operands in the
  // ranges where the scans neither overflow nor vanish.
  for (BlockArgument arg : entry.getArguments())
    inputs.push_back(randomTensor(cast<RankedTensorType>(arg.getType()),
                                  inputDistributionFor(arg), rng));
  std::vector<HostTensor> expected;
  if (failed(runReference(entry, inputs, expected)))
    return fail("the reference evaluator failed");
  if (std::error_code ec =
          llvm::sys::fs::create_directories(joinPath(dir, relativeDir)))
    return fail("cannot create '" + joinPath(dir, relativeDir) +
                "': " + ec.message());
  for (auto [i, tensor] : llvm::enumerate(inputs)) {
    // Problems of the same shapes draw the same inputs: write them once.
    ::ejk::NpyArray array = toNpy(tensor);
    auto same = llvm::find_if(written, [&](const WrittenInput &input) {
      return input.array.dtype == array.dtype &&
             input.array.shape == array.shape && input.array.data == array.data;
    });
    if (same != written.end()) {
      problem.inputs.push_back(same->name);
      continue;
    }
    std::string name =
        joinPath(relativeDir, "input" + std::to_string(i) + ".npy");
    if (!::ejk::writeNpy(joinPath(dir, name), array, error))
      return failure();
    problem.inputs.push_back(name);
    written.push_back({name, std::move(array)});
  }
  for (auto [i, tensor] : llvm::enumerate(expected)) {
    // An f16/bf16 result is compared in its own precision: the reference
    // rounded once to it (at most half an ulp, a tenth of the f16 tolerance)
    // halves the directory that has to travel to the device.
    auto resultType =
        cast<RankedTensorType>(entry.getFunctionType().getResult(i));
    std::string dtype = dtypeOf(resultType.getElementType());
    if (tensor.dtype == "f32" && (dtype == "f16" || dtype == "bf16"))
      tensor = HostTensor::fromFloats(dtype, tensor.shape, tensor.toFloats());
    std::string name =
        joinPath(relativeDir, "expected" + std::to_string(i) + ".npy");
    if (!::ejk::writeNpy(joinPath(dir, name), toNpy(tensor), error))
      return failure();
    problem.expected.push_back(name);
  }

  // The candidates' compiles select nothing: the config is on the op.
  CompileOptions compile;
  compile.target = device.kind;
  if (device.kind == "vulkan")
    compile.device = device;
  else
    compile.vectorBits = target.vectorBits;
  compile.selection = std::make_shared<ConfigSelectionOptions>();
  for (auto [i, config] : llvm::enumerate(space)) {
    ::ejk::PlanCandidate candidate;
    candidate.config = toConfigValues(config);
    if (options.budgetSeconds > 0 && clock.seconds() > options.budgetSeconds) {
      candidate.compileError = "skipped: out of budget";
      problem.candidates.push_back(std::move(candidate));
      continue;
    }
    OwningOpRef<ModuleOp> copy = module->clone();
    // An init-capture: a lambda may not capture a structured binding (C++17).
    copy->walk([&, &selected = config](TunableOpInterface each) {
      each.setSelectedConfig(selected);
    });
    std::string candidateDir = joinPath(relativeDir, "c" + std::to_string(i));
    std::string manifest;
    diagnostics.text.clear();
    if (succeeded(compileArtifact(*copy, compile, joinPath(dir, candidateDir),
                                  "kernel", manifest)))
      candidate.manifest = joinPath(candidateDir, "kernel.json");
    else
      candidate.compileError = diagnostics.text.empty()
                                   ? std::string("compilation failed")
                                   : diagnostics.text;
    if (options.log)
      *options.log << "  compiled " << ::ejk::formatConfig(candidate.config)
                   << (candidate.manifest.empty() ? " (failed)" : "") << "\n";
    problem.candidates.push_back(std::move(candidate));
  }
  return success();
}

LogicalResult mlir::ejk::emitCandidates(ArrayRef<TuningProblem> problems,
                                        const ::ejk::DeviceFingerprint &device,
                                        StringRef dir,
                                        const AutotuneOptions &options,
                                        ::ejk::TuningPlan &plan,
                                        std::string &error) {
  Stopwatch clock;
  if (device.kind != "cpu" && device.kind != "vulkan") {
    error = "cannot emit candidates for a '" + device.kind +
            "' device (expected cpu or vulkan)";
    return failure();
  }
  // The CPU codegen targets this machine's CPU; code for another ISA could
  // fault on the device. SPIR-V is compiled for the fingerprint's facts.
  ::ejk::DeviceFingerprint host = ::ejk::hostCpuFingerprint();
  for (const char *field : {"isa", "vector_bits"})
    if (device.kind == "cpu" && device.get(field) != host.get(field)) {
      error = std::string("the fingerprint's '") + field + "' (" +
              device.get(field) + ") differs from this machine's (" +
              host.get(field) +
              "): CPU candidates can only be compiled for this machine's ISA";
      return failure();
    }
  FailureOr<TargetInfo> target = targetInfoFromFingerprint(device, error);
  if (failed(target))
    return failure();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create '" + dir.str() + "': " + ec.message();
    return failure();
  }
  plan.fingerprint = device;
  plan.problems.clear();
  std::vector<WrittenInput> written;
  for (auto [i, source] : llvm::enumerate(problems)) {
    if (options.log)
      *options.log << "compiling candidates of " << source.key << "\n";
    ::ejk::PlanProblem problem;
    if (failed(emitProblem(source, device, *target, dir,
                           "p" + std::to_string(i), written, options, clock,
                           problem, error)))
      return failure();
    plan.problems.push_back(std::move(problem));
  }
  return success(plan.write(dir.str(), error));
}

FailureOr<::ejk::TuningEntries>
mlir::ejk::importResults(const ::ejk::TuningResults &results,
                         const std::string &cacheDir, std::string &error,
                         std::vector<std::string> &warnings) {
  ::ejk::TuningEntries winners = ::ejk::winnersOf(results);
  if (winners.empty())
    return winners;
  ::ejk::TuningDatabase database(
      cacheDir.empty() ? ::ejk::defaultCacheDirectory() : cacheDir,
      results.fingerprint);
  if (!database.store(winners, error, warnings))
    return failure();
  return winners;
}

LogicalResult mlir::ejk::tuneOnThisMachine(
    ArrayRef<TuningProblem> problems, const ::ejk::DeviceFingerprint &device,
    const AutotuneOptions &options, ::ejk::TuningResults &results,
    std::string &error) {
  Stopwatch clock;
  // Compiling every candidate for a device that is not here would be wasted.
  if (!isDeviceOfThisMachine(device)) {
    error = "the " + device.kind + " device " + device.hash() +
            " is not on this machine (tune it with ejk-tune --emit-candidates "
            "and ejk-tune-runner there)";
    return failure();
  }
  SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("ejk-tune", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return failure();
  }
  // The artifacts are only needed until they are timed.
  struct RemoveDir {
    SmallString<128> &dir;
    ~RemoveDir() { llvm::sys::fs::remove_directories(dir); }
  } remove{dir};

  ::ejk::TuningPlan plan;
  if (failed(emitCandidates(problems, device, dir, options, plan, error)))
    return failure();
  ::ejk::RunnerOptions runner;
  runner.warmupRuns = options.warmupRuns;
  runner.timedRuns = options.timedRuns;
  if (options.budgetSeconds > 0)
    runner.budgetSeconds =
        std::max(0.001, options.budgetSeconds - clock.seconds());
  if (options.log)
    runner.progress = [&](const std::string &line) {
      *options.log << "  ran " << line << "\n";
    };
  if (!::ejk::runPlan(std::string(dir), plan, runner, results, error))
    return failure();
  // Times of another device must not land in this one's database.
  if (results.fingerprint.text() != device.text()) {
    error = "the " + device.kind + " device the runtime opened (fingerprint " +
            results.fingerprint.hash() +
            ") is not the one the candidates were compiled for (" +
            device.hash() + ")";
    return failure();
  }
  std::vector<std::string> warnings;
  FailureOr<::ejk::TuningEntries> stored =
      importResults(results, options.cacheDir, error, warnings);
  if (options.log) {
    for (const std::string &warning : warnings)
      *options.log << "warning: " << warning << "\n";
    std::ostringstream table;
    ::ejk::printResultsTable(results, table);
    *options.log << table.str()
                 << llvm::format("tuned %zu problem(s) in %.1f s\n",
                                 problems.size(), clock.seconds());
  }
  return success(succeeded(stored));
}

namespace {
/// Tunes on the device the selection compiles for, which must be on this
/// machine (the host CPU, or the Vulkan device the runtime opens).
class LocalProblemTuner : public ProblemTuner {
public:
  explicit LocalProblemTuner(AutotuneOptions options)
      : options(std::move(options)) {}

  std::optional<::ejk::ConfigValues>
  tune(TunableOpInterface op, const TargetInfo &,
       const ::ejk::DeviceFingerprint &device) override {
    FailureOr<TuningProblem> problem = makeTuningProblem(op);
    if (failed(problem))
      return std::nullopt;
    ::ejk::TuningResults results;
    std::string error;
    if (failed(
            tuneOnThisMachine({*problem}, device, options, results, error))) {
      op->emitWarning("autotuning failed, using the next tier: ") << error;
      return std::nullopt;
    }
    ::ejk::TuningEntries winners = ::ejk::winnersOf(results);
    auto it = winners.find(problem->key);
    if (it == winners.end()) {
      op->emitWarning("autotuning found no correct candidate, using the "
                      "next tier");
      return std::nullopt;
    }
    return it->second.config;
  }

private:
  AutotuneOptions options;
};
} // namespace

std::shared_ptr<ProblemTuner>
mlir::ejk::createLocalProblemTuner(AutotuneOptions options) {
  return std::make_shared<LocalProblemTuner>(std::move(options));
}
