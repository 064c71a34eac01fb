//===- TargetInfo.cpp - the ejk.target module attribute -------------------===//

#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

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
  return info;
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
