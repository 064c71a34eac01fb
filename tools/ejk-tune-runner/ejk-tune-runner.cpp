//===- ejk-tune-runner.cpp - time a candidate directory on the device -----===//
//
//   ejk-tune-runner DIR [--out FILE] [--runs N] [--warmup N] [--budget S]
//                       [--force] [--allow-wrong]
//
// Runs on the machine that has the device (the CPU, or a Vulkan GPU as
// EJK_VULKAN_DEVICE selects it), without MLIR or the compiler:
// checks every candidate of `ejk-tune --emit-candidates DIR` against the
// reference outputs, times the correct ones and writes DIR/results.json
// (or FILE) for `ejk-tune --import-results`. Links only the runtime and
// the support code.
//
// Exit status: 0 when every candidate that ran gave the reference's
// outputs; 2 when some candidate's outputs were wrong (the results are
// still written, the wrong ones never win; a wrong candidate is a compiler
// bug, and device checks such as bench/vulkan/check.sh rely on the status);
// --allow-wrong makes that 0. 1 for every other error.
//
//===----------------------------------------------------------------------===//

#include "ejk/Autotune/Runner/CandidateRunner.h"
#include "ejk/Runtime/Runtime.hpp"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

using namespace ejk;

static int usage(const std::string &message) {
  std::cerr << "ejk-tune-runner: error: " << message
            << "\nusage: ejk-tune-runner DIR [--out FILE] [--runs N] "
               "[--warmup N] [--budget SECONDS] [--force] [--allow-wrong]\n";
  return 1;
}

static int fail(const std::string &message) {
  std::cerr << "ejk-tune-runner: error: " << message << "\n";
  return 1;
}

/// A readable name of the device for messages.
static std::string deviceName(const DeviceFingerprint &device) {
  std::string name = device.get("device_name");
  return name.empty() ? device.get("model_name") : name;
}

/// Lists every candidate whose outputs differed from the reference on
/// stderr; returns how many there were.
static size_t reportWrongCandidates(const TuningResults &results) {
  size_t wrong = 0, problemsWithWrong = 0;
  for (const ProblemResult &problem : results.problems) {
    bool any = false;
    for (const CandidateResult &candidate : problem.candidates) {
      if (candidate.status != "wrong")
        continue;
      if (!any)
        std::cerr << "ejk-tune-runner: error: wrong outputs in problem "
                  << problem.key << ":\n";
      any = true;
      ++wrong;
      std::cerr << "  " << formatConfig(candidate.config) << ": "
                << candidate.message << "\n";
    }
    problemsWithWrong += any;
  }
  if (wrong)
    std::cerr << "ejk-tune-runner: error: " << wrong << " candidate"
              << (wrong == 1 ? "" : "s") << " of " << problemsWithWrong
              << " problem" << (problemsWithWrong == 1 ? "" : "s")
              << " gave wrong outputs (--allow-wrong exits 0 anyway)\n";
  return wrong;
}

/// Parses a non-negative number; false on anything else.
static bool parseNumber(const char *text, double &value) {
  char *end = nullptr;
  value = std::strtod(text, &end);
  return end && end != text && *end == '\0' && value >= 0;
}

int main(int argc, char **argv) {
  std::string dir, out;
  RunnerOptions options;
  bool force = false, allowWrong = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](double &number) {
      if (i + 1 >= argc || !parseNumber(argv[i + 1], number))
        return false;
      ++i;
      return true;
    };
    double number = 0;
    if (arg == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else if (arg == "--runs") {
      if (!value(number) || number < 1)
        return usage("--runs needs a positive integer");
      options.timedRuns = static_cast<unsigned>(number);
    } else if (arg == "--warmup") {
      if (!value(number))
        return usage("--warmup needs a non-negative integer");
      options.warmupRuns = static_cast<unsigned>(number);
    } else if (arg == "--budget") {
      if (!value(number))
        return usage("--budget needs a non-negative number of seconds");
      options.budgetSeconds = number;
    } else if (arg == "--force") {
      force = true;
    } else if (arg == "--allow-wrong") {
      allowWrong = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << "usage: ejk-tune-runner DIR [--out FILE] [--runs N] "
                   "[--warmup N] [--budget SECONDS] [--force] "
                   "[--allow-wrong]\n";
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      return usage("unknown option '" + arg + "'");
    } else if (dir.empty()) {
      dir = arg;
    } else {
      return usage("more than one directory given");
    }
  }
  if (dir.empty())
    return usage("no candidate directory given");
  if (out.empty())
    out = dir + "/results.json";

  TuningPlan plan;
  std::string error;
  if (!TuningPlan::read(dir, plan, error))
    return usage(error);
  // The device that will run the candidates: the plan's kind (a Vulkan
  // device as EJK_VULKAN_DEVICE selects it).
  DeviceFingerprint device;
  {
    Device probe;
    std::string text, why;
    if (Status s = Device::create(plan.fingerprint.kind, probe); !s)
      return fail("the plan is for a " + plan.fingerprint.kind +
                  " device, and none can be opened here: " + s.message);
    if (Status s = probe.fingerprint(text); !s)
      return fail("cannot read the device's fingerprint: " + s.message);
    if (!DeviceFingerprint::parse(text, device, why))
      return fail("the device's fingerprint does not parse: " + why);
  }
  if (device.text() != plan.fingerprint.text()) {
    std::cerr << "ejk-tune-runner: " << (force ? "warning" : "error")
              << ": this " << device.kind << " device (" << deviceName(device)
              << ", fingerprint " << device.hash()
              << ") is not the device the candidates were "
              << "compiled for (" << plan.fingerprint.hash() << ")\n";
    if (!force) {
      std::cerr << "  (--force runs them anyway; the results are then "
                   "stored for this device)\n";
      return 1;
    }
  }
  options.progress = [](const std::string &line) {
    std::cout << "  " << line << "\n" << std::flush;
  };
  TuningResults results;
  if (!runPlan(dir, plan, options, results, error))
    return fail(error);
  printResultsTable(results, std::cout);
  if (!results.write(out, error))
    return fail(error);
  std::cout << "wrote " << out << "\n" << std::flush;
  if (reportWrongCandidates(results) && !allowWrong)
    return 2;
  return 0;
}
