//===- CandidateRunner.cpp - time compiled candidates on a device ---------===//

#include "ejk/Autotune/Runner/CandidateRunner.h"
#include "ejk/Support/FileIO.h"

#include "ejk/Store/Tuning/JsonUtil.h"

#include "ejk/Runtime/Runtime.hpp"
#include "ejk/Support/Float16.h"
#include "ejk/Support/Npy.h"
#include "ejk/Support/Stopwatch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <sstream>

using namespace ejk;
using namespace ejk::jsonutil;

static constexpr const char *kPlanFormat = "ejk-tuning-plan";
static constexpr const char *kResultsFormat = "ejk-tuning-results";

static bool readText(const std::string &path, std::string &text) {
  std::string error;
  return readRegularFile(path, text, error);
}

//===----------------------------------------------------------------------===//
// plan.json
//===----------------------------------------------------------------------===//

bool TuningPlan::write(const std::string &dir, std::string &error) const {
  json root = {{"format", kPlanFormat},
               {"version", 1},
               {"fingerprint", fingerprint.text()},
               {"fingerprint_hash", fingerprint.hash()}};
  json problemsJson = json::array();
  for (const PlanProblem &problem : problems) {
    json candidates = json::array();
    for (const PlanCandidate &candidate : problem.candidates) {
      json item = {{"config", configToJson(candidate.config)},
                   {"manifest", candidate.manifest}};
      if (!candidate.compileError.empty())
        item["compile_error"] = candidate.compileError;
      candidates.push_back(std::move(item));
    }
    problemsJson.push_back({{"key", problem.key},
                            {"entry", problem.entry},
                            {"inputs", problem.inputs},
                            {"expected", problem.expected},
                            {"heuristic", configToJson(problem.heuristic)},
                            {"candidates", std::move(candidates)}});
  }
  root["problems"] = std::move(problemsJson);
  return writeFileAtomically(dir + "/plan.json", root.dump(2) + "\n", error);
}

bool TuningPlan::read(const std::string &dir, TuningPlan &plan,
                      std::string &error) {
  std::string path = dir + "/plan.json", text;
  auto bad = [&](const std::string &why) {
    error = "'" + path + "': " + why;
    return false;
  };
  if (!readText(path, text))
    return bad("cannot read it (is this a candidate directory?)");
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object() ||
      stringField(root, "format") != kPlanFormat)
    return bad(std::string("not an ejk tuning plan (\"format\": \"") +
               kPlanFormat + "\")");
  std::string why;
  if (!DeviceFingerprint::parse(stringField(root, "fingerprint"),
                                plan.fingerprint, why))
    return bad("bad fingerprint: " + why);
  auto problems = root.find("problems");
  if (problems == root.end() || !problems->is_array())
    return bad("no 'problems' array");
  for (const json &item : *problems) {
    PlanProblem problem;
    problem.key = stringField(item, "key");
    problem.entry = stringField(item, "entry");
    auto candidates = item.find("candidates");
    if (problem.key.empty() || problem.entry.empty() ||
        !stringsField(item, "inputs", problem.inputs) ||
        !stringsField(item, "expected", problem.expected) ||
        !item.contains("heuristic") ||
        !configFromJson(item["heuristic"], problem.heuristic, why) ||
        candidates == item.end() || !candidates->is_array())
      return bad("a problem needs key, entry, inputs, expected, heuristic "
                 "and candidates");
    for (const json &c : *candidates) {
      PlanCandidate candidate;
      if (!c.is_object() || !c.contains("config") ||
          !configFromJson(c["config"], candidate.config, why))
        return bad("problem '" + problem.key + "': bad candidate: " + why);
      candidate.manifest = stringField(c, "manifest");
      candidate.compileError = stringField(c, "compile_error");
      problem.candidates.push_back(std::move(candidate));
    }
    plan.problems.push_back(std::move(problem));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// results.json
//===----------------------------------------------------------------------===//

bool TuningResults::write(const std::string &path, std::string &error) const {
  json root = {{"format", kResultsFormat},
               {"version", 1},
               {"fingerprint", fingerprint.text()},
               {"fingerprint_hash", fingerprint.hash()}};
  json problemsJson = json::array();
  for (const ProblemResult &problem : problems) {
    json candidates = json::array();
    for (const CandidateResult &c : problem.candidates)
      candidates.push_back({{"config", configToJson(c.config)},
                            {"status", c.status},
                            {"message", c.message},
                            {"median_ns", c.medianNs},
                            {"min_ns", c.minNs},
                            {"times_ns", c.timesNs},
                            {"max_abs_error", c.maxAbsError}});
    problemsJson.push_back({{"key", problem.key},
                            {"heuristic", configToJson(problem.heuristic)},
                            {"candidates", std::move(candidates)}});
  }
  root["problems"] = std::move(problemsJson);
  return writeFileAtomically(path, root.dump(2) + "\n", error);
}

bool TuningResults::read(const std::string &path, TuningResults &results,
                         std::string &error) {
  std::string text;
  auto bad = [&](const std::string &why) {
    error = "'" + path + "': " + why;
    return false;
  };
  if (!readText(path, text))
    return bad("cannot read it");
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object() ||
      stringField(root, "format") != kResultsFormat)
    return bad(std::string("not ejk tuning results (\"format\": \"") +
               kResultsFormat + "\")");
  std::string why;
  if (!DeviceFingerprint::parse(stringField(root, "fingerprint"),
                                results.fingerprint, why))
    return bad("bad fingerprint: " + why);
  auto problems = root.find("problems");
  if (problems == root.end() || !problems->is_array())
    return bad("no 'problems' array");
  for (const json &item : *problems) {
    ProblemResult problem;
    problem.key = stringField(item, "key");
    auto candidates = item.find("candidates");
    if (problem.key.empty() || !item.contains("heuristic") ||
        !configFromJson(item["heuristic"], problem.heuristic, why) ||
        candidates == item.end() || !candidates->is_array())
      return bad("a problem needs key, heuristic and candidates");
    for (const json &c : *candidates) {
      CandidateResult result;
      result.status = stringField(c, "status");
      if (!c.is_object() || !c.contains("config") ||
          !configFromJson(c["config"], result.config, why) ||
          result.status.empty())
        return bad("problem '" + problem.key + "': bad candidate");
      result.message = stringField(c, "message");
      numberField(c, "median_ns", result.medianNs);
      numberField(c, "min_ns", result.minNs);
      numberField(c, "max_abs_error", result.maxAbsError);
      if (result.status == "ok" && !(result.medianNs > 0))
        return bad("problem '" + problem.key +
                   "': an ok candidate without a time");
      problem.candidates.push_back(std::move(result));
    }
    results.problems.push_back(std::move(problem));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// Elements of a runtime buffer widened to double.
static std::vector<double> toDoubles(const std::vector<uint8_t> &bytes,
                                     ejk_dtype dtype) {
  size_t size = ejk_dtype_size(dtype), n = size ? bytes.size() / size : 0;
  std::vector<double> values(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t *p = bytes.data() + i * size;
    switch (dtype) {
    case EJK_DTYPE_F32: {
      float v;
      std::memcpy(&v, p, 4);
      values[i] = v;
      break;
    }
    case EJK_DTYPE_F64:
      std::memcpy(&values[i], p, 8);
      break;
    case EJK_DTYPE_F16:
    case EJK_DTYPE_BF16: {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      values[i] =
          dtype == EJK_DTYPE_F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
      break;
    }
    case EJK_DTYPE_I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      values[i] = v;
      break;
    }
    case EJK_DTYPE_I64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      values[i] = static_cast<double>(v);
      break;
    }
    default:
      values[i] = static_cast<int8_t>(*p);
    }
  }
  return values;
}

/// The same tolerances as `ejk-run --check`: f32 accumulation error, plus
/// one rounding of the output for f16/bf16.
static void toleranceOf(ejk_dtype dtype, double &absolute, double &relative) {
  if (dtype == EJK_DTYPE_F16) {
    absolute = relative = 5e-3;
  } else if (dtype == EJK_DTYPE_BF16) {
    absolute = 4e-2;
    relative = 2e-2;
  } else {
    absolute = relative = 1e-4;
  }
}

/// Compares one output with the reference; infinities must match and NaN
/// never passes. Returns the message of the first mismatch, or "".
static std::string compare(const std::vector<double> &actual,
                           const std::vector<double> &expected, ejk_dtype dtype,
                           double &maxAbsError) {
  if (actual.size() != expected.size())
    return "output has " + std::to_string(actual.size()) +
           " elements, the reference " + std::to_string(expected.size());
  double absolute, relative;
  toleranceOf(dtype, absolute, relative);
  for (size_t i = 0; i < actual.size(); ++i) {
    double a = actual[i], e = expected[i];
    bool bad;
    if (std::isinf(a) || std::isinf(e)) {
      bad = a != e;
    } else {
      double diff = std::fabs(a - e);
      maxAbsError = std::max(maxAbsError, diff);
      bad = !(diff <= absolute + relative * std::fabs(e));
    }
    if (bad) {
      char text[160];
      std::snprintf(text, sizeof(text),
                    "element %zu is %g, the reference %g (tolerance %g + "
                    "%g*|ref|)",
                    i, a, e, absolute, relative);
      return text;
    }
  }
  return "";
}

namespace {
/// A candidate that is loaded, checked and warm, ready to be timed.
struct LiveCandidate {
  Module module;
  std::vector<Buffer> outputs;
  std::vector<ejk_buffer *> out;
  CandidateResult *result = nullptr;
};
} // namespace

/// Loads `candidate`, runs it once and checks its outputs against the
/// reference, then warms it up. Returns false (with `result` saying why)
/// when it cannot be timed.
static bool prepareCandidate(const std::string &dir, const PlanProblem &problem,
                             const PlanCandidate &candidate, ejk_device *device,
                             const std::vector<ejk_buffer *> &in,
                             const std::vector<std::vector<double>> &expected,
                             const RunnerOptions &options, LiveCandidate &live,
                             CandidateResult &result) {
  auto failWith = [&](const std::string &message) {
    result.status = "failed";
    result.message = message;
    return false;
  };
  if (candidate.manifest.empty()) {
    if (candidate.compileError.rfind("skipped", 0) == 0) {
      result.status = "skipped";
      result.message = "out of budget";
      return false;
    }
    return failWith("did not compile: " + candidate.compileError);
  }
  std::string manifest = dir + "/" + candidate.manifest;
  {
    ejk_module *handle = nullptr;
    if (ejk_module_load(device, manifest.c_str(), &handle) != EJK_OK)
      return failWith(std::string("cannot load: ") + ejk_last_error());
    live.module.reset(handle);
  }
  const char *entry = problem.entry.c_str();
  size_t numInputs = 0, numOutputs = 0;
  if (ejk_module_entry_signature(live.module.get(), entry, &numInputs,
                                 &numOutputs) != EJK_OK)
    return failWith(ejk_last_error());
  if (numInputs != in.size() || numOutputs != expected.size())
    return failWith("the entry's signature does not match the plan");
  std::vector<ejk_dtype> outTypes;
  for (size_t i = 0; i < numOutputs; ++i) {
    ejk_tensor_desc desc;
    if (ejk_module_entry_arg(live.module.get(), entry, 1, i, &desc) != EJK_OK)
      return failWith(ejk_last_error());
    size_t bytes = ejk_dtype_size(desc.dtype);
    for (int32_t d = 0; d < desc.rank; ++d)
      bytes *= static_cast<size_t>(desc.shape[d]);
    ejk_buffer *buffer = nullptr;
    if (ejk_buffer_create(device, bytes, &buffer) != EJK_OK)
      return failWith(ejk_last_error());
    live.outputs.emplace_back();
    live.outputs.back().reset(buffer);
    live.out.push_back(buffer);
    outTypes.push_back(desc.dtype);
  }
  auto invoke = [&] {
    return ejk_invoke(live.module.get(), entry, in.data(), in.size(),
                      live.out.data(), live.out.size()) == EJK_OK;
  };
  // Check before timing: a wrong candidate is never a winner.
  if (!invoke())
    return failWith(std::string("run failed: ") + ejk_last_error());
  for (size_t i = 0; i < numOutputs; ++i) {
    size_t bytes = 0;
    ejk_buffer_size(live.out[i], &bytes);
    std::vector<uint8_t> data(bytes);
    if (ejk_buffer_download(live.out[i], data.data(), bytes, 0) != EJK_OK)
      return failWith(ejk_last_error());
    std::string mismatch = compare(toDoubles(data, outTypes[i]), expected[i],
                                   outTypes[i], result.maxAbsError);
    if (!mismatch.empty()) {
      result.status = "wrong";
      result.message = "output " + std::to_string(i) + ": " + mismatch;
      return false;
    }
  }
  for (unsigned i = 0; i < options.warmupRuns; ++i)
    if (!invoke())
      return failWith(std::string("run failed: ") + ejk_last_error());
  live.result = &result;
  return true;
}

/// Times the live candidates in rounds, each round running every candidate
/// once, so that a change in the machine's load (it is shared) affects all
/// candidates alike instead of favouring whichever ran in a quiet moment.
/// Each round starts one candidate later and with an untimed call: on the
/// H200 the first call after the host's pause between rounds ran up to 3.5x
/// slower (clocks), which always hit the first candidate, the heuristic.
static void timeInRounds(const PlanProblem &problem,
                         const std::vector<ejk_buffer *> &in,
                         std::vector<LiveCandidate> &live,
                         const RunnerOptions &options, const Stopwatch &clock) {
  unsigned rounds = std::max(1u, options.timedRuns);
  for (unsigned round = 0; round < rounds; ++round) {
    // Out of budget: stop after the first round; every live candidate
    // then has at least one time.
    if (round > 0 && options.budgetSeconds > 0 &&
        clock.seconds() > options.budgetSeconds)
      break;
    for (size_t k = 0; k < live.size(); ++k) {
      LiveCandidate &candidate = live[(round + k) % live.size()];
      CandidateResult &result = *candidate.result;
      if (result.status == "failed")
        continue;
      if (k == 0)
        (void)ejk_invoke(candidate.module.get(), problem.entry.c_str(),
                         in.data(), in.size(), candidate.out.data(),
                         candidate.out.size());
      uint64_t ns = 0;
      if (ejk_invoke(candidate.module.get(), problem.entry.c_str(), in.data(),
                     in.size(), candidate.out.data(),
                     candidate.out.size()) != EJK_OK ||
          ejk_last_invoke_time_ns(candidate.module.get(), &ns) != EJK_OK) {
        result.status = "failed";
        result.message = std::string("run failed: ") + ejk_last_error();
        continue;
      }
      result.timesNs.push_back(static_cast<double>(ns));
    }
  }
  for (LiveCandidate &candidate : live) {
    CandidateResult &result = *candidate.result;
    if (result.status == "failed" || result.timesNs.empty())
      continue;
    std::vector<double> sorted = result.timesNs;
    std::sort(sorted.begin(), sorted.end());
    result.medianNs = sorted[sorted.size() / 2];
    result.minNs = sorted.front();
    result.status = "ok";
  }
}

bool ejk::runPlan(const std::string &dir, const TuningPlan &plan,
                  const RunnerOptions &options, TuningResults &results,
                  std::string &error) {
  Stopwatch clock;
  Device device;
  std::string spec =
      options.device.empty() ? plan.fingerprint.kind : options.device;
  if (Status s = Device::create(spec, device); !s) {
    error = "cannot create the '" + spec + "' device: " + s.message;
    return false;
  }
  if (device.kind() != plan.fingerprint.kind) {
    error = "the plan is for a " + plan.fingerprint.kind + " device, not " +
            device.kind();
    return false;
  }
  // The results belong to the device that ran them.
  std::string text, why;
  if (Status s = device.fingerprint(text); !s) {
    error = "cannot read the device's fingerprint: " + s.message;
    return false;
  }
  if (!DeviceFingerprint::parse(text, results.fingerprint, why)) {
    error = "the device's fingerprint does not parse: " + why;
    return false;
  }
  results.problems.clear();
  for (const PlanProblem &problem : plan.problems) {
    // The inputs are uploaded once and shared by every candidate.
    std::vector<Buffer> inputBuffers;
    std::vector<ejk_buffer *> in;
    for (const std::string &file : problem.inputs) {
      NpyArray array;
      if (!readNpy(dir + "/" + file, array, error))
        return false;
      ejk_buffer *buffer = nullptr;
      if (ejk_buffer_create(device.get(), array.data.size(), &buffer) !=
              EJK_OK ||
          ejk_buffer_upload(buffer, array.data.data(), array.data.size(), 0) !=
              EJK_OK) {
        ejk_buffer_destroy(buffer);
        error = "cannot upload '" + dir + "/" + file + "': " + ejk_last_error();
        return false;
      }
      inputBuffers.emplace_back();
      inputBuffers.back().reset(buffer);
      in.push_back(buffer);
    }
    std::vector<std::vector<double>> expected;
    for (const std::string &file : problem.expected) {
      NpyArray array;
      if (!readNpy(dir + "/" + file, array, error))
        return false;
      // f32, or the output's own f16/bf16 (bf16 as numpy's uint16 bits).
      ejk_dtype dtype = EJK_DTYPE_F32;
      if (array.dtype == "f16")
        dtype = EJK_DTYPE_F16;
      else if (array.dtype == "u16")
        dtype = EJK_DTYPE_BF16;
      else if (array.dtype != "f32") {
        error = "'" + dir + "/" + file +
                "': expected outputs must be f32, f16 or bf16 (uint16)";
        return false;
      }
      expected.push_back(toDoubles(array.data, dtype));
    }
    ProblemResult problemResult;
    problemResult.key = problem.key;
    problemResult.heuristic = problem.heuristic;
    problemResult.candidates.resize(problem.candidates.size());
    std::vector<LiveCandidate> live;
    live.reserve(problem.candidates.size());
    for (size_t i = 0; i < problem.candidates.size(); ++i) {
      CandidateResult &result = problemResult.candidates[i];
      result.config = problem.candidates[i].config;
      if (options.budgetSeconds > 0 &&
          clock.seconds() > options.budgetSeconds) {
        result.status = "skipped";
        result.message = "out of budget";
        continue;
      }
      LiveCandidate candidate;
      if (prepareCandidate(dir, problem, problem.candidates[i], device.get(),
                           in, expected, options, candidate, result))
        live.push_back(std::move(candidate));
    }
    timeInRounds(problem, in, live, options, clock);
    live.clear();
    if (options.progress)
      for (const CandidateResult &result : problemResult.candidates) {
        char line[64] = "";
        if (result.status == "ok")
          std::snprintf(line, sizeof(line), " %.3f ms", result.medianNs * 1e-6);
        options.progress(
            formatConfig(result.config) + ": " + result.status + line +
            (result.message.empty() ? "" : " (" + result.message + ")"));
      }
    results.problems.push_back(std::move(problemResult));
  }
  return true;
}

TuningEntries ejk::winnersOf(const TuningResults &results) {
  TuningEntries entries;
  for (const ProblemResult &problem : results.problems) {
    std::vector<const CandidateResult *> correct;
    for (const CandidateResult &c : problem.candidates)
      if (c.status == "ok")
        correct.push_back(&c);
    if (correct.empty())
      continue;
    std::stable_sort(correct.begin(), correct.end(), [](auto *a, auto *b) {
      return a->medianNs < b->medianNs;
    });
    // Timings on a shared machine are noisy: a candidate must beat the
    // heuristic by more than the margin to replace it, so that noise does
    // not store a config that is no faster.
    constexpr double kMargin = 0.03;
    for (size_t i = 1; i < correct.size(); ++i)
      if (correct[i]->config == problem.heuristic &&
          correct.front()->medianNs > correct[i]->medianNs * (1 - kMargin)) {
        std::rotate(correct.begin(), correct.begin() + i,
                    correct.begin() + i + 1);
        break;
      }
    TuningEntry entry;
    entry.config = correct.front()->config;
    entry.timeNs = correct.front()->medianNs;
    for (size_t i = 1; i < correct.size(); ++i)
      entry.runnerUps.push_back({correct[i]->config, correct[i]->medianNs});
    entry.compilerVersion = compilerVersion();
    entry.date = currentDate();
    entries[problem.key] = std::move(entry);
  }
  return entries;
}

void ejk::printResultsTable(const TuningResults &results, std::ostream &os) {
  TuningEntries winners = winnersOf(results);
  for (const ProblemResult &problem : results.problems) {
    os << problem.key << "\n";
    auto winner = winners.find(problem.key);
    double heuristicNs = 0;
    for (const CandidateResult &c : problem.candidates)
      if (c.config == problem.heuristic && c.status == "ok")
        heuristicNs = c.medianNs;
    char line[256];
    std::snprintf(line, sizeof(line), "  %-34s %-8s %12s %12s\n", "config",
                  "status", "median ms", "min ms");
    os << line;
    for (const CandidateResult &c : problem.candidates) {
      std::string mark;
      if (winner != winners.end() && c.config == winner->second.config)
        mark += " <- winner";
      if (c.config == problem.heuristic)
        mark += " (heuristic)";
      if (c.status == "ok")
        std::snprintf(line, sizeof(line), "  %-34s %-8s %12.3f %12.3f",
                      formatConfig(c.config).c_str(), c.status.c_str(),
                      c.medianNs * 1e-6, c.minNs * 1e-6);
      else
        std::snprintf(line, sizeof(line), "  %-34s %-8s %12s %12s",
                      formatConfig(c.config).c_str(), c.status.c_str(), "-",
                      "-");
      os << line << mark;
      if (c.status != "ok" && !c.message.empty())
        os << "  " << c.message;
      os << "\n";
    }
    if (winner == winners.end()) {
      os << "  no correct candidate: nothing stored\n";
    } else if (heuristicNs > 0) {
      std::snprintf(line, sizeof(line),
                    "  winner %s: %.3f ms, %.2fx the heuristic (%.3f ms)\n",
                    formatConfig(winner->second.config).c_str(),
                    winner->second.timeNs * 1e-6,
                    heuristicNs / winner->second.timeNs, heuristicNs * 1e-6);
      os << line;
    }
  }
}
