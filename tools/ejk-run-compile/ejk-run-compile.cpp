//===- ejk-run-compile.cpp - compile, run and check an entry point --------===//
//
//   ejk-run FILE.mlir --entry NAME [--target cpu|vulkan] [--input X.npy ...]
//           [--random-inputs SEED] [--output Y.npy ...] [--check]
//           [--bench N] [--artifact-dir DIR] [--no-cache] [--load-only]
//           [--verbose] [--config-overlay FILE.json]
//           [--ejk-explain-configs] [--record]
//   ejk-run [--target cpu|vulkan] --print-fingerprint | --fingerprint-out FILE
//
// --target vulkan compiles for and runs on the Vulkan device the runtime
// picks (EJK_VULKAN_DEVICE selects one); the reference still runs on the
// host. An entry that is already tiled (`ejk.entry` over memrefs, with
// hand-written dispatches) runs as is; it has no reference, so --check
// refuses it.
//
// Inputs bind to the entry's arguments in order and outputs are written in
// order. --check compares with the reference evaluator; --bench times N runs
// after two warm-up runs. The artifact comes from the artifact cache
// (ejk/Driver/ArtifactCache.h), so the second run of a file does not
// compile; --verbose prints hit or miss and the time to a loaded module.
//
// This is the compiling half of `ejk-run`: the `ejk-run` users call is an
// MLIR-free front (tools/ejk-run/ejk-run.cpp) that finds the artifact of a
// file it has run before through the source index and runs it without the
// compiler, and otherwise execs this tool with --ejk-record-source-index,
// which records the artifact for the front's next run.
//
//===----------------------------------------------------------------------===//

#include "Checks.h"
#include "Signatures.h"
#include "ejk/Tools/RunSteps/Runner.h"

#include "ejk/Autotune/ToolOptions.h"
#include "ejk/Driver/ArtifactCache.h"
#include "ejk/Driver/Compiler.h"
#include "ejk/Driver/DeviceFingerprint.h"
#include "ejk/Driver/HostTensor.h"
#include "ejk/Driver/ReferenceRunner.h"
#include "ejk/Driver/Tooling.h"
#include "ejk/Runtime/ejk_runtime.h"
#include "ejk/Store/Artifacts/SourceIndex.h"
#include "ejk/Support/FileIO.h"
#include "ejk/Support/Fingerprint.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::ejk;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"));
static cl::opt<std::string> entryName("entry", cl::desc("Entry function"));
static cl::opt<bool>
    printFingerprint("print-fingerprint",
                     cl::desc("Print the fingerprint of this machine's "
                              "device of --target"));
static cl::opt<std::string> fingerprintOut(
    "fingerprint-out",
    cl::desc("Write this machine's fingerprint to FILE (for ejk-tune "
             "--fingerprint elsewhere)"),
    cl::value_desc("file"));
static cl::opt<std::string>
    target("target",
           cl::desc("Device to compile for and run on: cpu "
                    "(default) or vulkan"),
           cl::init("cpu"));
static cl::list<std::string> inputs("input",
                                    cl::desc("Input .npy, one per argument"));
static cl::opt<int64_t>
    randomSeed("random-inputs",
               cl::desc("Generate inputs from this seed instead of --input"),
               cl::init(-1));
static cl::list<std::string> outputs("output",
                                     cl::desc("Output .npy, one per result"));
static cl::opt<bool> validateInputs(
    "validate-inputs",
    cl::desc("Check group sizes and cu_seqlens read with --input before "
             "running (default on)"),
    cl::init(true));
static cl::opt<bool> check("check",
                           cl::desc("Compare with the reference evaluator"));
static cl::opt<unsigned>
    benchRuns("bench", cl::desc("Time N runs after warm-up"), cl::init(0));
static cl::opt<unsigned>
    vectorBits("vector-bits",
               cl::desc("Compile for this SIMD width (e.g. 256 to run the "
                        "AVX2 code on an AVX-512 host; default: the host's)"),
               cl::init(0));
static cl::opt<std::string>
    artifactDir("artifact-dir",
                cl::desc("Compile into this directory, bypassing the cache "
                         "(default: the artifact cache)"));
static cl::opt<bool> noCache("no-cache",
                             cl::desc("Compile into a temporary directory, "
                                      "bypassing the artifact cache"));
static cl::opt<bool>
    loadOnly("load-only",
             cl::desc("Stop once the compiled module is loaded (for timing "
                      "process start to a ready kernel)"));
static cl::opt<bool>
    verbose("verbose",
            cl::desc("Print cache hit or miss and timings to stderr"));

static cl::opt<bool> recordSourceIndex(
    "ejk-record-source-index", cl::Hidden,
    cl::desc("Record the artifact in the source index for ejk-run's front "
             "(the front passes it when it execs this tool)"));

using Clock = std::chrono::steady_clock;
static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

static int fail(const Twine &message) {
  llvm::errs() << "ejk-run: error: " << message << "\n";
  return 1;
}

/// The source-level key of this run (ejk/Store/Artifacts/SourceIndex.h), or ""
/// when it cannot be computed.
static std::string sourceKey(const ::ejk::DeviceFingerprint &device) {
  ::ejk::SourceKeyRequest request;
  request.inputPath = inputFile;
  request.entry = entryName;
  request.target = target;
  request.vectorBits = vectorBits;
  request.overlayPath = configOverlayPath();
  std::string key, unused;
  if (!::ejk::computeSourceKey(request, device, key, unused))
    return "";
  return key;
}

/// Records the artifact `artifactKey` of this run in the source index, when
/// the sources (file, overlay, tuning database) are still those whose key
/// `keyBefore` is: a file edited while this compiled must not name the
/// artifact of its old contents.
static void recordInSourceIndex(const std::string &keyBefore,
                                const ::ejk::DeviceFingerprint &device,
                                const std::string &artifactsDir,
                                const std::string &artifactKey,
                                const ::ejk::EntrySignature &signature) {
  if (keyBefore.empty() || sourceKey(device) != keyBefore)
    return;
  auto runnable = [](const ::ejk::TensorSpec &spec) {
    return !spec.dtype.empty() &&
           llvm::all_of(spec.shape, [](int64_t d) { return d >= 0; });
  };
  if (!llvm::all_of(signature.inputs, runnable) ||
      !llvm::all_of(signature.results, runnable))
    return;
  ::ejk::SourceIndexRecord record;
  record.sourceKey = keyBefore;
  record.artifact.hash = artifactKey;
  record.artifact.target = target;
  record.artifact.fingerprint = device.hash();
  record.artifact.compilerVersion = ::ejk::artifactCompilerVersion();
  record.entry = entryName;
  record.signature = signature;
  if (std::string error; !::ejk::writeSourceIndex(artifactsDir, record, error))
    llvm::errs() << "ejk-run: warning: source index not written: " << error
                 << "\n";
}

int main(int argc, char **argv) {
  Clock::time_point processStart = Clock::now();
  llvm::InitLLVM init(argc, argv);
  registerConfigSelectionFlags();
  // Users call `ejk-run`, whose front execs this tool: llvm::cl's messages
  // ("ejk-run: for the --bench option: ...") must name that program.
  std::vector<char *> args(argv, argv + argc);
  std::string programName = "ejk-run";
  args[0] = programName.data();
  cl::ParseCommandLineOptions(argc, args.data(),
                              "ejk-run: compile, run and check an entry\n");
  if (target != "cpu" && target != "vulkan")
    return fail("unknown --target '" + target + "' (expected cpu or vulkan)");
  if (printFingerprint || !fingerprintOut.empty()) {
    ::ejk::DeviceFingerprint device = ::ejk::hostCpuFingerprint();
    std::string error;
    if (target == "vulkan" && !vulkanDeviceFingerprint(device, error))
      return fail(error);
    if (printFingerprint)
      llvm::outs() << "# hash " << device.hash() << "\n" << device.text();
    if (!fingerprintOut.empty() &&
        !::ejk::writeFileReplacing(fingerprintOut, device.text(), error))
      return fail(error);
    return 0;
  }
  if (inputFile.empty() || entryName.empty())
    return fail("give an input file and --entry NAME");
  ::ejk::DeviceFingerprint device;
  if (std::string error;
      target == "vulkan" && !vulkanDeviceFingerprint(device, error))
    return fail(error);
  // The key of the sources as they are before parsing them.
  bool recording = recordSourceIndex && artifactDir.empty() && !noCache;
  std::string keyBefore;
  if (recording)
    keyBefore =
        sourceKey(target == "vulkan" ? device : ::ejk::hostCpuFingerprint());

  MLIRContext context;
  OwningOpRef<ModuleOp> module = parseEjkFile(context, inputFile);
  if (!module)
    return 1;
  auto selectionDiagnostics = printSelectionDiagnostics(context);
  // The reference evaluates the IR as written; compilation rewrites it.
  OwningOpRef<ModuleOp> original = module->clone();
  auto entry = original->lookupSymbol<func::FuncOp>(entryName);
  if (!entry || entry.isExternal())
    return fail("no function '" + entryName + "' in " + inputFile);
  ::ejk::EntrySignature signature;
  if (std::string error; !entrySignature(entry, signature, error))
    return fail(error);
  if (check && entry->hasAttr("ejk.entry"))
    return fail("--check needs the reference, which evaluates ejk ops; '" +
                entryName + "' is already tiled");

  ::ejk::RunRequest request;
  request.entry = entryName;
  request.inputFiles = inputs;
  request.outputFiles = outputs;
  request.randomSeed = randomSeed;
  request.loadOnly = loadOnly;
  request.validateInputs = validateInputs;
  request.benchRuns = benchRuns;
  std::vector<HostTensor> hostInputs;
  if (std::string error;
      !::ejk::prepareInputs(signature, request, hostInputs, error))
    return fail(error);

  // Compile, through the cache unless told otherwise.
  SmallString<128> dir(artifactDir);
  CompileOptions compileOptions;
  std::string selectionError;
  compileOptions.selection = configSelectionForTool(selectionError);
  if (!compileOptions.selection)
    return fail(selectionError);
  compileOptions.vectorBits = vectorBits;
  compileOptions.target = target;
  if (target == "vulkan")
    compileOptions.device = device;
  std::string temporaryDir, manifestPath;
  ::ejk::ArtifactSource artifactSource;
  if (!artifactDir.empty() || noCache) {
    if (dir.empty()) {
      if (llvm::sys::fs::createUniqueDirectory("ejk-run", dir))
        return fail("cannot create a temporary directory");
      temporaryDir = std::string(dir);
    }
    Clock::time_point start = Clock::now();
    CompileTimings timings;
    if (failed(compileArtifact(*module, compileOptions, dir, "kernel",
                               manifestPath, &timings)))
      return 1;
    if (verbose)
      llvm::errs() << "ejk-run: compiled without the cache in "
                   << llvm::format("%.3f", secondsSince(start)) << " s\n";
  } else {
    std::vector<std::string> warnings;
    ArtifactCache cache = ArtifactCache::fromEnvironment(warnings);
    FailureOr<CachedArtifact> artifact =
        compileCached(*module, compileOptions, cache);
    if (succeeded(artifact))
      warnings.insert(warnings.end(), artifact->warnings.begin(),
                      artifact->warnings.end());
    for (const std::string &warning : warnings)
      llvm::errs() << "ejk-run: warning: " << warning << "\n";
    if (failed(artifact))
      return 1;
    manifestPath = artifact->manifestPath;
    temporaryDir = artifact->temporaryDirectory;
    // A cache entry runs from the bytes that were verified.
    if (!artifact->verified.files.empty()) {
      artifactSource.manifestText = artifact->verified.manifest();
      artifactSource.files = std::move(artifact->verified.files);
    }
    if (recording && temporaryDir.empty() && warnings.empty())
      recordInSourceIndex(
          keyBefore, target == "vulkan" ? device : ::ejk::hostCpuFingerprint(),
          cache.directory(), artifact->key, signature);
    if (verbose)
      llvm::errs() << "ejk-run: cache " << (artifact->hit ? "hit" : "miss")
                   << " " << artifact->key << " in "
                   << llvm::format("%.4f", artifact->keySeconds +
                                               artifact->lookupSeconds +
                                               artifact->compileSeconds)
                   << " s (key " << llvm::format("%.4f", artifact->keySeconds)
                   << ", lookup "
                   << llvm::format("%.4f", artifact->lookupSeconds)
                   << ", compile "
                   << llvm::format("%.4f", artifact->compileSeconds) << ")\n";
  }
  auto removeTemporary = [&] {
    if (!temporaryDir.empty())
      llvm::sys::fs::remove_directories(temporaryDir);
  };

  artifactSource.manifestPath = manifestPath;
  if (loadOnly) {
    std::string error;
    bool ok = ::ejk::loadAndRelease(target, artifactSource, entryName,
                                    signature, error);
    removeTemporary();
    if (!ok)
      return fail(error);
    if (verbose)
      llvm::errs() << "ejk-run: ready in "
                   << llvm::format("%.4f", secondsSince(processStart))
                   << " s since process start\n";
    return 0;
  }

  // Run.
  ::ejk::RunResult run;
  std::string error;
  bool ok = ::ejk::runOnRuntime(target, artifactSource, request, hostInputs,
                                signature, run, error);
  removeTemporary();
  if (!ok || !::ejk::writeOutputs(request, run, error))
    return fail(error);

  int status = 0;
  if (check) {
    std::vector<HostTensor> expected;
    if (failed(runReference(entry, hostInputs, expected)))
      return 1;
    for (auto [i, pair] : llvm::enumerate(llvm::zip(run.outputs, expected))) {
      auto &[actual, reference] = pair;
      ComparisonResult cmp = compareWithReference(actual, reference);
      llvm::outs() << "result " << i << " (" << actual.dtype << "): max abs "
                   << "error " << llvm::format("%.3e", cmp.maxAbsError)
                   << ", max rel error "
                   << llvm::format("%.3e", cmp.maxRelError)
                   << " (tolerance abs "
                   << llvm::format("%.0e", cmp.tolerance.absolute) << " + rel "
                   << llvm::format("%.0e", cmp.tolerance.relative)
                   << "): " << (cmp.passed ? "ok" : "FAILED") << "\n";
      if (!cmp.passed) {
        llvm::outs() << "  first mismatch at element " << cmp.firstBadIndex
                     << ": got " << cmp.firstBadActual << ", expected "
                     << cmp.firstBadExpected << "\n";
        status = 1;
      }
    }
  }
  if (benchRuns > 0)
    llvm::outs() << ::ejk::formatBench(run, benchRuns);
  return status;
}
