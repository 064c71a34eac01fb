//===- CoopInOrderLayout.cpp - the in-order cooperative kernel's layout ---===//
//
// Which gla problems and configs the in-order cooperative kernel takes
// (CoopInOrder.h), and the layout it derives: tiles, per-subgroup matrix
// slots, strides and shared memory. The kernel itself is CoopInOrder.cpp.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Linear/Vulkan/CoopInOrder.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

std::optional<VulkanGlaCoopLayout> VulkanGlaCoopLayout::compute(
    const GlaProblem &p, Type element, int64_t chunk, int64_t blockV,
    int64_t form, const TargetInfo &target, llvm::raw_ostream &reason) {
  std::string what = "the in-order cooperative kernel ('chunk_parallel' = 0, "
                     "'cooperative' = " +
                     std::to_string(form) + ")";
  if (p.hasG || p.hasGk || p.hasGv) {
    reason << what
           << " takes one constant decay per head or none; per-step gates "
              "need '"
           << GlaConfig::kChunkParallel << "' = 1 or '"
           << GlaConfig::kCooperative << "' = 0";
    return std::nullopt;
  }
  if (!target.hasCooperativeMatrix) {
    reason << "'" << GlaConfig::kCooperative
           << "' needs a device with 16x16x16 f16 cooperative matrices";
    return std::nullopt;
  }
  if (element.isBF16() && !target.hasVulkanFeature("cooperative_matrix_bf16")) {
    reason << what
           << " multiplies bf16 inputs on bf16 matrices, which the device "
              "lacks ('cooperative_matrix_bf16')";
    return std::nullopt;
  }
  if (p.dimK % kMatrix != 0) {
    reason << what << " stages head_dim_k (" << p.dimK
           << ") in whole 16x16 tiles: a multiple of 16";
    return std::nullopt;
  }
  if (chunk < kMatrix || chunk > 64 || chunk % kMatrix != 0) {
    reason << "'" << GlaConfig::kChunkSize << "' (" << chunk
           << ") must be a multiple of 16 in [16, 64] with " << what;
    return std::nullopt;
  }
  if (blockV < kMatrix || blockV % kMatrix != 0) {
    reason << "'" << GlaConfig::kBlockV << "' (" << blockV
           << ") must be a positive multiple of 16 with " << what;
    return std::nullopt;
  }
  VulkanGlaCoopLayout l;
  l.subgroupConversions = form == 2;
  l.chunk = chunk;
  l.blockV = blockV;
  l.subgroupSize = std::max<unsigned>(1, target.subgroupSize);
  if (kThreads > target.maxWorkgroupInvocations ||
      kThreads % l.subgroupSize != 0) {
    reason << what << " runs " << kThreads
           << " threads per workgroup in whole subgroups; the device allows "
           << target.maxWorkgroupInvocations << " in subgroups of "
           << l.subgroupSize;
    return std::nullopt;
  }
  l.kTiles = p.dimK / kMatrix;
  l.rowTiles = chunk / kMatrix;
  l.colTiles = blockV / kMatrix;
  int64_t n = l.subgroups();
  l.stateSlots = ceilDiv(l.stateTiles(), n);
  l.outputSlots = ceilDiv(l.outputTiles(), n);
  l.scoreSlots = ceilDiv(l.scoreTiles(), n);
  // The output tiles count twice: their row decays D are matrices too.
  int64_t matrices = l.stateSlots + 2 * l.outputSlots + l.scoreSlots;
  if (matrices > kMaxMatrices) {
    reason << what << " would keep " << matrices
           << " matrices per subgroup (at most " << kMaxMatrices
           << "): smaller '" << GlaConfig::kBlockV << "'";
    return std::nullopt;
  }
  // q and k, v and w v, S16 and A16 in f16 elements; the f32 stage.
  int64_t halves = 2 * chunk * l.keyStride() + 2 * chunk * l.valueStride() +
                   p.dimK * l.valueStride() + chunk * l.scoreStride();
  l.sharedBytes = 2 * halves + 4 * l.floatStage();
  if (l.sharedBytes > target.sharedMemoryBytes) {
    reason << what << " stages " << l.sharedBytes
           << " bytes of shared memory, the device has "
           << target.sharedMemoryBytes << ": smaller '" << GlaConfig::kChunkSize
           << "' or '" << GlaConfig::kBlockV << "'";
    return std::nullopt;
  }
  return l;
}
