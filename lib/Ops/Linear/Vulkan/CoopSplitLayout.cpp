//===- CoopSplitLayout.cpp - the split kernel's layout rules --------------===//
//
// VulkanGlaSplitLayout::compute (CoopSplit.h): which problems the split
// cooperative kernel takes, its V and key blocks, tiles per subgroup and
// shared memory.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Linear/Vulkan/CoopSplit.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

std::optional<VulkanGlaSplitLayout>
VulkanGlaSplitLayout::compute(const GlaProblem &p, Type element, int64_t chunk,
                              int64_t blockV, const TargetInfo &target,
                              llvm::raw_ostream &reason) {
  const char *what = "the split cooperative kernel ('chunk_parallel' = 1, "
                     "'cooperative' = 3)";
  if (p.hasG || p.hasGk || p.hasGv) {
    reason << what
           << " takes one constant decay per head or none; per-step gates "
              "need '"
           << GlaConfig::kCooperative << "' = 0, 1 or 2";
    return std::nullopt;
  }
  if (p.packed || p.reverse) {
    reason << what
           << " reads batch rows forward only (no cu_seqlens, no reverse)";
    return std::nullopt;
  }
  if (!target.hasCooperativeMatrix ||
      (element.isBF16() &&
       !target.hasVulkanFeature("cooperative_matrix_bf16")) ||
      !target.hasVulkanFeature("int16") || target.subgroupSize != 32) {
    reason << what
           << " needs cooperative matrices (bf16 ones for bf16 inputs, "
              "'cooperative_matrix_bf16'), 'int16' and subgroups of 32";
    return std::nullopt;
  }
  constexpr int64_t t = kMatrix;
  if (chunk < t || chunk > 64 || chunk % t != 0 || p.seq < 1 ||
      p.seq % chunk != 0) {
    reason << what << " takes '" << GlaConfig::kChunkSize
           << "' a multiple of 16 in [16, 64] that divides the sequence ("
           << p.seq << ")";
    return std::nullopt;
  }
  VulkanGlaSplitLayout l;
  l.chunk = chunk;
  l.blockV = blockV;
  l.subgroupSize = target.subgroupSize;
  int64_t n = l.subgroups();
  l.kTiles = p.dimK / t;
  l.rowTiles = chunk / t;
  l.stateColTiles = blockV / t;
  // The outputs' V block: the widest of at most 128 columns dividing
  // head_dim_v whose tiles deal evenly to the subgroups (each owns one V
  // tile and every n / colTiles-th row).
  for (int64_t width = 128; width >= t; width /= 2) {
    int64_t cols = width / t;
    if (p.dimV % width == 0 && n % cols == 0 && (l.rowTiles * cols) % n == 0) {
      l.outBlockV = width;
      break;
    }
  }
  // The rules are those of every key on 256 threads (the state pass's
  // blocks of 64 keys below are chosen only where they pass too).
  l.blockK = p.dimK;
  l.stateThreads = kThreads;
  l.stateKTiles = l.kTiles;
  if (p.dimK % t != 0 || p.dimV % t != 0 || blockV < t || blockV % t != 0 ||
      p.dimV % blockV != 0 || l.stateTiles() % n != 0 || !l.outBlockV ||
      (l.stateTiles() / n % l.stateColTiles != 0 &&
       l.stateColTiles % (l.stateTiles() / n) != 0)) {
    reason << what << " takes head dims that are multiples of 16, '"
           << GlaConfig::kBlockV
           << "' a multiple of 16 that divides head_dim_v with the state's "
              "tiles a whole number per subgroup, and an output block whose "
              "tiles deal evenly to the subgroups";
    return std::nullopt;
  }
  l.outColTiles = l.outBlockV / t;
  l.stateSlots = l.stateTiles() / n;
  l.outputSlots = l.rowTiles * l.outColTiles / n;
  l.scoreSlots = ceilDiv(l.scoreTiles(), n);
  int64_t stateMatrices = l.stateSlots + l.keyRows() * l.rowTiles;
  int64_t outputMatrices = l.outputSlots + l.scoreSlots;
  std::optional<int64_t> slots = checkedProduct({p.batch, p.seq / chunk});
  std::optional<int64_t> stateElements;
  if (slots)
    stateElements = checkedProduct({*slots, p.heads, p.dimK, p.dimV});
  if (stateMatrices > kMaxMatrices || outputMatrices > kMaxMatrices || !slots ||
      *slots > 65535 || !stateElements ||
      *stateElements >= (int64_t(1) << 31)) {
    auto count = [&](std::optional<int64_t> n) -> llvm::raw_ostream & {
      return n ? reason << *n : reason << "more than 2^63";
    };
    reason << what << " would keep " << std::max(stateMatrices, outputMatrices)
           << " matrices per subgroup (at most " << kMaxMatrices << "), ";
    count(slots) << " chunk workgroups (at most 65535) and ";
    count(stateElements) << " state elements (under 2^31)";
    return std::nullopt;
  }
  int64_t tile = t * t;
  // The states: each subgroup's tile as words and (for initial or final
  // states) as floats, the key and the w V stages. The outputs: the tile
  // stage, the F and D tables, the A stage and the query stage (the values
  // later over it).
  l.stateSharedBytes =
      2 * 4 * n * tile + 2 * chunk * (l.keyStride() + l.valueStride());
  int64_t queryStage = std::max(l.keyStride(), l.outValueStride());
  l.outputSharedBytes = 4 * n * tile + 4 * 2 * l.rowTiles * tile +
                        2 * chunk * (l.scoreStride() + queryStage);
  int64_t shared = std::max(l.stateSharedBytes, l.outputSharedBytes);
  if (shared > target.sharedMemoryBytes) {
    reason << what << " stages " << shared
           << " bytes of shared memory, the device has "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  // The outputs stage the keys where they fit (the tile stage, three table
  // tiles, the key stage with A later over it, the query stage with the
  // values later over it; H200, session 19: outputs 1740 us against 2573
  // with K^T from global memory at fla's simple-gla shape).
  int64_t stagedKeys =
      4 * n * tile + 4 * 3 * tile +
      2 * chunk * (std::max(l.keyStride(), l.scoreStride()) + queryStage);
  if (stagedKeys <= target.sharedMemoryBytes) {
    l.stageKeys = true;
    l.outputSharedBytes = stagedKeys;
  }
  // The state pass takes blocks of 64 keys on 128 threads where they deal
  // evenly too (fla's state blocks; H200, session 19: 1115 us against 1169
  // with every key on 256 threads at fla's simple-gla shape).
  constexpr int64_t keyBlock = 64;
  int64_t keyTiles = keyBlock / t, ns = kKeyBlockThreads / l.subgroupSize;
  int64_t tiles = keyTiles * l.stateColTiles;
  int64_t perSubgroup = tiles / ns;
  if (p.dimK % keyBlock == 0 && tiles % ns == 0 &&
      (perSubgroup % l.stateColTiles == 0 ||
       l.stateColTiles % perSubgroup == 0) &&
      perSubgroup + std::max<int64_t>(1, perSubgroup / l.stateColTiles) *
                        l.rowTiles <=
          kMaxMatrices) {
    l.blockK = keyBlock;
    l.stateThreads = kKeyBlockThreads;
    l.stateKTiles = keyTiles;
    l.stateSlots = perSubgroup;
    l.stateSharedBytes =
        2 * 4 * ns * tile + 2 * chunk * (l.stateKeyStride() + l.valueStride());
  }
  return l;
}
