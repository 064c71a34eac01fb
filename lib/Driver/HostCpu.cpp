//===- HostCpu.cpp - detect the host CPU ----------------------------------===//

#include "ejk/Driver/Compiler.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <thread>

using namespace mlir;
using namespace mlir::ejk;

HostCpu mlir::ejk::detectHostCpu() {
  HostCpu host;
  host.triple = llvm::sys::getProcessTriple();
  host.cpuName = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::string joined;
  for (const auto &feature : features) {
    if (!joined.empty())
      joined += ',';
    joined += (feature.second ? "+" : "-") + feature.first().str();
  }
  host.features = joined;
  auto has = [&](StringRef name) {
    auto it = features.find(name);
    return it != features.end() && it->second;
  };
  if (has("avx512f"))
    host.vectorBits = 512;
  else if (has("avx2") && has("fma"))
    host.vectorBits = 256;
  else
    host.vectorBits = 128;
  host.numCores = std::max(1u, std::thread::hardware_concurrency());
  return host;
}
