//===- ejk-tune-runner.cpp - time a candidate directory on the device -----===//
//
//   ejk-tune-runner DIR [--out FILE] [--runs N] [--warmup N] [--budget S]
//                       [--force]
//
// Runs on the machine that has the device (the CPU, or a Vulkan GPU as
// EJK_VULKAN_DEVICE selects it), without MLIR or the compiler:
// checks every candidate of `ejk-tune --emit-candidates DIR` against the
// reference outputs, times the correct ones and writes DIR/results.json
// (or FILE) for `ejk-tune --import-results`. Links only the runtime and
// the support code.
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
               "[--warmup N] [--budget SECONDS] [--force]\n";
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

/// Parses a non-negative number; false on anything else.
static bool parseNumber(const char *text, double &value) {
  char *end = nullptr;
  value = std::strtod(text, &end);
  return end && end != text && *end == '\0' && value >= 0;
}

int main(int argc, char **argv) {
  std::string dir, out;
  RunnerOptions options;
  bool force = false;
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
    } else if (arg == "-h" || arg == "--help") {
      std::cout << "usage: ejk-tune-runner DIR [--out FILE] [--runs N] "
                   "[--warmup N] [--budget SECONDS] [--force]\n";
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
  std::cout << "wrote " << out << "\n";
  return 0;
}
