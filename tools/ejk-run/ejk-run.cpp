//===- ejk-run.cpp - run an entry point, compiling only on a miss ---------===//
//
// The `ejk-run` users call: a front that links no MLIR or LLVM, so that a
// run whose artifact is cached does not pay for loading the compiler (about
// 30 ms of dynamic linking, more than the whole rest of a warm run).
//
// It accepts the flags of ejk-run-compile that do not need the compiler:
//
//   ejk-run FILE.mlir --entry NAME [--target cpu|vulkan] [--input X.npy ...]
//           [--random-inputs SEED] [--output Y.npy ...] [--bench N]
//           [--vector-bits N] [--config-overlay FILE.json] [--load-only]
//           [--verbose]
//
// computes the source-level key of the run (ejk/Store/Artifacts/SourceIndex.h)
// and, when the source index names a cache entry that verifies, runs it with
// the same steps as the compiling tool (Runner.h). On a miss, or with any other
// flag (--check, --artifact-dir, --print-fingerprint, --help, ...), or
// anything doubtful, it execs `ejk-run-compile` from its own directory with
// the same arguments, adding --ejk-record-source-index when the key could
// be computed so that the next run hits.
//
//===----------------------------------------------------------------------===//

#include "ejk/Tools/RunSteps/Runner.h"

#include "ejk/Store/Artifacts/CacheEntry.h"
#include "ejk/Store/Artifacts/SourceIndex.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace ejk;

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The flags the front handles; anything else goes to the compiling tool.
struct FrontOptions {
  std::string inputFile, target = "cpu", overlay;
  RunRequest request;
  unsigned vectorBits = 0;
  bool verbose = false;
};

/// A decimal number as llvm::cl would read it; other spellings (signs, 0x,
/// leading zeros that cl reads as octal) are left to the compiling tool.
bool parseDecimal(const std::string &text, uint64_t max, uint64_t &value) {
  if (text.empty() || text.size() > 19 ||
      text.find_first_not_of("0123456789") != std::string::npos ||
      (text.size() > 1 && text[0] == '0'))
    return false;
  value = std::strtoull(text.c_str(), nullptr, 10);
  return value <= max;
}

bool parseBool(const std::string &text, bool &value) {
  if (text == "true" || text == "TRUE" || text == "True" || text == "1") {
    value = true;
    return true;
  }
  if (text == "false" || text == "FALSE" || text == "False" || text == "0") {
    value = false;
    return true;
  }
  return false;
}

/// Parses argv the way ejk-run-compile's llvm::cl would for the flags the
/// front knows (`-flag`, `--flag`, `--flag=value`, `--flag value`). False
/// when anything else is there: the compiling tool then decides.
bool parseArguments(int argc, char **argv, FrontOptions &options) {
  bool seenEntry = false, seenTarget = false, seenSeed = false,
       seenBench = false, seenBits = false, seenOverlay = false,
       seenLoadOnly = false, seenVerbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.empty() || arg == "-" || arg == "--")
      return false;
    if (arg[0] != '-') {
      if (!options.inputFile.empty())
        return false;
      options.inputFile = arg;
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1), value;
    size_t equals = name.find('=');
    bool hasValue = equals != std::string::npos;
    if (hasValue) {
      value = name.substr(equals + 1);
      name.resize(equals);
    }
    auto once = [](bool &seen) { return !std::exchange(seen, true); };
    if (name == "load-only" || name == "verbose") {
      bool flag = true;
      if ((hasValue && !parseBool(value, flag)) ||
          !once(name == "verbose" ? seenVerbose : seenLoadOnly))
        return false;
      (name == "verbose" ? options.verbose : options.request.loadOnly) = flag;
      continue;
    }
    if (name != "entry" && name != "target" && name != "input" &&
        name != "output" && name != "random-inputs" && name != "bench" &&
        name != "vector-bits" && name != "config-overlay")
      return false;
    if (!hasValue) {
      if (i + 1 >= argc)
        return false;
      value = argv[++i];
    }
    uint64_t number = 0;
    if (name == "entry") {
      if (!once(seenEntry))
        return false;
      options.request.entry = value;
    } else if (name == "target") {
      if (!once(seenTarget) || (value != "cpu" && value != "vulkan"))
        return false;
      options.target = value;
    } else if (name == "input") {
      options.request.inputFiles.push_back(value);
    } else if (name == "output") {
      options.request.outputFiles.push_back(value);
    } else if (name == "random-inputs") {
      if (!once(seenSeed) || !parseDecimal(value, INT64_MAX, number))
        return false;
      options.request.randomSeed = int64_t(number);
    } else if (name == "bench") {
      if (!once(seenBench) || !parseDecimal(value, UINT32_MAX, number))
        return false;
      options.request.benchRuns = unsigned(number);
    } else if (name == "vector-bits") {
      if (!once(seenBits) || !parseDecimal(value, UINT32_MAX, number))
        return false;
      options.vectorBits = unsigned(number);
    } else {
      if (!once(seenOverlay))
        return false;
      options.overlay = value;
    }
  }
  return !options.inputFile.empty() && !options.request.entry.empty();
}

/// Replaces this process with ejk-run-compile, next to this executable,
/// given the same arguments (plus --ejk-record-source-index when
/// \p record). Returns only on failure.
int execCompilingTool(int argc, char **argv, bool record) {
  std::string self(4096, '\0');
  ssize_t n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n <= 0) {
    std::fprintf(stderr, "ejk-run: error: cannot find its own executable: %s\n",
                 std::strerror(errno));
    return 1;
  }
  self.resize(size_t(n));
  std::string tool = self.substr(0, self.rfind('/') + 1) + "ejk-run-compile";
  std::vector<char *> args = {tool.data()};
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  std::string flag = "--ejk-record-source-index";
  if (record)
    args.push_back(flag.data());
  args.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  execv(tool.c_str(), args.data());
  std::fprintf(stderr, "ejk-run: error: cannot run '%s': %s\n", tool.c_str(),
               std::strerror(errno));
  return 1;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "ejk-run: error: %s\n", message.c_str());
  return 1;
}

/// EJK_LOG_AUTOTUNE asks for remarks that only a compile prints.
bool wantsCompilerLog() {
  const char *value = std::getenv("EJK_LOG_AUTOTUNE");
  std::string text = value ? value : "";
  return !text.empty() && text != "0" && text != "false";
}

} // namespace

int main(int argc, char **argv) {
  Clock::time_point processStart = Clock::now();
  FrontOptions options;
  if (!parseArguments(argc, argv, options) || wantsCompilerLog())
    return execCompilingTool(argc, argv, /*record=*/false);

  // The cache as the compiling tool would find it; any warning about it is
  // the compiling tool's to print.
  std::string root;
  uint64_t maxBytes = 0;
  std::vector<std::string> warnings;
  artifactCacheFromEnvironment(root, maxBytes, warnings);
  if (root.empty() || maxBytes == 0 || !warnings.empty())
    return execCompilingTool(argc, argv, /*record=*/false);
  std::string artifactsDir = root + "/artifacts";

  Clock::time_point start = Clock::now();
  DeviceFingerprint device;
  std::string error;
  if (!runtimeDeviceFingerprint(options.target, device, error))
    return execCompilingTool(argc, argv, /*record=*/false);
  SourceKeyRequest keyRequest;
  keyRequest.inputPath = options.inputFile;
  keyRequest.entry = options.request.entry;
  keyRequest.target = options.target;
  keyRequest.vectorBits = options.vectorBits;
  keyRequest.overlayPath = options.overlay;
  std::string sourceKey;
  if (!computeSourceKey(keyRequest, device, sourceKey, error))
    return execCompilingTool(argc, argv, /*record=*/false);
  double keySeconds = secondsSince(start);

  start = Clock::now();
  SourceIndexRecord record;
  std::string why;
  std::optional<std::string> entry;
  VerifiedEntry verified;
  if (readSourceIndex(artifactsDir, sourceKey, record, why) &&
      record.entry == options.request.entry &&
      record.artifact.target == options.target &&
      record.artifact.fingerprint == device.hash() &&
      record.artifact.compilerVersion == artifactCompilerVersion())
    entry = verifyCacheEntry(artifactsDir, record.artifact, &why, &verified);
  double lookupSeconds = secondsSince(start);
  if (!entry) {
    if (options.verbose)
      std::fprintf(stderr, "ejk-run: source index miss %s%s%s\n",
                   sourceKey.c_str(), why.empty() ? "" : ": ", why.c_str());
    return execCompilingTool(argc, argv, /*record=*/true);
  }
  const RunRequest &request = options.request;
  std::vector<HostTensor> inputs;
  if (!prepareInputs(record.signature, request, inputs, error))
    return fail(error);
  // The bytes that were verified, not the files again (ejk/Driver/
  // CacheEntry.h), and an entry that must take and return what the record
  // says: a record that names another kernel is a miss, never a run of
  // the wrong code.
  ArtifactSource artifact;
  artifact.manifestPath =
      *entry + "/" + std::string(kCacheArtifactName) + ".json";
  artifact.manifestText = verified.manifest();
  artifact.files = std::move(verified.files);
  RuntimeSession session;
  if (!openArtifact(session, options.target, artifact, request.entry,
                    record.signature, error)) {
    if (options.verbose)
      std::fprintf(stderr, "ejk-run: source index entry %s not used: %s\n",
                   sourceKey.c_str(), error.c_str());
    return execCompilingTool(argc, argv, /*record=*/true);
  }
  if (options.verbose)
    std::fprintf(stderr,
                 "ejk-run: cache hit %s in %.4f s (key %.4f, lookup %.4f, "
                 "compile 0.0000) through the source index\n",
                 record.artifact.hash.c_str(), keySeconds + lookupSeconds,
                 keySeconds, lookupSeconds);
  if (request.loadOnly) {
    if (options.verbose)
      std::fprintf(stderr, "ejk-run: ready in %.4f s since process start\n",
                   secondsSince(processStart));
    return 0;
  }
  RunResult run;
  if (!runLoaded(session, artifact.manifestText, request, inputs,
                 record.signature.results, run, error) ||
      !writeOutputs(request, run, error))
    return fail(error);
  if (request.benchRuns > 0)
    std::fputs(formatBench(run, request.benchRuns).c_str(), stdout);
  return 0;
}
