//===- ejkc.cpp - compile an IR file to an artifact -----------------------===//
//
//   ejkc FILE.mlir [--target cpu|vulkan] [--fingerprint FILE] [-o DIR]
//   [--name NAME] [--emit=artifact|ir-after-tiling|llvm|spirv-asm] [--no-cache]
//   [--config-overlay FILE.json] [--ejk-explain-configs] [--record]
//   ejkc --cache-stats | --clear-cache
//
// Artifacts go through the artifact cache (ejk/Driver/ArtifactCache.h):
// ejkc prints whether the key hit and how long it took. --target vulkan
// compiles for the Vulkan device the runtime would run on (EJK_VULKAN_DEVICE
// selects), or with --fingerprint for the device a saved fingerprint file
// describes (`ejk-run --target vulkan --fingerprint-out FILE` on it).
//
//===----------------------------------------------------------------------===//

#include "ejk/Autotune/ToolOptions.h"
#include "ejk/Driver/ArtifactCache.h"
#include "ejk/Driver/Compiler.h"
#include "ejk/Driver/DeviceFingerprint.h"
#include "ejk/Driver/Tooling.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ejk;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"));
static cl::opt<std::string> outDir("o", cl::desc("Output directory"),
                                   cl::value_desc("dir"), cl::init("."));
static cl::opt<std::string>
    artifactName("name", cl::desc("Artifact name (default: the file's stem)"));
static cl::opt<std::string>
    emit("emit",
         cl::desc("What to produce: artifact (default), ir-after-tiling, "
                  "llvm, spirv-asm"),
         cl::init("artifact"));
static cl::opt<unsigned>
    vectorBits("vector-bits",
               cl::desc("SIMD width to compile for (default: the host's)"),
               cl::init(0));

static cl::opt<std::string> target("target",
                                   cl::desc("Target: cpu (default), vulkan"),
                                   cl::init("cpu"));
static cl::opt<std::string> fingerprintFile(
    "fingerprint",
    cl::desc("Compile for the device of this saved fingerprint file (default: "
             "this machine's device of the target)"),
    cl::value_desc("file"));
static cl::opt<bool> noCache("no-cache",
                             cl::desc("Compile without the artifact cache"));
static cl::opt<bool> cacheStats("cache-stats",
                                cl::desc("Print the artifact cache's totals"));
static cl::opt<bool> clearCache("clear-cache",
                                cl::desc("Remove every cached artifact"));

/// --cache-stats and --clear-cache.
static int manageCache() {
  std::vector<std::string> warnings;
  ArtifactCache cache = ArtifactCache::fromEnvironment(warnings);
  for (const std::string &warning : warnings)
    llvm::errs() << "ejkc: warning: " << warning << "\n";
  if (clearCache) {
    llvm::Expected<uint64_t> removed = cache.clear();
    if (!removed) {
      llvm::errs() << "ejkc: error: " << llvm::toString(removed.takeError())
                   << "\n";
      return 1;
    }
    llvm::outs() << "removed " << *removed << " cached artifacts from "
                 << cache.directory() << "\n";
  }
  if (cacheStats) {
    ArtifactCacheStats stats = cache.stats();
    llvm::outs() << "artifact cache: " << stats.directory << "\n"
                 << "entries: " << stats.entries << "\n"
                 << "size: " << stats.bytes << " bytes ("
                 << llvm::format("%.1f", stats.bytes / 1048576.0) << " MiB)\n"
                 << "limit: " << stats.maxBytes << " bytes ("
                 << llvm::format("%.1f", stats.maxBytes / 1048576.0)
                 << " MiB, EJK_CACHE_MAX_MB)\n"
                 << "compiler: " << compilerVersion() << "\n";
    if (stats.temporaries)
      llvm::outs() << "temporaries: " << stats.temporaries << "\n";
  }
  return 0;
}

static std::string describeTimings(const CompileTimings &timings) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tiling " << llvm::format("%.3f", timings.tiling) << ", lowering "
     << llvm::format("%.3f", timings.lowering) << ", codegen "
     << llvm::format("%.3f", timings.codegen) << ", link "
     << llvm::format("%.3f", timings.link);
  return text;
}

/// --emit=artifact through the cache, then a copy to -o DIR as NAME.
static int compileThroughCache(ModuleOp module, const CompileOptions &options,
                               StringRef name) {
  std::vector<std::string> warnings;
  ArtifactCache cache = ArtifactCache::fromEnvironment(warnings);
  FailureOr<CachedArtifact> artifact = compileCached(module, options, cache);
  if (succeeded(artifact))
    warnings.insert(warnings.end(), artifact->warnings.begin(),
                    artifact->warnings.end());
  for (const std::string &warning : warnings)
    llvm::errs() << "ejkc: warning: " << warning << "\n";
  if (failed(artifact))
    return 1;
  llvm::Expected<std::string> written =
      exportArtifact(artifact->manifestPath, outDir, name);
  if (!artifact->temporaryDirectory.empty())
    llvm::sys::fs::remove_directories(artifact->temporaryDirectory);
  if (!written) {
    llvm::errs() << "ejkc: error: " << llvm::toString(written.takeError())
                 << "\n";
    return 1;
  }
  double total =
      artifact->keySeconds + artifact->lookupSeconds + artifact->compileSeconds;
  llvm::errs() << "ejkc: cache " << (artifact->hit ? "hit" : "miss") << " "
               << artifact->key << " in " << llvm::format("%.3f", total)
               << " s (key " << llvm::format("%.3f", artifact->keySeconds)
               << ", lookup " << llvm::format("%.3f", artifact->lookupSeconds);
  if (artifact->waited && artifact->hit)
    llvm::errs() << ", after waiting for another process compiling it";
  if (!artifact->hit)
    llvm::errs() << ", compile "
                 << llvm::format("%.3f", artifact->compileSeconds) << ": "
                 << describeTimings(artifact->timings);
  llvm::errs() << ")\nejkc: wrote " << *written << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerConfigSelectionFlags();
  cl::ParseCommandLineOptions(argc, argv, "ejk compiler\n");
  if (cacheStats || clearCache)
    return manageCache();
  if (inputFile.empty()) {
    llvm::errs() << "ejkc: no input file (ejkc FILE.mlir ...)\n";
    return 1;
  }
  if (emit != "artifact" && emit != "ir-after-tiling" && emit != "llvm" &&
      emit != "spirv-asm") {
    llvm::errs() << "ejkc: unknown --emit=" << emit
                 << " (expected artifact, ir-after-tiling, llvm or "
                    "spirv-asm)\n";
    return 1;
  }
  if (target != "cpu" && target != "vulkan") {
    llvm::errs() << "ejkc: unknown --target=" << target
                 << " (expected cpu or vulkan)\n";
    return 1;
  }
  if ((emit == "spirv-asm" && target != "vulkan") ||
      (emit == "llvm" && target != "cpu")) {
    llvm::errs() << "ejkc: error: --emit=" << emit
                 << " needs --target=" << (emit == "llvm" ? "cpu" : "vulkan")
                 << "\n";
    return 1;
  }
  ::ejk::DeviceFingerprint device;
  std::string deviceError;
  if ((target == "vulkan" || !fingerprintFile.empty()) &&
      !fingerprintForTarget(target, fingerprintFile, device, deviceError)) {
    llvm::errs() << "ejkc: error: " << deviceError << "\n";
    return 1;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module = parseEjkFile(context, inputFile);
  if (!module)
    return 1;
  auto selectionDiagnostics = printSelectionDiagnostics(context);

  std::string name = artifactName.empty()
                         ? llvm::sys::path::stem(inputFile).str()
                         : artifactName.getValue();
  CompileOptions options;
  options.vectorBits = vectorBits;
  options.target = target;
  std::string selectionError;
  std::shared_ptr<ConfigSelectionOptions> selection =
      configSelectionForTool(selectionError);
  if (!selection) {
    llvm::errs() << "ejkc: error: " << selectionError << "\n";
    return 1;
  }
  if (target == "vulkan")
    options.device = device;
  if (!fingerprintFile.empty())
    selection->fingerprint = device;
  options.selection = selection;
  std::string tiledIR, llvmIR, spirvAsm;
  llvm::raw_string_ostream tiledStream(tiledIR), llvmStream(llvmIR),
      spirvStream(spirvAsm);
  if (emit == "ir-after-tiling") {
    options.dumpAfterTiling = &tiledStream;
    options.stopAfterTiling = true;
  }
  if (emit == "llvm")
    options.dumpLLVMIR = &llvmStream;
  if (emit == "spirv-asm") {
    options.dumpSpirv = &spirvStream;
    options.stopAfterLowering = true;
  }
  if (emit == "artifact" && !noCache)
    return compileThroughCache(*module, options, name);
  std::string manifest;
  CompileTimings timings;
  if (failed(
          compileArtifact(*module, options, outDir, name, manifest, &timings)))
    return 1;
  if (emit == "ir-after-tiling")
    llvm::outs() << tiledIR;
  else if (emit == "spirv-asm")
    llvm::outs() << spirvAsm;
  else if (emit == "llvm")
    llvm::outs() << llvmIR;
  else
    llvm::errs() << "ejkc: wrote " << manifest << " in "
                 << llvm::format("%.3f", timings.total()) << " s (no cache; "
                 << describeTimings(timings) << ")\n";
  return 0;
}
