//===- Runner.cpp - running an entry on the runtime -----------------------===//

#include "ejk/Tools/RunSteps/Runner.h"

#include "ejk/Reference/Moe.h"
#include "ejk/Reference/Paged.h"
#include "ejk/Reference/Pooling.h"
#include "ejk/Reference/RaggedPaged.h"

#include "ejk/Tools/RunSteps/NpyBridge.h"

#include "ejk/Support/FileIO.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace ejk;

/// Human form of a tensor type for messages: [1, 128, 8, 64] f32.
static std::string describe(const std::vector<int64_t> &shape,
                            const std::string &dtype) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "] " + dtype;
}

/// \p path with its directory resolved (realpath), so that `o.npy`,
/// `./o.npy` and `d/../o.npy` compare equal before the file exists.
static std::string resolvedPath(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string directory =
      slash == std::string::npos ? "." : path.substr(0, slash);
  if (directory.empty())
    directory = "/";
  char *resolved = realpath(directory.c_str(), nullptr);
  if (!resolved)
    return path;
  std::string result =
      std::string(resolved) + "/" +
      (slash == std::string::npos ? path : path.substr(slash + 1));
  std::free(resolved);
  return result;
}

/// Whether \p a and \p b name one file that a second write would replace:
/// the same path once resolved, or the same existing file (a hard link). A
/// character device (/dev/null) keeps nothing, so writing it twice loses
/// nothing.
static bool sameFile(const std::string &a, const std::string &b) {
  struct stat first, second;
  bool firstExists = stat(a.c_str(), &first) == 0;
  if (firstExists && S_ISCHR(first.st_mode))
    return false;
  if (a == b || resolvedPath(a) == resolvedPath(b))
    return true;
  return firstExists && stat(b.c_str(), &second) == 0 &&
         first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

static std::vector<int64_t> integersOf(const HostTensor &tensor) {
  std::vector<int64_t> values;
  for (float v : tensor.toFloats())
    values.push_back(static_cast<int64_t>(v));
  return values;
}

/// The operand name the op recorded for `spec`, or `fallback`.
static std::string nameOr(const TensorSpec &spec, const char *fallback) {
  return spec.random.name.empty() ? fallback : spec.random.name;
}

/// What is wrong with a page table (`spec`, `tensor`) given the inputs read
/// before it: the nearest earlier input of context lengths over as many
/// sequences says which entries are read (paged attention's operand order;
/// `earlierInputs` are described by the first entries of `specs`);
/// without one, every entry must be a page.
static std::string
validatePageTable(const TensorSpec &spec, const HostTensor &tensor,
                  const std::vector<TensorSpec> &specs,
                  const std::vector<HostTensor> &earlierInputs) {
  int64_t numPages = static_cast<int64_t>(spec.random.first);
  int64_t pageSize =
      std::max<int64_t>(1, static_cast<int64_t>(spec.random.second));
  int64_t sequences = spec.shape.empty() ? 0 : spec.shape[0];
  int64_t maxPages = spec.shape.size() < 2 ? 0 : spec.shape[1];
  std::vector<int64_t> table = integersOf(tensor);
  for (size_t j = earlierInputs.size(); j-- > 0;) {
    const TensorSpec &lens = specs[j];
    if ((lens.random.kind != InputDistribution::Kind::ContextLengths &&
         lens.random.kind != InputDistribution::Kind::RaggedContextLengths) ||
        lens.shape != std::vector<int64_t>{sequences})
      continue;
    return reference::checkPageTables(
        integersOf(earlierInputs[j]), table, maxPages, pageSize, numPages,
        nameOr(lens, "context_lens"), nameOr(spec, "block_tables"));
  }
  std::vector<int64_t> full(sequences, maxPages * pageSize);
  return reference::checkPageTables(full, table, maxPages, pageSize, numPages,
                                    "context_lens",
                                    nameOr(spec, "block_tables"));
}

/// What is wrong with a ragged batch of `slots` sequence slots of which
/// `live` are live, checked at the last of its index inputs: the nearest
/// earlier kv_lens, page table and start locations over as many slots
/// (the start locations may be the input being checked, `current`).
static std::string
checkRaggedBatch(int64_t slots, int64_t live, const std::string &countName,
                 const std::vector<TensorSpec> &specs,
                 const std::vector<HostTensor> &earlierInputs,
                 const TensorSpec *current = nullptr,
                 const HostTensor *currentTensor = nullptr) {
  using Kind = InputDistribution::Kind;
  const TensorSpec *lens = nullptr, *table = nullptr, *cu = current;
  size_t lensAt = 0, tableAt = 0, cuAt = 0;
  for (size_t j = earlierInputs.size(); j-- > 0;) {
    const TensorSpec &s = specs[j];
    if (!lens && s.random.kind == Kind::RaggedContextLengths &&
        s.shape == std::vector<int64_t>{slots}) {
      lens = &s;
      lensAt = j;
    } else if (!table && s.random.kind == Kind::PageTable &&
               s.shape.size() == 2 && s.shape[0] == slots) {
      table = &s;
      tableAt = j;
    } else if (!cu && s.random.kind == Kind::CumulativeLengths &&
               s.shape == std::vector<int64_t>{slots + 1}) {
      cu = &s;
      cuAt = j;
    }
  }
  if (!lens || !table || !cu)
    return "";
  reference::RaggedInputNames names;
  names.kvLens = nameOr(*lens, "kv_lens");
  names.pageIndices = nameOr(*table, "page_indices");
  names.cuQLens = nameOr(*cu, "cu_q_lens");
  names.numSeqs = countName;
  std::string why = reference::checkRaggedInputs(
      integersOf(earlierInputs[lensAt]), integersOf(earlierInputs[tableAt]),
      integersOf(currentTensor && cu == current ? *currentTensor
                                                : earlierInputs[cuAt]),
      live, static_cast<int64_t>(cu->random.first), table->shape[1],
      std::max<int64_t>(1, static_cast<int64_t>(table->random.second)),
      static_cast<int64_t>(table->random.first), names);
  return why.empty() ? "" : "invalid ragged batch: " + why;
}

/// What is wrong with a ragged batch, checked at its count of live
/// sequences (`spec`, `tensor`), the last of its index inputs.
static std::string
validateRaggedBatch(const TensorSpec &spec, const HostTensor &tensor,
                    const std::vector<TensorSpec> &specs,
                    const std::vector<HostTensor> &earlierInputs) {
  int64_t slots = static_cast<int64_t>(spec.random.first);
  std::vector<int64_t> count = integersOf(tensor);
  int64_t live = count.empty() ? 0 : count[0];
  std::string name = nameOr(spec, "num_seqs");
  if (live < 0 || live > slots)
    return "invalid sequence count: " + name + " is " + std::to_string(live) +
           ", outside [0, " + std::to_string(slots) + "] (the sequence slots)";
  return checkRaggedBatch(slots, live, name, specs, earlierInputs);
}

/// What is wrong with a ragged decode's bounds, checked at its ends (`spec`,
/// `tensor`): every end in [0, seq_len], and the starts of the nearest
/// earlier SequenceStarts input of its size in [0, end].
static std::string
validateSequenceBounds(const TensorSpec &spec, const HostTensor &tensor,
                       const std::vector<TensorSpec> &specs,
                       const std::vector<HostTensor> &earlierInputs) {
  std::vector<int64_t> starts;
  std::string startName = "sequence_start";
  for (size_t j = earlierInputs.size(); j-- > 0;)
    if (specs[j].random.kind == InputDistribution::Kind::SequenceStarts &&
        specs[j].shape == spec.shape) {
      starts = integersOf(earlierInputs[j]);
      startName = nameOr(specs[j], "sequence_start");
      break;
    }
  std::string why = reference::checkSequenceBounds(
      starts, integersOf(tensor), static_cast<int64_t>(spec.random.first),
      startName, nameOr(spec, "sequence_end"));
  return why.empty() ? "" : "invalid sequence bounds: " + why;
}

/// What is wrong with an integer input whose meaning its op recorded as the
/// distribution of its random values ("" when it is valid or has none).
/// Inputs that depend on others (page tables on lengths) see the inputs
/// read before them (`earlierInputs`, described by the first entries of
/// `specs`).
static std::string validateInput(const TensorSpec &spec,
                                 const HostTensor &tensor,
                                 const std::vector<TensorSpec> &specs,
                                 const std::vector<HostTensor> &earlierInputs) {
  using Kind = InputDistribution::Kind;
  int64_t bound = static_cast<int64_t>(spec.random.first);
  if (spec.random.kind == Kind::SequenceCount)
    return validateRaggedBatch(spec, tensor, specs, earlierInputs);
  if (spec.random.kind == Kind::SequenceEnds)
    return validateSequenceBounds(spec, tensor, specs, earlierInputs);
  if (spec.random.kind == Kind::ContextLengths ||
      spec.random.kind == Kind::RaggedContextLengths) {
    std::vector<int64_t> lengths = integersOf(tensor);
    for (size_t i = 0; i < lengths.size(); ++i)
      if (lengths[i] < 0 || lengths[i] > bound)
        return "invalid context lengths: entry " + std::to_string(i) + " is " +
               std::to_string(lengths[i]) + ", outside [0, " +
               std::to_string(bound) + "] (the tokens its page table holds)";
    return "";
  }
  if (spec.random.kind == Kind::PageTable) {
    std::string why = validatePageTable(spec, tensor, specs, earlierInputs);
    return why.empty() ? "" : "invalid page table: " + why;
  }
  if (spec.random.kind != Kind::GroupSizes &&
      spec.random.kind != Kind::CumulativeLengths)
    return "";
  std::vector<int64_t> values = integersOf(tensor);
  std::string name = nameOr(spec, "cu_seqlens");
  std::string why = spec.random.kind == Kind::GroupSizes
                        ? reference::checkGroupSizes(values, bound)
                        : reference::checkCuSeqlens(values, bound, name);
  if (why.empty()) {
    // Start locations of a ragged batch with no count of live sequences
    // after them (unified_attention): every slot is live, and the batch is
    // checked here, at its last index input.
    if (spec.random.kind != Kind::CumulativeLengths || spec.shape.size() != 1)
      return "";
    int64_t slots = spec.shape[0] - 1;
    for (size_t j = earlierInputs.size() + 1; j < specs.size(); ++j)
      if (specs[j].random.kind == Kind::SequenceCount)
        return "";
    return checkRaggedBatch(slots, slots, "num_seqs", specs, earlierInputs,
                            &spec, &tensor);
  }
  return (spec.random.kind == Kind::GroupSizes ? "invalid group sizes: "
                                               : "invalid " + name + ": ") +
         why;
}

bool ejk::prepareInputs(const EntrySignature &signature,
                        const RunRequest &request,
                        std::vector<HostTensor> &inputs, std::string &error) {
  const std::vector<std::string> &files = request.inputFiles;
  size_t numInputs = signature.inputs.size();
  if (!files.empty() && request.randomSeed >= 0) {
    error = "give either --input files or --random-inputs, not both";
    return false;
  }
  // --load-only stops before running: it needs no inputs.
  if (files.empty() && request.randomSeed < 0 && numInputs != 0 &&
      !request.loadOnly) {
    error = "no inputs: give --input for each of the " +
            std::to_string(numInputs) + " arguments, or --random-inputs SEED";
    return false;
  }
  if (!files.empty() && files.size() != numInputs) {
    error = "'" + request.entry + "' takes " + std::to_string(numInputs) +
            " arguments, got " + std::to_string(files.size()) +
            " --input files";
    return false;
  }
  std::mt19937_64 rng(request.randomSeed >= 0 ? request.randomSeed : 0);
  for (size_t i = 0; i < (request.loadOnly ? 0 : numInputs); ++i) {
    const TensorSpec &spec = signature.inputs[i];
    if (request.randomSeed >= 0) {
      inputs.push_back(randomTensor(spec.dtype, spec.shape, spec.random, rng));
      if (i + 1 == numInputs) {
        std::vector<InputDistribution> kinds;
        for (const TensorSpec &s : signature.inputs)
          kinds.push_back(s.random);
        fitDependentInputs(kinds, inputs);
      }
      continue;
    }
    HostTensor tensor;
    std::string why;
    if (!readNpyTensor(files[i], tensor, why)) {
      error = "argument " + std::to_string(i) + ": " + why;
      return false;
    }
    if (tensor.dtype != spec.dtype || tensor.shape != spec.shape) {
      error = "argument " + std::to_string(i) + " ('" + files[i] + "') is " +
              describe(tensor.shape, tensor.dtype) + ", expected " +
              describe(spec.shape, spec.dtype);
      return false;
    }
    if (request.validateInputs) {
      std::string invalid =
          validateInput(spec, tensor, signature.inputs, inputs);
      if (!invalid.empty()) {
        error = "argument " + std::to_string(i) + " ('" + files[i] +
                "'): " + invalid +
                " (the kernels guard against it, but the result is not the "
                "op's; pass --validate-inputs=false to run anyway)";
        return false;
      }
    }
    inputs.push_back(std::move(tensor));
  }
  // Two --output flags naming one file: the second result would replace
  // the first without a word. Compared by name and, for files that exist,
  // by device and inode, so that ./a.npy and a.npy are one file too.
  for (size_t i = 0; i < request.outputFiles.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (sameFile(request.outputFiles[i], request.outputFiles[j])) {
        error = "--output " + std::to_string(j) + " and --output " +
                std::to_string(i) + " name the same file '" +
                request.outputFiles[i] + "'";
        return false;
      }
  size_t numResults = signature.results.size();
  if (!request.outputFiles.empty() &&
      request.outputFiles.size() != numResults) {
    error = "'" + request.entry + "' has " + std::to_string(numResults) +
            " results, got " + std::to_string(request.outputFiles.size()) +
            " --output files";
    return false;
  }
  return true;
}

RuntimeSession::~RuntimeSession() {
  for (ejk_buffer *b : buffers)
    ejk_buffer_destroy(b);
  ejk_module_destroy(module);
  ejk_device_destroy(device);
}

/// The FLOPs and bytes of one run of `entry`, summed over its dispatches.
static void readWork(const std::string &manifestText, const std::string &entry,
                     RunResult &result) {
  nlohmann::json manifest = nlohmann::json::parse(manifestText, nullptr,
                                                  /*allow_exceptions=*/false);
  if (!manifest.is_object() || !manifest.contains("entries") ||
      !manifest["entries"].is_array())
    return;
  for (const nlohmann::json &item : manifest["entries"]) {
    if (!item.is_object() || !item.contains("name") || item["name"] != entry ||
        !item.contains("dispatches") || !item["dispatches"].is_array())
      continue;
    for (const nlohmann::json &dispatch : item["dispatches"]) {
      if (!dispatch.is_object())
        continue;
      if (dispatch.contains("flops") && dispatch["flops"].is_number_integer())
        result.flops += dispatch["flops"].get<int64_t>();
      if (dispatch.contains("bytes") && dispatch["bytes"].is_number_integer())
        result.bytes += dispatch["bytes"].get<int64_t>();
    }
  }
}

bool ejk::runLoaded(RuntimeSession &s, const std::string &manifestText,
                    const RunRequest &request,
                    const std::vector<HostTensor> &inputs,
                    const std::vector<TensorSpec> &results, RunResult &result,
                    std::string &error) {
  auto runtimeError = [&](const std::string &what) {
    error = what + ": " + ejk_last_error();
    return false;
  };
  std::vector<ejk_buffer *> in, out;
  for (const HostTensor &input : inputs) {
    ejk_buffer *buffer = nullptr;
    if (ejk_buffer_create(s.device, input.data.size(), &buffer) != EJK_OK)
      return runtimeError("cannot create an input buffer");
    s.buffers.push_back(buffer);
    in.push_back(buffer);
    if (ejk_buffer_upload(buffer, input.data.data(), input.data.size(), 0) !=
        EJK_OK)
      return runtimeError("cannot upload an input");
  }
  for (const TensorSpec &spec : results) {
    HostTensor output;
    output.dtype = spec.dtype;
    output.shape = spec.shape;
    output.data.resize(output.numElements() *
                       HostTensor::elementSize(output.dtype));
    ejk_buffer *buffer = nullptr;
    if (ejk_buffer_create(s.device, output.data.size(), &buffer) != EJK_OK)
      return runtimeError("cannot create an output buffer");
    s.buffers.push_back(buffer);
    out.push_back(buffer);
    result.outputs.push_back(std::move(output));
  }
  const char *entry = request.entry.c_str();
  auto invoke = [&] {
    return ejk_invoke(s.module, entry, in.data(), in.size(), out.data(),
                      out.size()) == EJK_OK;
  };
  if (!invoke())
    return runtimeError("running the entry failed");
  for (size_t i = 0; i < out.size(); ++i)
    if (ejk_buffer_download(out[i], result.outputs[i].data.data(),
                            result.outputs[i].data.size(), 0) != EJK_OK)
      return runtimeError("cannot download a result");
  if (request.benchRuns > 0) {
    for (int warm = 0; warm < 2; ++warm)
      if (!invoke())
        return runtimeError("running the entry failed");
    for (unsigned i = 0; i < request.benchRuns; ++i) {
      uint64_t ns = 0;
      if (!invoke() || ejk_last_invoke_time_ns(s.module, &ns) != EJK_OK)
        return runtimeError("running the entry failed");
      result.timesNs.push_back(ns);
    }
    readWork(manifestText, request.entry, result);
  }
  return true;
}

/// Checks one buffer of the loaded entry against what the run expects.
static bool checkArg(ejk_module *module, const std::string &entry,
                     bool isOutput, size_t index, const TensorSpec &spec,
                     std::string &error) {
  ejk_tensor_desc desc;
  if (ejk_module_entry_arg(module, entry.c_str(), isOutput ? 1 : 0, index,
                           &desc) != EJK_OK) {
    error = ejk_last_error();
    return false;
  }
  std::vector<int64_t> shape(desc.shape, desc.shape + desc.rank);
  std::string dtype = ejk_dtype_name(desc.dtype);
  // An unknown dtype or a dynamic extent in the expectation matches
  // anything: such a signature comes from the IR, not from a record.
  bool dtypeMatches = spec.dtype.empty() || dtype == spec.dtype;
  bool shapeMatches = shape.size() == spec.shape.size();
  for (size_t i = 0; shapeMatches && i < shape.size(); ++i)
    shapeMatches = spec.shape[i] < 0 || spec.shape[i] == shape[i];
  if (dtypeMatches && shapeMatches)
    return true;
  error = std::string("the artifact's entry '") + entry + "' " +
          (isOutput ? "result " : "argument ") + std::to_string(index) +
          " is " + describe(shape, dtype) + ", the run expects " +
          describe(spec.shape, spec.dtype);
  return false;
}

bool ejk::openArtifact(RuntimeSession &s, const std::string &deviceSpec,
                       const ArtifactSource &artifact, const std::string &entry,
                       const EntrySignature &signature, std::string &error) {
  if (ejk_device_create(deviceSpec.c_str(), &s.device) != EJK_OK) {
    error = "cannot create the " + deviceSpec + " device: " + ejk_last_error();
    return false;
  }
  ejk_status loaded;
  if (artifact.files.empty()) {
    loaded =
        ejk_module_load(s.device, artifact.manifestPath.c_str(), &s.module);
  } else {
    std::vector<ejk_file> files;
    for (const auto &[name, bytes] : artifact.files)
      files.push_back({name.c_str(), bytes.data(), bytes.size()});
    loaded = ejk_module_load_files(s.device, artifact.manifestText.data(),
                                   artifact.manifestText.size(), files.data(),
                                   files.size(), &s.module);
  }
  if (loaded != EJK_OK) {
    error = std::string("cannot load the artifact: ") + ejk_last_error();
    return false;
  }
  size_t numInputs = 0, numOutputs = 0;
  if (ejk_module_entry_signature(s.module, entry.c_str(), &numInputs,
                                 &numOutputs) != EJK_OK) {
    error = std::string("cannot load the artifact: ") + ejk_last_error();
    return false;
  }
  if (numInputs != signature.inputs.size() ||
      numOutputs != signature.results.size()) {
    error = "the artifact's entry '" + entry + "' takes " +
            std::to_string(numInputs) + " arguments and returns " +
            std::to_string(numOutputs) + " results, the run expects " +
            std::to_string(signature.inputs.size()) + " and " +
            std::to_string(signature.results.size());
    return false;
  }
  for (size_t i = 0; i < numInputs; ++i)
    if (!checkArg(s.module, entry, false, i, signature.inputs[i], error))
      return false;
  for (size_t i = 0; i < numOutputs; ++i)
    if (!checkArg(s.module, entry, true, i, signature.results[i], error))
      return false;
  return true;
}

bool ejk::runOnRuntime(const std::string &deviceSpec,
                       const ArtifactSource &artifact,
                       const RunRequest &request,
                       const std::vector<HostTensor> &inputs,
                       const EntrySignature &signature, RunResult &result,
                       std::string &error) {
  RuntimeSession s;
  if (!openArtifact(s, deviceSpec, artifact, request.entry, signature, error))
    return false;
  // Only --bench reads the manifest (for its FLOPs); an unreadable one
  // leaves them out.
  std::string manifestText = artifact.manifestText;
  if (request.benchRuns > 0 && artifact.files.empty()) {
    ReadOptions options;
    options.maxBytes = uint64_t(64) << 20;
    std::string unused;
    if (!readRegularFile(artifact.manifestPath, manifestText, unused, options))
      manifestText.clear();
  }
  return runLoaded(s, manifestText, request, inputs, signature.results, result,
                   error);
}

bool ejk::loadAndRelease(const std::string &deviceSpec,
                         const ArtifactSource &artifact,
                         const std::string &entry,
                         const EntrySignature &signature, std::string &error) {
  RuntimeSession s;
  return openArtifact(s, deviceSpec, artifact, entry, signature, error);
}

bool ejk::writeOutputs(const RunRequest &request, const RunResult &result,
                       std::string &error) {
  for (size_t i = 0; i < request.outputFiles.size(); ++i) {
    std::string why;
    if (!writeNpyTensor(request.outputFiles[i], result.outputs[i], why)) {
      error = "result " + std::to_string(i) + ": " + why;
      return false;
    }
  }
  return true;
}

std::string ejk::formatBench(const RunResult &result, unsigned runs) {
  std::vector<uint64_t> times = result.timesNs;
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2] * 1e-9;
  double min = times.front() * 1e-9;
  char line[256];
  int n = std::snprintf(line, sizeof(line),
                        "bench: %u runs, median %.3f ms, min %.3f ms", runs,
                        median * 1e3, min * 1e3);
  if (result.flops > 0)
    std::snprintf(line + n, sizeof(line) - n,
                  ", %.1f GFLOP/s (median), %.1f GFLOP/s (min)",
                  result.flops / median * 1e-9, result.flops / min * 1e-9);
  return std::string(line) + "\n";
}
