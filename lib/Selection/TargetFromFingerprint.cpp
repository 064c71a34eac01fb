//===- TargetFromFingerprint.cpp - TargetInfo from a device fingerprint ---===//
//
// Compiling for a device that is elsewhere starts from its saved
// fingerprint: the facts config selection needs are read from its fields.
//
//===----------------------------------------------------------------------===//

#include "ejk/Selection/Selection.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::ejk;

/// A positive plain integer: a count (SMs, cores, lanes, bits).
static std::optional<int64_t> parseCount(StringRef text) {
  int64_t value;
  if (text.getAsInteger(10, value) || value <= 0)
    return std::nullopt;
  return value;
}

/// "48K", "1024K", "32M", "1G" or a plain byte count; a size of more than
/// INT64_MAX bytes is no size.
static std::optional<int64_t> parseSize(StringRef text) {
  int64_t scale = 1;
  if (text.ends_with("K") || text.ends_with("k"))
    scale = 1024;
  else if (text.ends_with("M"))
    scale = 1024 * 1024;
  else if (text.ends_with("G"))
    scale = 1024 * 1024 * 1024;
  if (scale != 1)
    text = text.drop_back();
  std::optional<int64_t> value = parseCount(text);
  if (!value || *value > std::numeric_limits<int64_t>::max() / scale)
    return std::nullopt;
  return *value * scale;
}

FailureOr<TargetInfo>
mlir::ejk::targetInfoFromFingerprint(const ::ejk::DeviceFingerprint &fp,
                                     std::string &error) {
  TargetInfo info = fp.kind == "vulkan" ? TargetInfo::genericVulkan()
                                        : TargetInfo::genericCpu();
  if (fp.kind != "cpu" && fp.kind != "vulkan") {
    error = "fingerprint kind '" + fp.kind + "' is not cpu or vulkan";
    return failure();
  }
  auto bad = [&](StringRef field) {
    error = ("fingerprint field '" + field + "' has an invalid value '" +
             fp.get(field.str()) + "'")
                .str();
    return failure();
  };
  // Reads an optional positive field, parsed by `parse`, into `out`; a
  // value `out` cannot hold is refused, not truncated.
  auto read = [&](StringRef field, auto &out,
                  std::optional<int64_t> (*parse)(StringRef)) {
    std::string text = fp.get(field.str());
    if (text.empty())
      return success();
    std::optional<int64_t> value = parse(text);
    using Out = std::remove_reference_t<decltype(out)>;
    if (!value || !llvm::isUIntN(std::numeric_limits<Out>::digits, *value))
      return bad(field);
    out = static_cast<Out>(*value);
    return success();
  };
  auto readCount = [&](StringRef field, auto &out) {
    return read(field, out, parseCount);
  };
  auto readSize = [&](StringRef field, auto &out) {
    return read(field, out, parseSize);
  };
  if (info.isCpu()) {
    if (failed(readCount("vector_bits", info.vectorBits)) ||
        failed(readCount("cores", info.numCores)) ||
        failed(readSize("l1_cache", info.l1Bytes)) ||
        failed(readSize("l2_cache", info.l2Bytes)))
      return failure();
    if (info.vectorBits % 128 != 0)
      return bad("vector_bits");
    return info;
  }
  if (failed(readCount("subgroup_size", info.subgroupSize)) ||
      failed(readSize("max_shared_memory", info.sharedMemoryBytes)) ||
      failed(readCount("max_workgroup_invocations",
                       info.maxWorkgroupInvocations)) ||
      failed(readCount("sm_count", info.smCount)))
    return failure();
  if (std::string version = fp.get("spirv_version"); !version.empty()) {
    std::optional<unsigned> parsed = parseSpirvVersion(version);
    if (!parsed)
      return bad("spirv_version");
    info.spirvVersion = *parsed;
  }
  if (std::string size = fp.get("max_workgroup_size"); !size.empty()) {
    SmallVector<StringRef> parts;
    StringRef(size).split(parts, ',');
    if (parts.size() != 3)
      return bad("max_workgroup_size");
    for (auto [i, part] : llvm::enumerate(parts))
      if (part.getAsInteger(10, info.maxWorkgroupSize[i]) ||
          info.maxWorkgroupSize[i] < 1)
        return bad("max_workgroup_size");
  }
  // Shader features are flags "0"/"1"; subgroup operations a list.
  SmallVector<std::string> features;
  for (StringRef flag : {"float16", "float64", "int8", "int16", "int64",
                         "storage16", "storage8", "vulkan_memory_model"}) {
    std::string value = fp.get(flag.str());
    if (value.empty() || value == "0")
      continue;
    if (value != "1")
      return bad(flag);
    features.push_back(flag.str());
  }
  if (std::string operations = fp.get("subgroup_operations");
      !operations.empty() || fp.fields.count("subgroup_operations")) {
    SmallVector<StringRef> names;
    StringRef(operations).split(names, ',', -1, /*KeepEmpty=*/false);
    // Operations ejk has no use for (newer Vulkan bits) are left out.
    for (StringRef name : names)
      if (llvm::is_contained(TargetInfo::knownVulkanFeatures(),
                             ("subgroup_" + name).str()))
        features.push_back(("subgroup_" + name).str());
  } else {
    features.push_back("subgroup_basic");
  }
  std::string unknown;
  if (failed(info.setVulkanFeatures(features, unknown)))
    return bad("subgroup_operations");
  // Cooperative matrices: the extension and the one shape the kernels use.
  std::string coop = fp.get("cooperative_matrix");
  if (!coop.empty() && coop != "0" && coop != "1")
    return bad("cooperative_matrix");
  // The split pieces point into `shapeList`, which must outlive them.
  std::string shapeList = fp.get("cooperative_matrix_shapes");
  SmallVector<StringRef> shapes;
  StringRef(shapeList).split(shapes, ',', -1, /*KeepEmpty=*/false);
  // The kernels' matrix ops lower from SPIR-V 1.6 on (MLIR's SPIR-V
  // dialect): a device below it (Vulkan 1.2 with the extension) runs the
  // portable kernels.
  info.hasCooperativeMatrix =
      coop == "1" && llvm::is_contained(shapes, "16x16x16:f16*f16+f32=f32") &&
      info.spirvVersion >= 16;
  // bf16 operand matrices (VK_KHR_shader_bfloat16): derived from the shape
  // list, as the NVIDIA layout below, so that fingerprints and the keys of
  // tuning databases stay what they were.
  if (info.hasCooperativeMatrix &&
      llvm::is_contained(shapes, "16x16x16:bf16*bf16+f32=f32")) {
    features = info.vulkanFeatures;
    features.push_back("cooperative_matrix_bf16");
    if (failed(info.setVulkanFeatures(features, unknown)))
      return bad("cooperative_matrix_shapes");
  }
  // NVIDIA's drivers map these matrices onto mma.sync fragments, whose
  // element layout the register-softmax attention kernel relies on.
  if (info.hasCooperativeMatrix && info.subgroupSize == 32 &&
      StringRef(fp.get("vendor_id")).equals_insensitive("0x10de")) {
    features = info.vulkanFeatures;
    features.push_back("cooperative_matrix_nv_layout");
    if (failed(info.setVulkanFeatures(features, unknown)))
      return bad("vendor_id");
  }
  // VK_NV_cooperative_matrix2 (workgroup-scope matrices, reductions,
  // per-element operations, tensor addressing): a line the runtime writes
  // only where the device has it, on top of cooperative matrices.
  std::string coop2 = fp.get("cooperative_matrix2");
  if (!coop2.empty() && coop2 != "0" && coop2 != "1")
    return bad("cooperative_matrix2");
  if (info.hasCooperativeMatrix && coop2 == "1") {
    features = info.vulkanFeatures;
    features.push_back("cooperative_matrix2");
    if (failed(info.setVulkanFeatures(features, unknown)))
      return bad("cooperative_matrix2");
  }
  return info;
}
