//===- VulkanSpirv.cpp - What the runtime reads out of a SPIR-V module ----===//

#include "VulkanSpirv.h"

#include <cstdio>
#include <cstring>

namespace ejk::runtime {

namespace {

// Opcodes, enumerants and decorations from the SPIR-V specification.
constexpr uint32_t kOpExtension = 10;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpVariable = 59;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kExecutionModelGLCompute = 5;
constexpr uint32_t kExecutionModeLocalSize = 17;
constexpr uint32_t kDecorationBinding = 33;
constexpr uint32_t kDecorationDescriptorSet = 34;
constexpr uint32_t kStorageClassPushConstant = 9;

/// The literal string starting at words[begin], bounded by \p end.
std::string literalString(const std::vector<uint32_t> &words, size_t begin,
                          size_t end) {
  std::string text;
  for (size_t i = begin; i < end; ++i)
    for (int byte = 0; byte < 4; ++byte) {
      char c = char((words[i] >> (8 * byte)) & 0xff);
      if (c == '\0')
        return text;
      text += c;
    }
  return text;
}

} // namespace

std::string spirvVersionText(uint32_t version) {
  return std::to_string((version >> 16) & 0xff) + "." +
         std::to_string((version >> 8) & 0xff);
}

const char *spirvCapabilityFeature(uint32_t capability) {
  switch (capability) {
  case 9:
    return "float16";
  case 10:
    return "float64";
  case 11:
    return "int64";
  case 22:
    return "int16";
  case 39:
    return "int8";
  case 61:
    return "subgroup_basic";
  case 62:
    return "subgroup_vote";
  case 63:
    return "subgroup_arithmetic";
  case 64:
    return "subgroup_ballot";
  case 65:
    return "subgroup_shuffle";
  case 66:
    return "subgroup_shuffle_relative";
  case 67:
    return "subgroup_clustered";
  case 68:
    return "subgroup_quad";
  case 4433: // StorageBuffer16BitAccess
    return "storage16";
  case 4448: // StorageBuffer8BitAccess
    return "storage8";
  case 5345: // VulkanMemoryModel
    return "vulkan_memory_model";
  case 6022: // CooperativeMatrixKHR
    return "cooperative_matrix";
  case 5430: // CooperativeMatrixReductionsNV
  case 5431: // CooperativeMatrixConversionsNV
  case 5432: // CooperativeMatrixPerElementOperationsNV
  case 5433: // CooperativeMatrixTensorAddressingNV
  case 5439: // TensorAddressingNV
    return "cooperative_matrix2";
  // The runtime enables VK_NV_cooperative_matrix2 with block loads off (no
  // kernel uses them), so a module declaring them is refused by this name,
  // which no device reports.
  case 5434: // CooperativeMatrixBlockLoadsNV
    return "cooperative_matrix2_block_loads";
  default:
    return nullptr;
  }
}

Status inspectSpirv(const std::vector<char> &bytes, const std::string &origin,
                    SpirvModuleInfo &out) {
  out = SpirvModuleInfo();
  if (bytes.size() % 4 != 0 || bytes.size() < 20)
    return Status::format(origin + " is not SPIR-V: its size (" +
                          std::to_string(bytes.size()) +
                          " bytes) is not a multiple of 4 of at least 20");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  if (words[0] != kSpirvMagic) {
    char found[16];
    std::snprintf(found, sizeof(found), "0x%08x", words[0]);
    return Status::format(origin + " is not SPIR-V: magic number " + found +
                          ", expected 0x07230203 (little-endian)");
  }
  out.version = words[1];

  std::map<uint32_t, std::string> entryIds;
  std::map<uint32_t, std::vector<uint32_t>> localSizes;
  std::map<uint32_t, std::pair<int64_t, int64_t>> decorations;
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size())
      return Status::format(origin + ": SPIR-V instruction at word " +
                            std::to_string(i) +
                            (count == 0 ? " has a word count of 0"
                                        : " runs past the end of the file"));
    size_t end = i + count;
    if (opcode == kOpCapability && count >= 2) {
      out.capabilities.push_back(words[i + 1]);
    } else if (opcode == kOpExtension && count >= 2) {
      out.extensions.push_back(literalString(words, i + 1, end));
    } else if (opcode == kOpEntryPoint && count >= 4) {
      if (words[i + 1] == kExecutionModelGLCompute)
        entryIds[words[i + 2]] = literalString(words, i + 3, end);
    } else if (opcode == kOpExecutionMode && count >= 6 &&
               words[i + 2] == kExecutionModeLocalSize) {
      localSizes[words[i + 1]] = {words[i + 3], words[i + 4], words[i + 5]};
    } else if (opcode == kOpDecorate && count >= 4) {
      auto &slot = decorations.try_emplace(words[i + 1], -1, -1).first->second;
      if (words[i + 2] == kDecorationDescriptorSet)
        slot.first = words[i + 3];
      else if (words[i + 2] == kDecorationBinding)
        slot.second = words[i + 3];
    } else if (opcode == kOpVariable && count >= 4 &&
               words[i + 3] == kStorageClassPushConstant) {
      out.usesPushConstants = true;
    }
    i = end;
  }
  for (const auto &[id, name] : entryIds) {
    auto size = localSizes.find(id);
    out.computeEntryPoints[name] = size == localSizes.end()
                                       ? std::vector<uint32_t>{0, 0, 0}
                                       : size->second;
  }
  for (const auto &[id, slot] : decorations)
    if (slot.first >= 0 || slot.second >= 0)
      out.descriptors.emplace_back(uint32_t(slot.first < 0 ? 0 : slot.first),
                                   uint32_t(slot.second < 0 ? 0 : slot.second));
  return Status::success();
}

} // namespace ejk::runtime
