//===- TargetOptions.cpp - TargetInfo from pass options -------------------===//

#include "ejk/Tuning/Passes.h"

using namespace mlir;
using namespace mlir::ejk;

FailureOr<TargetInfo> mlir::ejk::makeTargetInfo(
    StringRef kind, unsigned vectorBits, unsigned numCores, int64_t l2Bytes,
    unsigned subgroupSize, int64_t sharedMemoryBytes, bool cooperativeMatrix) {
  TargetInfo info;
  if (kind == "cpu") {
    info = TargetInfo::genericCpu();
  } else if (kind == "vulkan") {
    info = TargetInfo::genericVulkan();
  } else {
    return failure();
  }
  info.vectorBits = vectorBits;
  info.numCores = numCores;
  info.l2Bytes = l2Bytes;
  info.subgroupSize = subgroupSize;
  info.sharedMemoryBytes = sharedMemoryBytes;
  info.hasCooperativeMatrix = cooperativeMatrix;
  return info;
}
