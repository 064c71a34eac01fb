//===- Runner.h - running an entry on the runtime ---------------*- C++ -*-===//
//
// Everything ejk-run does once it has an artifact: inputs from `--input`
// files or `--random-inputs`, checked against the entry's signature; a run
// on the runtime (plus `--bench` runs); the outputs. MLIR-free, so that the
// front (`ejk-run`, no compiler) and the compiling tool (`ejk-run-compile`)
// share it and answer alike, messages included.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TOOLS_RUNSTEPS_RUNNER_H
#define EJK_TOOLS_RUNSTEPS_RUNNER_H

#include "ejk/Runtime/ejk_runtime.h"
#include "ejk/Support/EntrySignature.h"
#include "ejk/Support/HostTensor.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ejk {

/// The flags that say what to run and with what.
struct RunRequest {
  std::string entry;
  std::vector<std::string> inputFiles, outputFiles;
  /// --random-inputs; negative when not given.
  int64_t randomSeed = -1;
  bool loadOnly = false;
  unsigned benchRuns = 0;
  /// Checks the integer inputs whose meaning the op families recorded
  /// (group sizes, cumulative sequence lengths) before running; off with
  /// --validate-inputs=false (the kernels still guard every access).
  bool validateInputs = true;
};

/// Checks the flags against `signature` and reads or draws the inputs (none
/// with --load-only). Fails with ejk-run's message for the first problem,
/// e.g. two --output flags naming one file (the second would silently
/// replace the first).
bool prepareInputs(const EntrySignature &signature, const RunRequest &request,
                   std::vector<HostTensor> &inputs, std::string &error);

/// Outputs and timings of runs on the runtime.
struct RunResult {
  std::vector<HostTensor> outputs;
  /// Kernel time of each timed run, in nanoseconds.
  std::vector<uint64_t> timesNs;
  /// FLOPs and bytes of one run, from the manifest.
  int64_t flops = 0, bytes = 0;
};

/// A device, a module loaded on it and the buffers of a run, released
/// together.
struct RuntimeSession {
  ejk_device *device = nullptr;
  ejk_module *module = nullptr;
  std::vector<ejk_buffer *> buffers;
  RuntimeSession() = default;
  RuntimeSession(const RuntimeSession &) = delete;
  RuntimeSession &operator=(const RuntimeSession &) = delete;
  ~RuntimeSession();
};

/// Runs `request.entry` of the module loaded in `session` once (plus 2
/// warm-up and `request.benchRuns` timed runs when that is > 0) and
/// downloads the outputs, whose types are `results`. `manifestText` gives
/// the FLOPs and bytes for --bench. Timed runs report the runtime's kernel
/// time (on Vulkan, the GPU's).
bool runLoaded(RuntimeSession &session, const std::string &manifestText,
               const RunRequest &request, const std::vector<HostTensor> &inputs,
               const std::vector<TensorSpec> &results, RunResult &result,
               std::string &error);

/// The artifact to load: a manifest on disk, or the verified bytes of a
/// cache entry (ejk/Store/Artifacts/CacheEntry.h), loaded as they are so that
/// what runs is exactly what was hashed.
struct ArtifactSource {
  std::string manifestPath;
  /// When `files` is not empty: the manifest's text and the files it names,
  /// by name, for ejk_module_load_files; `manifestPath` is then only named
  /// in messages.
  std::string manifestText;
  std::map<std::string, std::string> files;
};

/// Creates the runtime device `deviceSpec` ("cpu", "vulkan") in `session`,
/// loads the artifact on it and checks that its entry `entry` takes and
/// returns what `signature` says (dtype and shape of each buffer): an
/// artifact of another kernel is refused, not run.
bool openArtifact(RuntimeSession &session, const std::string &deviceSpec,
                  const ArtifactSource &artifact, const std::string &entry,
                  const EntrySignature &signature, std::string &error);

/// openArtifact, then runLoaded.
bool runOnRuntime(const std::string &deviceSpec, const ArtifactSource &artifact,
                  const RunRequest &request,
                  const std::vector<HostTensor> &inputs,
                  const EntrySignature &signature, RunResult &result,
                  std::string &error);

/// openArtifact and release: --load-only. Fails with the runtime's message.
bool loadAndRelease(const std::string &deviceSpec,
                    const ArtifactSource &artifact, const std::string &entry,
                    const EntrySignature &signature, std::string &error);

/// Writes the outputs to the --output files, in result order.
bool writeOutputs(const RunRequest &request, const RunResult &result,
                  std::string &error);

/// The --bench line: median and min time and GFLOP/s of the timed runs.
std::string formatBench(const RunResult &result, unsigned runs);

} // namespace ejk

#endif // EJK_TOOLS_RUNSTEPS_RUNNER_H
