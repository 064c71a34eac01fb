//===- ChunkLayout.h - the thread grid of the chunk-parallel layouts -*- C++
//-*-===//
//
// What the layouts of the chunk-parallel kernels of the linear family
// (gla's, ChunkParallel.h; the delta rule's, DeltaChunk.h) compute alike:
// the V block's fit to the 16 x 16 thread grid and each thread's register
// blocks.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_CHUNKLAYOUT_H
#define EJK_OPS_LINEAR_VULKAN_CHUNKLAYOUT_H

#include "Common/Arithmetic.h"

#include "ejk/Ops/Linear/Config.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

namespace mlir::ejk {

/// A `Layout` with `chunk` steps per chunk and `blockV` state columns on
/// its thread grid (Layout::kGrid square), and the register blocks per
/// thread of `dimK` keys: kPer key rows, vPer state columns, cPer chunk rows;
/// nullopt with the reason where `blockV` is no positive multiple of the
/// grid.
template <typename Layout>
std::optional<Layout> gridLayout(int64_t dimK, int64_t chunk, int64_t blockV,
                                 llvm::raw_ostream &reason) {
  constexpr int64_t grid = Layout::kGrid;
  if (blockV < grid || blockV % grid != 0) {
    reason << "'" << GlaConfig::kBlockV << "' (" << blockV
           << ") must be a positive multiple of " << grid << " with '"
           << GlaConfig::kChunkParallel << "' = 1";
    return std::nullopt;
  }
  Layout l;
  l.chunk = chunk;
  l.blockV = blockV;
  l.kPer = ceilDiv(std::max<int64_t>(1, dimK), grid);
  l.vPer = blockV / grid;
  l.cPer = chunk / grid;
  return l;
}

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_CHUNKLAYOUT_H
