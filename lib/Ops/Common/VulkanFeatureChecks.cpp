//===- VulkanFeatureChecks.cpp - device features of element types ---------===//

#include "VulkanFeatureChecks.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult mlir::ejk::checkVulkanBufferFeatures(ArrayRef<Type> elementTypes,
                                                   const TargetInfo &target,
                                                   raw_ostream &reason) {
  auto any = [&](function_ref<bool(Type)> pred) {
    return llvm::any_of(elementTypes, [&](Type t) { return t && pred(t); });
  };
  bool f16 = any([](Type t) { return t.isF16(); });
  bool bf16 = any([](Type t) { return t.isBF16(); });
  if ((f16 || bf16) && !target.hasVulkanFeature("storage16")) {
    reason << "f16 and bf16 buffers need the device feature 'storage16'";
    return failure();
  }
  if (f16 && !target.hasVulkanFeature("float16")) {
    reason << "f16 buffers need the device feature 'float16'";
    return failure();
  }
  if (bf16 && !target.hasVulkanFeature("int16")) {
    reason << "bf16 buffers, read as 16-bit integers, need the device "
              "feature 'int16'";
    return failure();
  }
  return success();
}

LogicalResult mlir::ejk::checkVulkanInputFeatures(Type element,
                                                  const TargetInfo &target,
                                                  raw_ostream &reason) {
  if (element.isF16() && !(target.hasVulkanFeature("float16") &&
                           target.hasVulkanFeature("storage16"))) {
    reason << "f16 inputs need the device features 'float16' and "
              "'storage16'";
    return failure();
  }
  if (element.isBF16() && !(target.hasVulkanFeature("storage16") &&
                            target.hasVulkanFeature("int16"))) {
    reason << "bf16 inputs, read as 16-bit integers, need the device "
              "features 'storage16' and 'int16'";
    return failure();
  }
  return success();
}
