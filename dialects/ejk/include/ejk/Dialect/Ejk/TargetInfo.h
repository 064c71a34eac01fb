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

#include <cstdint>

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

/// Encodes `info` as a dictionary (kind, vector_bits, num_cores, ...).
DictionaryAttr targetInfoToAttr(MLIRContext *context, const TargetInfo &info);

/// Decodes a dictionary made by `targetInfoToAttr`; fails on a malformed
/// one.
FailureOr<TargetInfo> targetInfoFromAttr(DictionaryAttr attr);

/// Reads the `ejk.target` attribute of `op`'s closest enclosing module,
/// emitting an error on `op` when it is missing or malformed.
FailureOr<TargetInfo> getModuleTarget(Operation *op);

} // namespace mlir::ejk

#endif // EJK_DIALECT_EJK_TARGETINFO_H
