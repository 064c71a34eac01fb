//===- TargetOptions.cpp - TargetInfo from pass options -------------------===//

#include "ejk/Selection/Passes.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult mlir::ejk::applyVulkanOptions(TargetInfo &info,
                                            StringRef spirvVersion,
                                            StringRef vulkanFeatures,
                                            std::string &error) {
  std::optional<unsigned> version = parseSpirvVersion(spirvVersion);
  if (!version) {
    error =
        ("unknown SPIR-V version '" + spirvVersion + "', expected 1.0 .. 1.6")
            .str();
    return failure();
  }
  info.spirvVersion = *version;
  SmallVector<StringRef> parts;
  vulkanFeatures.split(parts, ',', -1, /*KeepEmpty=*/false);
  SmallVector<std::string> names;
  for (StringRef part : parts)
    names.push_back(part.trim().str());
  std::string unknown;
  if (failed(info.setVulkanFeatures(names, unknown))) {
    error = "unknown Vulkan feature '" + unknown +
            "' (known: " + llvm::join(TargetInfo::knownVulkanFeatures(), ", ") +
            ")";
    return failure();
  }
  return success();
}

FailureOr<TargetInfo> mlir::ejk::makeTargetInfo(
    StringRef kind, unsigned vectorBits, unsigned numCores, int64_t l2Bytes,
    unsigned subgroupSize, int64_t sharedMemoryBytes, bool cooperativeMatrix,
    StringRef spirvVersion, StringRef vulkanFeatures, std::string &error) {
  TargetInfo info;
  if (kind == "cpu") {
    info = TargetInfo::genericCpu();
  } else if (kind == "vulkan") {
    info = TargetInfo::genericVulkan();
  } else {
    error = ("unknown target '" + kind + "', expected 'cpu' or 'vulkan'").str();
    return failure();
  }
  info.vectorBits = vectorBits;
  info.numCores = numCores;
  info.l2Bytes = l2Bytes;
  info.subgroupSize = subgroupSize;
  info.sharedMemoryBytes = sharedMemoryBytes;
  info.hasCooperativeMatrix = cooperativeMatrix;
  if (info.isVulkan() &&
      failed(applyVulkanOptions(info, spirvVersion, vulkanFeatures, error)))
    return failure();
  return info;
}
