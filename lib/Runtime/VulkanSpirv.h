//===- VulkanSpirv.h - What the runtime reads out of a SPIR-V module -*- C++
//-*-//
//
// Before a driver sees a kernel, the runtime walks its SPIR-V: the header
// (magic, version), the capabilities (each mapped to the device feature it
// needs), the GLCompute entry points, their LocalSize, the descriptor
// decorations and whether it uses push constants. A module the device cannot
// run then fails with a message naming what is missing, instead of crashing
// or confusing the driver. It is a structural walk, not a validator
// (spirv-val does that in the compiler's tests).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANSPIRV_H
#define EJK_LIB_RUNTIME_VULKANSPIRV_H

#include "Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ejk::runtime {

constexpr uint32_t kSpirvMagic = 0x07230203;

struct SpirvModuleInfo {
  /// The header's version word (0x00010300 for SPIR-V 1.3).
  uint32_t version = 0;
  std::vector<uint32_t> capabilities;
  std::vector<std::string> extensions;
  /// GLCompute entry points: name -> LocalSize (all 0 when the module gives
  /// it some other way, e.g. LocalSizeId).
  std::map<std::string, std::vector<uint32_t>> computeEntryPoints;
  /// (set, binding) of every decorated resource.
  std::vector<std::pair<uint32_t, uint32_t>> descriptors;
  bool usesPushConstants = false;
};

/// Reads \p bytes as SPIR-V. EJK_ERROR_FORMAT, starting with \p origin, for
/// a size that is not a positive multiple of 4 words of header, a wrong
/// magic number or a truncated instruction.
Status inspectSpirv(const std::vector<char> &bytes, const std::string &origin,
                    SpirvModuleInfo &out);

/// The "requires" name of the device feature capability \p capability needs
/// ("float16", "cooperative_matrix", ...); nullptr when the runtime does not
/// check that capability.
const char *spirvCapabilityFeature(uint32_t capability);

/// "1.3" for a SPIR-V version word.
std::string spirvVersionText(uint32_t version);

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANSPIRV_H
