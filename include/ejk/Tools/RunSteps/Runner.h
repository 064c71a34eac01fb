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
};

/// Checks the flags against `signature` and reads or draws the inputs (none
/// with --load-only). Fails with ejk-run's message for the first problem.
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

/// Creates the runtime device `deviceSpec` ("cpu", "vulkan"), loads the
/// artifact whose manifest is `manifestPath` and runs it (runLoaded).
bool runOnRuntime(const std::string &deviceSpec,
                  const std::string &manifestPath, const RunRequest &request,
                  const std::vector<HostTensor> &inputs,
                  const std::vector<TensorSpec> &results, RunResult &result,
                  std::string &error);

/// Loads the artifact on the device and releases both: --load-only. Fails
/// with the runtime's message.
bool loadAndRelease(const std::string &deviceSpec,
                    const std::string &manifestPath, std::string &error);

/// Writes the outputs to the --output files, in result order.
bool writeOutputs(const RunRequest &request, const RunResult &result,
                  std::string &error);

/// The --bench line: median and min time and GFLOP/s of the timed runs.
std::string formatBench(const RunResult &result, unsigned runs);

} // namespace ejk

#endif // EJK_TOOLS_RUNSTEPS_RUNNER_H
