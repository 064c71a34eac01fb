//===- TargetInfo.h - What config selection knows of a target ---*- C++ -*-===//
//
// The facts about a device that config spaces, heuristics and config
// verifiers depend on. Filled from a device fingerprint by the driver; the
// defaults describe a generic AVX2 CPU and a generic Vulkan 1.1 device.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_TARGETINFO_H
#define EJK_DIALECT_EJK_TARGETINFO_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <string>

namespace mlir::ejk {

/// A compilation target as seen by config selection.
struct TargetInfo {
  enum class Kind { Cpu, Vulkan };

  Kind kind = Kind::Cpu;

  // CPU facts.
  /// Width of the widest SIMD registers, in bits (256 for AVX2, 512 for
  /// AVX-512).
  unsigned vectorBits = 256;
  /// Cores the runtime's thread pool may use.
  unsigned numCores = 1;
  /// Per-core L1 and L2 data cache sizes, in bytes.
  int64_t l1Bytes = 32 * 1024;
  int64_t l2Bytes = 1024 * 1024;

  // Vulkan facts.
  unsigned subgroupSize = 32;
  int64_t sharedMemoryBytes = 32 * 1024;
  unsigned maxWorkgroupInvocations = 1024;
  /// Whether VK_KHR_cooperative_matrix with 16x16x16 f16 -> f32 is present.
  bool hasCooperativeMatrix = false;
  /// The newest SPIR-V version the device takes, as major * 10 + minor
  /// (13 for Vulkan 1.1, 15 for 1.2, 16 for 1.3).
  unsigned spirvVersion = 13;
  /// Largest workgroup along x, y and z.
  std::array<int64_t, 3> maxWorkgroupSize = {1024, 1024, 64};
  /// Streaming multiprocessors (the fingerprint's `sm_count`); 0: unknown.
  unsigned smCount = 0;
  /// Shader features (the runtime's fingerprint names: float16, int16, int8,
  /// int64, float64, storage16, storage8, vulkan_memory_model) and subgroup
  /// operations in compute shaders (subgroup_basic, subgroup_vote,
  /// subgroup_arithmetic, subgroup_ballot, subgroup_shuffle,
  /// subgroup_shuffle_relative, subgroup_clustered, subgroup_quad), and
  /// cooperative_matrix_nv_layout: the device's 16x16 cooperative matrices
  /// spread their elements over a subgroup of 32 as NVIDIA's mma.sync
  /// m16n8k16 fragments do (docs/vulkan-attention.md). Sorted, without
  /// duplicates. Vulkan 1.1 guarantees subgroup_basic only.
  SmallVector<std::string> vulkanFeatures = {"subgroup_basic"};

  /// Whether the Vulkan device has `feature` (a name listed above).
  bool hasVulkanFeature(StringRef feature) const {
    return llvm::is_contained(vulkanFeatures, feature);
  }
  /// Every name `vulkanFeatures` may hold.
  static ArrayRef<StringRef> knownVulkanFeatures();
  /// Sets `vulkanFeatures` from names, sorted and deduplicated. Fails on an
  /// unknown name, which it returns in `unknown`.
  LogicalResult setVulkanFeatures(ArrayRef<std::string> names,
                                  std::string &unknown);

  bool isCpu() const { return kind == Kind::Cpu; }
  bool isVulkan() const { return kind == Kind::Vulkan; }

  /// Lanes of f32 in one SIMD register on the CPU.
  int64_t f32Lanes() const { return vectorBits / 32; }

  static TargetInfo genericCpu() { return TargetInfo(); }
  static TargetInfo genericVulkan() {
    TargetInfo info;
    info.kind = Kind::Vulkan;
    return info;
  }
};

/// The module attribute that records the target a module is compiled for,
/// so every pass after config selection agrees on it.
constexpr StringLiteral kTargetAttrName = "ejk.target";

/// Encodes `info` as a dictionary (kind, vector_bits, num_cores, ...). A
/// Vulkan target also records `spirv_version` ("1.3"), `max_workgroup_size`
/// (array<i64: x, y, z>), `vulkan_features` (array of strings) and, where
/// known, `sm_count`; a CPU target leaves them out.
DictionaryAttr targetInfoToAttr(MLIRContext *context, const TargetInfo &info);

/// Decodes a dictionary made by `targetInfoToAttr`; fails on a malformed
/// one. Vulkan keys that are absent keep the generic Vulkan 1.1 defaults.
FailureOr<TargetInfo> targetInfoFromAttr(DictionaryAttr attr);

/// "1.3" -> 13; nullopt for anything but 1.0 .. 1.6.
std::optional<unsigned> parseSpirvVersion(StringRef text);

/// Reads the `ejk.target` attribute of `op`'s closest enclosing module,
/// emitting an error on `op` when it is missing or malformed.
FailureOr<TargetInfo> getModuleTarget(Operation *op);

} // namespace mlir::ejk

#endif // EJK_DIALECT_EJK_TARGETINFO_H
