//===- TargetInfo.cpp - the ejk.target module attribute -------------------===//

#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <limits>
#include <type_traits>

using namespace mlir;
using namespace mlir::ejk;

DictionaryAttr mlir::ejk::targetInfoToAttr(MLIRContext *context,
                                           const TargetInfo &info) {
  Builder b(context);
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("kind", b.getStringAttr(info.isCpu() ? "cpu" : "vulkan")),
      b.getNamedAttr("vector_bits", b.getI64IntegerAttr(info.vectorBits)),
      b.getNamedAttr("num_cores", b.getI64IntegerAttr(info.numCores)),
      b.getNamedAttr("l1_bytes", b.getI64IntegerAttr(info.l1Bytes)),
      b.getNamedAttr("l2_bytes", b.getI64IntegerAttr(info.l2Bytes)),
      b.getNamedAttr("subgroup_size", b.getI64IntegerAttr(info.subgroupSize)),
      b.getNamedAttr("shared_memory_bytes",
                     b.getI64IntegerAttr(info.sharedMemoryBytes)),
      b.getNamedAttr("max_workgroup_invocations",
                     b.getI64IntegerAttr(info.maxWorkgroupInvocations)),
      b.getNamedAttr("cooperative_matrix",
                     b.getBoolAttr(info.hasCooperativeMatrix)),
  };
  if (info.isVulkan()) {
    entries.push_back(b.getNamedAttr(
        "spirv_version",
        b.getStringAttr(std::to_string(info.spirvVersion / 10) + "." +
                        std::to_string(info.spirvVersion % 10))));
    entries.push_back(b.getNamedAttr(
        "max_workgroup_size",
        b.getDenseI64ArrayAttr(ArrayRef<int64_t>(info.maxWorkgroupSize))));
    SmallVector<Attribute> features;
    for (const std::string &feature : info.vulkanFeatures)
      features.push_back(b.getStringAttr(feature));
    entries.push_back(
        b.getNamedAttr("vulkan_features", b.getArrayAttr(features)));
    if (info.smCount)
      entries.push_back(
          b.getNamedAttr("sm_count", b.getI64IntegerAttr(info.smCount)));
  }
  return b.getDictionaryAttr(entries);
}

FailureOr<TargetInfo> mlir::ejk::targetInfoFromAttr(DictionaryAttr attr) {
  if (!attr)
    return failure();
  TargetInfo info;
  auto kind = dyn_cast_or_null<StringAttr>(attr.get("kind"));
  if (!kind || (kind.getValue() != "cpu" && kind.getValue() != "vulkan"))
    return failure();
  info.kind = kind.getValue() == "cpu" ? TargetInfo::Kind::Cpu
                                       : TargetInfo::Kind::Vulkan;
  auto readInt = [&](StringRef name, auto &field) -> bool {
    auto value = dyn_cast_or_null<IntegerAttr>(attr.get(name));
    if (!value || value.getInt() < 1 ||
        static_cast<uint64_t>(value.getInt()) >
            std::numeric_limits<
                std::remove_reference_t<decltype(field)>>::max())
      return false;
    field = value.getInt();
    return true;
  };
  auto coop = dyn_cast_or_null<BoolAttr>(attr.get("cooperative_matrix"));
  if (!readInt("vector_bits", info.vectorBits) ||
      !readInt("num_cores", info.numCores) ||
      !readInt("l1_bytes", info.l1Bytes) ||
      !readInt("l2_bytes", info.l2Bytes) ||
      !readInt("subgroup_size", info.subgroupSize) ||
      !readInt("shared_memory_bytes", info.sharedMemoryBytes) ||
      !readInt("max_workgroup_invocations", info.maxWorkgroupInvocations) ||
      !coop)
    return failure();
  info.hasCooperativeMatrix = coop.getValue();
  if (info.isCpu())
    return info;
  if (Attribute version = attr.get("spirv_version")) {
    auto text = dyn_cast<StringAttr>(version);
    std::optional<unsigned> parsed =
        text ? parseSpirvVersion(text.getValue()) : std::nullopt;
    if (!parsed)
      return failure();
    info.spirvVersion = *parsed;
  }
  if (Attribute size = attr.get("max_workgroup_size")) {
    auto array = dyn_cast<DenseI64ArrayAttr>(size);
    if (!array || array.size() != 3 ||
        llvm::any_of(array.asArrayRef(), [](int64_t v) { return v < 1; }))
      return failure();
    llvm::copy(array.asArrayRef(), info.maxWorkgroupSize.begin());
  }
  if (Attribute features = attr.get("vulkan_features")) {
    auto array = dyn_cast<ArrayAttr>(features);
    if (!array)
      return failure();
    SmallVector<std::string> names;
    for (Attribute name : array) {
      auto text = dyn_cast<StringAttr>(name);
      if (!text)
        return failure();
      names.push_back(text.str());
    }
    std::string unknown;
    if (failed(info.setVulkanFeatures(names, unknown)))
      return failure();
  }
  if (attr.get("sm_count") && !readInt("sm_count", info.smCount))
    return failure();
  return info;
}

std::optional<unsigned> mlir::ejk::parseSpirvVersion(StringRef text) {
  auto [major, minor] = text.split('.');
  unsigned majorValue, minorValue;
  if (major.getAsInteger(10, majorValue) ||
      minor.getAsInteger(10, minorValue) || majorValue != 1 || minorValue > 6)
    return std::nullopt;
  return majorValue * 10 + minorValue;
}

ArrayRef<StringRef> TargetInfo::knownVulkanFeatures() {
  static const StringRef names[] = {"cooperative_matrix2",
                                    "cooperative_matrix_bf16",
                                    "cooperative_matrix_nv_layout",
                                    "float16",
                                    "float64",
                                    "int16",
                                    "int64",
                                    "int8",
                                    "storage16",
                                    "storage8",
                                    "subgroup_arithmetic",
                                    "subgroup_ballot",
                                    "subgroup_basic",
                                    "subgroup_clustered",
                                    "subgroup_quad",
                                    "subgroup_shuffle",
                                    "subgroup_shuffle_relative",
                                    "subgroup_vote",
                                    "vulkan_memory_model"};
  return names;
}

LogicalResult TargetInfo::setVulkanFeatures(ArrayRef<std::string> names,
                                            std::string &unknown) {
  SmallVector<std::string> sorted;
  for (const std::string &name : names) {
    if (!llvm::is_contained(knownVulkanFeatures(), name)) {
      unknown = name;
      return failure();
    }
    sorted.push_back(name);
  }
  llvm::sort(sorted);
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  vulkanFeatures = std::move(sorted);
  return success();
}

FailureOr<TargetInfo> mlir::ejk::getModuleTarget(Operation *op) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  auto attr = module ? module->getAttrOfType<DictionaryAttr>(kTargetAttrName)
                     : DictionaryAttr();
  if (!attr)
    return op->emitError("no '")
           << kTargetAttrName
           << "' attribute on the module; run ejk-select-configs first";
  FailureOr<TargetInfo> info = targetInfoFromAttr(attr);
  if (failed(info))
    return op->emitError("malformed '")
           << kTargetAttrName << "' attribute " << attr;
  return info;
}
