//===- Manifest.cpp - the artifact manifest -------------------------------===//

#include "Manifest.h"

#include "ejk/Conversion/Passes.h"
#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Driver/HostTensor.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <set>

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

using namespace mlir;
using namespace mlir::ejk;

static FailureOr<nlohmann::json> describeBuffer(Operation *where, Value value,
                                                StringRef role) {
  auto type = cast<MemRefType>(value.getType());
  std::string dtype = dtypeOf(type.getElementType());
  if (dtype.empty())
    return where->emitError("unsupported buffer element type ")
           << type.getElementType();
  nlohmann::json buffer;
  buffer["role"] = role.str();
  buffer["shape"] = type.getShape().vec();
  buffer["dtype"] = dtype;
  return buffer;
}

/// The Vulkan fields of dispatch `callee` (docs/runtime.md).
static LogicalResult addVulkanFields(func::FuncOp callee,
                                     const VulkanManifestInfo &vulkan,
                                     nlohmann::json &dispatch) {
  StringRef symbol = callee.getSymName();
  dispatch["spirv"] = (vulkan.artifactName + "_" + symbol + ".spv").str();
  dispatch["entry_point"] = symbol.str();
  auto size = callee->getAttrOfType<DenseI64ArrayAttr>("ejk.workgroup_size");
  if (!size || size.size() != 3)
    return callee.emitError("dispatch '")
           << symbol << "' has no 'ejk.workgroup_size' of 3 sizes";
  dispatch["workgroup_size"] = size.asArrayRef().vec();
  // What the tiling pass declared, or what the kernel allocates in
  // workgroup memory when that is more (i1 takes a byte).
  int64_t sharedBytes = countWorkgroupMemoryBytes(callee);
  if (auto shared =
          callee->getAttrOfType<IntegerAttr>("ejk.shared_memory_bytes"))
    sharedBytes = std::max(sharedBytes, shared.getInt());
  dispatch["shared_memory_bytes"] = sharedBytes;
  dispatch["push_constants"] = nlohmann::json::array();
  std::set<std::string> required;
  if (auto attr = callee->getAttrOfType<ArrayAttr>("ejk.requires"))
    for (Attribute feature : attr)
      if (auto name = dyn_cast<StringAttr>(feature))
        required.insert(name.str());
  auto used = vulkan.features.find(symbol);
  if (used != vulkan.features.end())
    required.insert(used->second.begin(), used->second.end());
  dispatch["requires"] =
      std::vector<std::string>(required.begin(), required.end());
  if (vulkan.subgroupSize)
    dispatch["subgroup_size"] = vulkan.subgroupSize;
  return success();
}

FailureOr<std::string>
mlir::ejk::buildManifest(ModuleOp tiled, StringRef library, StringRef target,
                         const VulkanManifestInfo *vulkan) {
  nlohmann::json manifest;
  manifest["format"] = "ejk-artifact";
  manifest["version"] = 1;
  manifest["target"] = target.str();
  manifest["compiler_version"] = "0.1.0";
  if (!vulkan)
    manifest["library"] = library.str();
  manifest["entries"] = nlohmann::json::array();

  for (auto entry : tiled.getOps<func::FuncOp>()) {
    if (!entry->hasAttr(kEntryAttrName))
      continue;
    auto numInputs = entry->getAttrOfType<IntegerAttr>(kNumInputsAttrName);
    if (!numInputs)
      return entry.emitError("entry has no '") << kNumInputsAttrName << "'";
    DenseMap<Value, int64_t> indexOf;
    nlohmann::json buffers = nlohmann::json::array();
    for (BlockArgument arg : entry.getArguments()) {
      StringRef role =
          arg.getArgNumber() < numInputs.getInt() ? "input" : "output";
      FailureOr<nlohmann::json> buffer = describeBuffer(entry, arg, role);
      if (failed(buffer))
        return failure();
      indexOf[arg] = buffers.size();
      buffers.push_back(*buffer);
    }
    nlohmann::json dispatches = nlohmann::json::array();
    for (Operation &op : entry.getBody().front()) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        FailureOr<nlohmann::json> buffer =
            describeBuffer(alloc, alloc.getResult(), "temporary");
        if (failed(buffer))
          return failure();
        indexOf[alloc.getResult()] = buffers.size();
        buffers.push_back(*buffer);
        continue;
      }
      auto call = dyn_cast<DispatchOp>(op);
      if (!call)
        continue;
      auto callee = tiled.lookupSymbol<func::FuncOp>(call.getCallee());
      auto grid = callee
                      ? callee->getAttrOfType<DenseI64ArrayAttr>(kGridAttrName)
                      : DenseI64ArrayAttr();
      if (!grid || grid.size() != 3)
        return call.emitOpError("calls a dispatch that was not tiled");
      nlohmann::json dispatch;
      dispatch["symbol"] = call.getCallee().str();
      dispatch["grid"] = grid.asArrayRef().vec();
      std::vector<int64_t> bindings;
      for (Value buffer : call.getBuffers())
        bindings.push_back(indexOf.lookup(buffer));
      dispatch["bindings"] = bindings;
      auto flops = callee->getAttrOfType<IntegerAttr>(kFlopsAttrName);
      auto bytes = callee->getAttrOfType<IntegerAttr>(kBytesAttrName);
      dispatch["flops"] = flops ? flops.getInt() : 0;
      dispatch["bytes"] = bytes ? bytes.getInt() : 0;
      if (vulkan && failed(addVulkanFields(callee, *vulkan, dispatch)))
        return failure();
      dispatches.push_back(dispatch);
    }
    nlohmann::json item;
    item["name"] = entry.getSymName().str();
    item["buffers"] = buffers;
    item["dispatches"] = dispatches;
    manifest["entries"].push_back(item);
  }
  return manifest.dump(2);
}
