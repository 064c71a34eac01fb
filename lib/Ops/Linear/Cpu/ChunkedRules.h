//===- ChunkedRules.h - config rules of the chunked CPU scans ---*- C++ -*-===//
//
// The gla and delta-rule CPU kernels (ChunkedScan.h) take the same config
// (GlaConfig's chunk_size and block_v) under the same limits: whole vectors
// of head_dim_v columns and a workgroup's chunk scratch within L2. Their
// rules (Rules.cpp, DeltaRules.cpp) differ only in the scratch each kernel
// needs, the messages for the Vulkan-only options and the quick space.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_CPU_CHUNKEDRULES_H
#define EJK_OPS_LINEAR_CPU_CHUNKEDRULES_H

#include "Common/Arithmetic.h"
#include "Common/CpuWorkingSet.h"

#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Ops/Linear/Config.h"

#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <optional>

namespace mlir::ejk {

/// Bytes of a workgroup's scratch for (chunk, blockV, lanes); nullopt on
/// overflow.
using ChunkScratchBytes =
    function_ref<std::optional<int64_t>(int64_t, int64_t, int64_t)>;

/// The limits every chunked CPU config meets: chunk_size in [1, 256],
/// block_v whole vectors of the target, the scratch within L2.
inline LogicalResult verifyChunkedCpuConfig(const GlaConfig &config,
                                            const TargetInfo &target,
                                            ChunkScratchBytes scratchBytes,
                                            raw_ostream &reason) {
  if (config.chunkSize < 1 || config.chunkSize > 256) {
    reason << "'" << GlaConfig::kChunkSize << "' (" << config.chunkSize
           << ") must be in [1, 256]";
    return failure();
  }
  int64_t lanes = target.f32Lanes();
  if (config.blockV < lanes || config.blockV % lanes != 0) {
    reason << "'" << GlaConfig::kBlockV << "' (" << config.blockV
           << ") must be a positive multiple of the " << lanes
           << " f32 lanes of a " << target.vectorBits << "-bit vector";
    return failure();
  }
  return checkL2WorkingSet(scratchBytes(config.chunkSize, config.blockV, lanes),
                           target, reason);
}

/// The configs the tuner tries over `seq` steps and `dimV` value columns:
/// chunks up to the sequence, blocks of vectors up to head_dim_v (the
/// smallest of each always), those `isValid` takes. The quick space
/// (`full` off) has chunks of 32 and 64 and blocks of
/// `quickBlockVectors` vectors.
inline SmallVector<ConfigAttr>
chunkedCpuConfigSpace(MLIRContext *context, int64_t seq, int64_t dimV,
                      int64_t lanes, bool full,
                      ArrayRef<int64_t> quickBlockVectors,
                      function_ref<bool(ConfigAttr)> isValid) {
  SmallVector<int64_t> chunks = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                     : SmallVector<int64_t>{32, 64};
  SmallVector<int64_t> blockVs = full ? SmallVector<int64_t>{1, 2, 4, 8, 16, 32}
                                      : SmallVector<int64_t>(quickBlockVectors);
  SmallVector<ConfigAttr> space;
  for (int64_t chunk : chunks) {
    if (chunk > ceilPow2(std::max<int64_t>(1, seq)) && chunk != chunks.front())
      continue;
    for (int64_t vectors : blockVs) {
      int64_t blockV = vectors * lanes;
      if (blockV > roundUp(dimV, lanes) && vectors != blockVs.front())
        continue;
      ConfigAttr attr = GlaConfig{chunk, blockV}.toAttr(context);
      if (isValid(attr))
        space.push_back(attr);
    }
  }
  return space;
}

/// The heuristic of a chunked CPU kernel over `p` (GlaProblem,
/// DeltaProblem): 64-step chunks (fewer for shorter sequences; halved
/// until `isValid` takes the config), and the whole of head_dim_v per
/// workgroup, since every block recomputes the chunk's scores, split only
/// when (sequence, head) pairs are too few to keep the cores busy.
template <typename Problem>
ConfigAttr chunkedCpuHeuristic(MLIRContext *context, const Problem &p,
                               const TargetInfo &target,
                               function_ref<bool(ConfigAttr)> isValid) {
  int64_t lanes = target.f32Lanes();
  GlaConfig config;
  config.chunkSize =
      std::min<int64_t>(64, ceilPow2(std::max<int64_t>(1, p.seq)));
  config.blockV = roundUp(std::max<int64_t>(1, p.dimV), lanes);
  int64_t cores = std::max<unsigned>(1, target.numCores);
  // Saturating: huge shapes reach the heuristic (the rules refuse them).
  while (config.blockV > lanes && config.blockV % (2 * lanes) == 0 &&
         checkedProduct({std::max<int64_t>(1, p.numSeqs), p.heads,
                         ceilDiv(p.dimV, config.blockV)})
                 .value_or(std::numeric_limits<int64_t>::max()) < 2 * cores)
    config.blockV /= 2;
  ConfigAttr attr = config.toAttr(context);
  while (!isValid(attr) && config.chunkSize > 1) {
    config.chunkSize /= 2;
    attr = config.toAttr(context);
  }
  return attr;
}

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_CPU_CHUNKEDRULES_H
