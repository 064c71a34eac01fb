//===- Layout.cpp - Vulkan layouts of the grouped matmuls -----------------===//

#include "Moe/Vulkan/Layout.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::ejk;

std::optional<MoeVulkanLayout> MoeVulkanLayout::compute(
    int64_t tileM, int64_t tileN, int64_t step, int64_t numSubgroups,
    int64_t numStages, bool cooperative, GemmOperandOrder order,
    int64_t numGroups, const MoeVulkanLimits &limits,
    const char *const names[3], llvm::raw_ostream &reason) {
  const char *mName = names[0], *nName = names[1], *stepName = names[2];
  if (tileM < 1 || tileN < 1 || step < 1 || numSubgroups < 1) {
    reason << "'" << mName << "', '" << nName << "', '" << stepName
           << "' and 'num_subgroups' must be positive";
    return std::nullopt;
  }
  if (numStages < 0 || numStages > 2) {
    reason << "'num_stages' (" << numStages << ") must be 1 or 2";
    return std::nullopt;
  }
  if (numStages == 2 && !cooperative) {
    reason << "'num_stages' 2 applies to the cooperative-matrix path only";
    return std::nullopt;
  }
  if (!llvm::isPowerOf2_64(numSubgroups)) {
    reason << "'num_subgroups' (" << numSubgroups << ") must be a power of two";
    return std::nullopt;
  }
  // Every block is staged or spread over threads: one beyond the limits can
  // never fit, and rejecting it first keeps the products below small.
  if (numSubgroups > limits.maxInvocations || tileM > limits.sharedBytes ||
      tileN > limits.sharedBytes || step > limits.sharedBytes) {
    reason << "'" << mName << "' (" << tileM << "), '" << nName << "' ("
           << tileN << "), '" << stepName << "' (" << step
           << ") or 'num_subgroups' (" << numSubgroups
           << ") exceeds the device's " << limits.maxInvocations
           << " invocations or " << limits.sharedBytes
           << " bytes of shared memory per workgroup";
    return std::nullopt;
  }
  MoeVulkanLayout l;
  l.cooperative = cooperative;
  l.tileM = tileM;
  l.tileN = tileN;
  l.step = step;
  l.numSubgroups = numSubgroups;
  l.subgroupSize = limits.subgroupSize;
  l.threads = numSubgroups * limits.subgroupSize;
  l.order = order;
  if (l.threads > limits.maxInvocations) {
    reason << numSubgroups << " subgroups of " << limits.subgroupSize
           << " exceed " << limits.maxInvocations
           << " invocations per workgroup";
    return std::nullopt;
  }
  l.scanElements = numGroups + 1 + l.threads + 3;
  int64_t stageBytes = 0;
  if (cooperative) {
    if (tileM % kTile || tileN % kTile || step % kTile) {
      reason << "the cooperative-matrix path needs '" << mName << "' (" << tileM
             << "), '" << nName << "' (" << tileN << ") and '" << stepName
             << "' (" << step << ") to be multiples of " << kTile;
      return std::nullopt;
    }
    // The split of the subgroups over the tile that loads the fewest
    // matrices per step.
    for (int64_t sn = 1; sn <= numSubgroups; sn *= 2) {
      int64_t sm = numSubgroups / sn;
      if ((tileN / kTile) % sn || (tileM / kTile) % sm)
        continue;
      int64_t tm = tileM / kTile / sm, tn = tileN / kTile / sn;
      if (l.subgroupsN == 0 || tm + tn < l.tilesM + l.tilesN) {
        l.subgroupsM = sm;
        l.subgroupsN = sn;
        l.tilesM = tm;
        l.tilesN = tn;
      }
    }
    if (l.subgroupsN == 0) {
      reason << numSubgroups << " subgroups cannot split a " << tileM << " x "
             << tileN << " tile into whole 16x16 matrices";
      return std::nullopt;
    }
    if (l.tilesM * l.tilesN > kMaxMatrices) {
      reason << "each subgroup would keep " << l.tilesM * l.tilesN
             << " 16x16 accumulators (at most " << kMaxMatrices
             << "); use more subgroups or smaller blocks";
      return std::nullopt;
    }
    // One stage unless the config says: the H100 ran the bench problem's
    // 128 x 128 x 32 tiles in 0.51 ms with one and 0.80 ms with two, at the
    // same occupancy (docs/ops/moe-vulkan.md). The output stages
    // reuse the operand stages' memory: as many accumulators a subgroup at
    // a time as fit there.
    l.stages = numStages ? numStages : 1;
    for (int64_t t = l.tilesN; t >= 1; t /= 2) {
      l.outTiles = t;
      if (l.tilesN % t == 0 && l.outVectors() <= l.stages * l.stageVectors())
        break;
    }
    stageBytes = 16 * std::max(l.stages * l.stageVectors(), l.outVectors());
  } else {
    // The split of the threads that loads the fewest operands per step,
    // preferring more threads along n (coalesced stores).
    for (int64_t tx = 1; tx <= l.threads; tx *= 2) {
      int64_t ty = l.threads / tx;
      if (l.threads % tx || tileN % tx || tileM % ty)
        continue;
      int64_t rpt = tileM / ty, cpt = tileN / tx;
      if (l.threadsX == 0 || rpt + cpt <= l.rowsPerThread + l.colsPerThread) {
        l.threadsX = tx;
        l.threadsY = ty;
        l.rowsPerThread = rpt;
        l.colsPerThread = cpt;
      }
    }
    if (l.threadsX == 0) {
      reason << "a " << tileM << " x " << tileN << " tile ('" << mName
             << "' x '" << nName << "') does not split evenly over "
             << l.threads << " threads (" << numSubgroups
             << (numSubgroups == 1 ? " subgroup" : " subgroups") << " of "
             << limits.subgroupSize << ")";
      return std::nullopt;
    }
    int64_t acc = l.rowsPerThread * l.colsPerThread;
    if (acc > kMaxAccumulators) {
      reason << "each thread would keep " << acc << " accumulators (at most "
             << kMaxAccumulators << "); use more subgroups or smaller blocks";
      return std::nullopt;
    }
    stageBytes = 4 * step * (tileM + tileN);
  }
  l.sharedBytes = stageBytes + 4 * l.scanElements;
  if (l.sharedBytes > limits.sharedBytes) {
    reason << "stages " << l.sharedBytes
           << " bytes of shared memory, the device has " << limits.sharedBytes;
    return std::nullopt;
  }
  return l;
}
