//===- Checks.cpp - running on the runtime and checking results -----------===//

#include "Checks.h"

#include "ejk/Runtime/ejk_runtime.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::ejk;

Tolerance mlir::ejk::toleranceFor(StringRef dtype) {
  if (dtype == "f16")
    return {5e-3, 5e-3};
  if (dtype == "bf16")
    return {4e-2, 2e-2};
  return {1e-4, 1e-4};
}

ComparisonResult mlir::ejk::compareWithReference(const HostTensor &actual,
                                                 const HostTensor &expected) {
  ComparisonResult result;
  result.tolerance = toleranceFor(actual.dtype);
  std::vector<float> a = actual.toFloats(), e = expected.toFloats();
  for (size_t i = 0; i < a.size() && i < e.size(); ++i) {
    bool bad;
    if (std::isinf(e[i]) || std::isinf(a[i])) {
      bad = a[i] != e[i];
    } else {
      double diff = std::fabs(static_cast<double>(a[i]) - e[i]);
      result.maxAbsError = std::max(result.maxAbsError, diff);
      if (e[i] != 0.0f)
        result.maxRelError =
            std::max(result.maxRelError, diff / std::fabs(e[i]));
      bad = !(diff <= result.tolerance.absolute +
                          result.tolerance.relative * std::fabs(e[i]));
    }
    if (bad && result.passed) {
      result.passed = false;
      result.firstBadIndex = static_cast<int64_t>(i);
      result.firstBadActual = a[i];
      result.firstBadExpected = e[i];
    }
  }
  if (a.size() != e.size())
    result.passed = false;
  return result;
}

namespace {
/// Owns the runtime objects of one run.
struct RuntimeSession {
  ejk_device *device = nullptr;
  ejk_module *module = nullptr;
  std::vector<ejk_buffer *> buffers;
  ~RuntimeSession() {
    for (ejk_buffer *b : buffers)
      ejk_buffer_destroy(b);
    ejk_module_destroy(module);
    ejk_device_destroy(device);
  }
};
} // namespace

static bool readWork(const std::string &manifestPath, const std::string &entry,
                     RunResult &result) {
  auto file = llvm::MemoryBuffer::getFile(manifestPath);
  if (!file)
    return false;
  nlohmann::json manifest = nlohmann::json::parse(
      (*file)->getBuffer().str(), nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded() || !manifest["entries"].is_array())
    return false;
  for (auto &item : manifest["entries"]) {
    if (!item["name"].is_string() || item["name"] != entry)
      continue;
    for (auto &dispatch : item["dispatches"]) {
      if (dispatch["flops"].is_number_integer())
        result.flops += dispatch["flops"].get<int64_t>();
      if (dispatch["bytes"].is_number_integer())
        result.bytes += dispatch["bytes"].get<int64_t>();
    }
  }
  return true;
}

bool mlir::ejk::runOnRuntime(const std::string &deviceSpec,
                             const std::string &manifestPath,
                             const std::string &entry,
                             const std::vector<HostTensor> &inputs,
                             ArrayRef<ShapedType> resultTypes,
                             unsigned benchRuns, RunResult &result,
                             std::string &error) {
  auto runtimeError = [&](const char *what) {
    error = std::string(what) + ": " + ejk_last_error();
    return false;
  };
  RuntimeSession s;
  if (ejk_device_create(deviceSpec.c_str(), &s.device) != EJK_OK)
    return runtimeError(
        ("cannot create the " + deviceSpec + " device").c_str());
  if (ejk_module_load(s.device, manifestPath.c_str(), &s.module) != EJK_OK)
    return runtimeError("cannot load the artifact");
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
  for (ShapedType tensor : resultTypes) {
    HostTensor output;
    output.dtype = dtypeOf(tensor.getElementType());
    output.shape = tensor.getShape().vec();
    output.data.resize(output.numElements() *
                       HostTensor::elementSize(output.dtype));
    ejk_buffer *buffer = nullptr;
    if (ejk_buffer_create(s.device, output.data.size(), &buffer) != EJK_OK)
      return runtimeError("cannot create an output buffer");
    s.buffers.push_back(buffer);
    out.push_back(buffer);
    result.outputs.push_back(std::move(output));
  }
  auto invoke = [&] {
    return ejk_invoke(s.module, entry.c_str(), in.data(), in.size(), out.data(),
                      out.size()) == EJK_OK;
  };
  if (!invoke())
    return runtimeError("running the entry failed");
  for (size_t i = 0; i < out.size(); ++i)
    if (ejk_buffer_download(out[i], result.outputs[i].data.data(),
                            result.outputs[i].data.size(), 0) != EJK_OK)
      return runtimeError("cannot download a result");
  if (benchRuns > 0) {
    for (int warm = 0; warm < 2; ++warm)
      if (!invoke())
        return runtimeError("running the entry failed");
    for (unsigned i = 0; i < benchRuns; ++i) {
      uint64_t ns = 0;
      if (!invoke() || ejk_last_invoke_time_ns(s.module, &ns) != EJK_OK)
        return runtimeError("running the entry failed");
      result.timesNs.push_back(ns);
    }
    readWork(manifestPath, entry, result);
  }
  return true;
}

void mlir::ejk::printBench(const RunResult &result, unsigned runs,
                           raw_ostream &os) {
  std::vector<uint64_t> times = result.timesNs;
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2] * 1e-9;
  double min = times.front() * 1e-9;
  os << "bench: " << runs << " runs, median "
     << llvm::format("%.3f", median * 1e3) << " ms, min "
     << llvm::format("%.3f", min * 1e3) << " ms";
  if (result.flops > 0)
    os << ", " << llvm::format("%.1f", result.flops / median * 1e-9)
       << " GFLOP/s (median), "
       << llvm::format("%.1f", result.flops / min * 1e-9) << " GFLOP/s (min)";
  os << "\n";
}
