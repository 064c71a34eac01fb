//===- Layout.cpp - how a Vulkan workgroup runs attention -----------------===//

#include "Attention/Vulkan/Layout.h"

#include <algorithm>

using namespace mlir::ejk;

namespace {
int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// Accumulators one thread may keep in registers on the portable path.
constexpr int64_t kMaxAccumulators = 96;
/// Elements of head_dim staged per step of S = Q K^T.
constexpr int64_t kDChunk = 16;
/// Cooperative path: the smallest workgroup that stages K/V in two buffers.
constexpr int64_t kMinThreadsForTwoBuffers = 256;
} // namespace

std::optional<VulkanAttentionLayout> VulkanAttentionLayout::compute(
    int64_t headDim, int64_t headDimV, int64_t blockQ, int64_t blockK,
    int64_t numSubgroups, int64_t subgroupSize, int64_t maxInvocations,
    int64_t sharedLimit, bool cooperative, bool registerSoftmax,
    bool hasShuffle, llvm::raw_ostream &reason) {
  VulkanAttentionLayout l;
  l.cooperative = cooperative;
  l.registerSoftmax = cooperative && registerSoftmax;
  l.blockQ = blockQ;
  l.blockK = blockK;
  l.numSubgroups = numSubgroups;
  l.subgroupSize = subgroupSize;
  if (blockQ < 1 || blockK < 1 || numSubgroups < 1) {
    reason << "'block_q', 'block_k' and 'num_subgroups' must be positive";
    return std::nullopt;
  }
  // Blocks are staged in shared memory and subgroups are threads: a size
  // beyond either limit never fits, and rejecting it first keeps the
  // products below from overflowing.
  if (numSubgroups > maxInvocations || blockQ > sharedLimit ||
      blockK > sharedLimit) {
    reason << "'block_q' (" << blockQ << "), 'block_k' (" << blockK
           << ") or 'num_subgroups' (" << numSubgroups
           << ") exceeds the device's " << maxInvocations << " invocations or "
           << sharedLimit << " bytes of shared memory per workgroup";
    return std::nullopt;
  }
  l.threads = numSubgroups * subgroupSize;
  if (l.threads > maxInvocations) {
    reason << numSubgroups << " subgroups of " << subgroupSize << " exceed "
           << maxInvocations << " invocations per workgroup";
    return std::nullopt;
  }

  if (cooperative) {
    if (l.registerSoftmax && blockQ == 2 * kTile * numSubgroups) {
      l.rowTiles = 2;
    } else if (blockQ != kTile * numSubgroups) {
      if (l.registerSoftmax)
        reason << "cooperative-matrix code needs 'block_q' = 16 or 32 * "
                  "'num_subgroups' ("
               << kTile * numSubgroups << " or " << 2 * kTile * numSubgroups
               << "), got " << blockQ;
      else
        reason << "cooperative-matrix code needs 'block_q' = 16 * "
                  "'num_subgroups' ("
               << kTile * numSubgroups << "), got " << blockQ;
      return std::nullopt;
    }
    if (blockK % kTile != 0) {
      reason << "cooperative-matrix code needs 'block_k' to be a multiple "
                "of 16, got "
             << blockK;
      return std::nullopt;
    }
    if (subgroupSize % kTile != 0 || kTile % (subgroupSize / kTile) != 0) {
      reason << "cooperative-matrix code needs a subgroup size of 16, 32, 64, "
                "128 or 256, got "
             << subgroupSize;
      return std::nullopt;
    }
    l.paddedHeadDim = headDim;
    l.paddedHeadDimV = headDimV;
    // An f16 stage for Q, then K and V; with the register softmax the
    // layout probe, else per subgroup f32 scores, f16 probabilities and an
    // f32 16x16 matrix of row factors.
    int64_t extra =
        l.registerSoftmax
            ? kLayoutProbeBytes
            : numSubgroups * kTile *
                  (4 * l.sStride() + 2 * l.pStride() + 4 * l.alphaStride());
    // Two K/V buffers (one barrier per key block) where they fit, for
    // workgroups of at least 256 threads: on the H100 those are held about
    // one per SM by their registers, so the larger stage costs no
    // residency, while smaller ones are held several per SM and lose half
    // of them (d64 `64, 64, 4`: 0.796 ms with one buffer, 1.122 with two;
    // `128, 64, 8`: 0.876 and 0.788; docs/performance-vulkan-attention.md).
    l.kvStages = 2;
    if (l.threads < kMinThreadsForTwoBuffers ||
        2 * l.kvStageElements(headDim, headDimV) + extra > sharedLimit)
      l.kvStages = 1;
    l.sharedBytes = 2 * l.kvStageElements(headDim, headDimV) + extra;
    // Register softmax: P V one iteration late (H200: gfa-d128 0.632 ms
    // against 0.663, gfa-long 2.083 against 2.259, gfa-d64 at 128 x 64 x 4
    // 0.614 against 0.632; the kernel leaves causal one-tile blocks
    // unpipelined, where it lost). Causal blocks past a subgroup's rows
    // skipped with two row tiles (gfa-d64-causal 128 x 64 x 4: 0.397 ms
    // against 0.501); with one the branch cost more than it saved
    // (gfa-d128-causal 0.378 against 0.367;
    // docs/performance-vulkan-attention.md).
    l.pipelined = l.registerSoftmax;
    l.causalSkip = l.registerSoftmax && l.rowTiles == 2;
  } else {
    // Threads along keys: neighbours in a subgroup, at most 16.
    int64_t tx = 1;
    while (tx * 2 <= std::min<int64_t>(16, subgroupSize) &&
           blockK % (tx * 2) == 0)
      tx *= 2;
    l.threadsX = tx;
    l.threadsY = l.threads / tx;
    if (blockQ % l.threadsY != 0) {
      reason << "'block_q' (" << blockQ << ") must be a multiple of the "
             << l.threadsY << " row groups of " << l.threads << " threads with "
             << tx << " threads per row";
      return std::nullopt;
    }
    l.rowsPerThread = blockQ / l.threadsY;
    l.keysPerThread = blockK / tx;
    l.paddedHeadDimV = roundUp(headDimV, tx);
    l.colsPerThread = l.paddedHeadDimV / tx;
    l.dChunk = kDChunk;
    l.paddedHeadDim = roundUp(headDim, kDChunk);
    int64_t accumulators =
        l.rowsPerThread * (l.keysPerThread + l.colsPerThread);
    if (accumulators > kMaxAccumulators) {
      reason << "each thread would keep " << accumulators
             << " accumulators (at most " << kMaxAccumulators
             << "); use fewer rows or keys per thread";
      return std::nullopt;
    }
    auto bytes = [&](int64_t kChunk) {
      return 4 * (blockQ * (kDChunk + 1) + blockK * (kDChunk + 1) +
                  blockQ * blockK + kChunk * l.paddedHeadDimV);
    };
    // The largest V chunk that divides block_k and fits.
    l.kChunk = 0;
    for (int64_t kc = std::min<int64_t>(blockK, 32); kc >= 1; --kc)
      if (blockK % kc == 0 && bytes(kc) <= sharedLimit) {
        l.kChunk = kc;
        break;
      }
    l.sharedBytes = bytes(std::max<int64_t>(l.kChunk, 1));
  }
  // Threads sharing a row combine their maxima and sums with shuffles.
  int64_t threadsPerRow = cooperative ? subgroupSize / kTile : l.threadsX;
  if (threadsPerRow > 1 && !hasShuffle) {
    reason << "the kernel combines rows across " << threadsPerRow
           << " threads with subgroup shuffles, which the target lacks "
              "('subgroup_shuffle')";
    return std::nullopt;
  }
  if (l.sharedBytes > sharedLimit || (!cooperative && l.kChunk == 0)) {
    reason << "stages " << l.sharedBytes
           << " bytes of shared memory, the device has " << sharedLimit;
    return std::nullopt;
  }
  return l;
}
