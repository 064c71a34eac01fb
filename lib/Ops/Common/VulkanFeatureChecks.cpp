//===- VulkanFeatureChecks.cpp - device features of element types ---------===//

#include "VulkanFeatureChecks.h"

#include "ejk/Ops/TunableModel.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

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

LogicalResult mlir::ejk::verifyVulkanBufferTypes(Operation *op,
                                                 const TargetInfo &target,
                                                 raw_ostream &reason) {
  if (!target.isVulkan() || target.hasVulkanFeature("int16"))
    return success();
  auto bound = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasStaticShape() && shaped.getNumElements() != 0;
  };
  // An op without output elements gets no dispatch.
  if (llvm::none_of(op->getResultTypes(), bound))
    return success();
  auto check = [&](StringRef kind, unsigned i, Type type) {
    if (!bound(type) || !cast<ShapedType>(type).getElementType().isBF16())
      return success();
    reason << kind << " " << i << " (" << type
           << ") is bf16: bf16 buffers, read as 16-bit integers, need the "
              "device feature 'int16'";
    return failure();
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check("operand", i, type)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check("result", i, type)))
      return failure();
  return success();
}
