//===- Rules.cpp - gla configs on Vulkan ----------------------------------===//
//
// Which configs are valid on a Vulkan device (a layout of Kernel.h exists
// for them and the device has the features the element types need), the
// space the tuner tries, and the heuristic.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/VulkanFeatureChecks.h"
#include "Linear/Vulkan/ChunkParallel.h"
#include "Linear/Vulkan/CoopInOrder.h"
#include "Linear/Vulkan/CoopSplit.h"
#include "Linear/Vulkan/Gla.h"
#include "Linear/Vulkan/Kernel.h"

#include "ejk/Ops/Linear/Config.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::ejk;

/// The largest chunk: the CPU's bound, which also keeps the layout's
/// products far from overflow.
static constexpr int64_t kMaxChunk = 256;

static int64_t subgroupOf(const TargetInfo &target) {
  return std::max<unsigned>(1, target.subgroupSize);
}

/// Threads per state column (VulkanGlaLayout).
static int64_t lanesPerColumn(const GlaProblem &p, const TargetInfo &target) {
  return std::min(ceilPow2(std::max<int64_t>(1, p.dimK)), subgroupOf(target));
}

std::optional<VulkanGlaLayout>
VulkanGlaLayout::compute(const GlaProblem &p, int64_t chunk, int64_t blockV,
                         const TargetInfo &target, llvm::raw_ostream &reason) {
  if (chunk < 1 || chunk > kMaxChunk) {
    reason << "'" << GlaConfig::kChunkSize << "' (" << chunk
           << ") must be in [1, " << kMaxChunk << "]";
    return std::nullopt;
  }
  int64_t maxThreads = target.maxWorkgroupInvocations;
  // Each column is at least one thread: a larger block can never fit, and
  // rejecting it first keeps the products below small.
  if (blockV < 1 || blockV > maxThreads) {
    reason << "'" << GlaConfig::kBlockV << "' (" << blockV
           << ") must be in [1, " << maxThreads
           << "] (the device's invocations per workgroup)";
    return std::nullopt;
  }
  VulkanGlaLayout l;
  l.chunk = chunk;
  l.blockV = blockV;
  l.subgroupSize = subgroupOf(target);
  l.threadsPerColumn = lanesPerColumn(p, target);
  l.keysPerThread = ceilDiv(std::max<int64_t>(1, p.dimK), l.threadsPerColumn);
  l.threads = blockV * l.threadsPerColumn;
  if (l.keysPerThread > kMaxKeysPerThread) {
    reason << "head_dim_k (" << p.dimK << ") over the " << l.threadsPerColumn
           << " lanes of a column leaves " << l.keysPerThread
           << " state entries per thread (at most " << kMaxKeysPerThread << ")";
    return std::nullopt;
  }
  if (l.threads > maxThreads) {
    reason << "'" << GlaConfig::kBlockV << "' (" << blockV << ") columns of "
           << l.threadsPerColumn << " threads exceed " << maxThreads
           << " invocations per workgroup";
    return std::nullopt;
  }
  if (l.threads % l.subgroupSize != 0) {
    reason << "'" << GlaConfig::kBlockV << "' (" << blockV << ") columns of "
           << l.threadsPerColumn << " threads must fill whole subgroups of "
           << l.subgroupSize;
    return std::nullopt;
  }
  if (l.threadsPerColumn > 1 && !target.hasVulkanFeature("subgroup_shuffle")) {
    reason << "the kernel sums q . S over the " << l.threadsPerColumn
           << " lanes of a column with subgroup shuffles, which the target "
              "lacks ('subgroup_shuffle')";
    return std::nullopt;
  }
  // Queries, keys and (with per-step key gates) decays: chunk x kPad;
  // values, outputs and (with gv) value decays: chunk x block_v; f32.
  int64_t keyArrays = p.hasG || p.hasGk ? 3 : 2;
  int64_t valueArrays = p.hasGv ? 3 : 2;
  l.sharedBytes = 4 * chunk * (keyArrays * l.kPad() + valueArrays * blockV);
  if (l.sharedBytes > target.sharedMemoryBytes) {
    reason << "stages " << l.sharedBytes
           << " bytes of shared memory per chunk, the device has "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  return l;
}

LogicalResult VulkanGla::verifyConfig(Operation *op, ConfigAttr attr,
                                      const TargetInfo &target,
                                      raw_ostream &reason) {
  std::optional<GlaConfig> config = GlaConfig::read(attr, reason);
  if (!config)
    return failure();
  Type element = cast<ShapedType>(op->getOperand(0).getType()).getElementType();
  if (failed(checkVulkanBufferFeatures({element}, target, reason)))
    return failure();
  // bf16 inputs are converted to f16 as they are staged (MLIR's matrix
  // type has no bf16); f32 inputs keep the SIMT kernel's precision.
  if (config->cooperative && element.isF32()) {
    reason << "'" << GlaConfig::kCooperative
           << "' takes f16 or bf16 inputs (f32 runs the SIMT kernel)";
    return failure();
  }
  if (config->cooperative == 3) {
    if (!config->chunkParallel) {
      reason << "'" << GlaConfig::kCooperative << "' = 3 needs '"
             << GlaConfig::kChunkParallel << "' = 1";
      return failure();
    }
    return success(VulkanGlaSplitLayout::compute(readGlaProblem(op), element,
                                                 config->chunkSize,
                                                 config->blockV, target, reason)
                       .has_value());
  }
  if (config->cooperative && !config->chunkParallel)
    return success(VulkanGlaCoopLayout::compute(
                       readGlaProblem(op), element, config->chunkSize,
                       config->blockV, config->cooperative, target, reason)
                       .has_value());
  if (config->chunkParallel)
    return success(VulkanGlaChunkLayout::compute(
                       readGlaProblem(op), config->chunkSize, config->blockV,
                       config->cooperative, target, reason)
                       .has_value());
  return success(VulkanGlaLayout::compute(readGlaProblem(op), config->chunkSize,
                                          config->blockV, target, reason)
                     .has_value());
}

/// The fewest (sequence, head, 32-column V block) workgroups for which the
/// heuristic takes the in-order cooperative kernel: each walks its
/// sequence's chunks one after another, so it needs about two per SM.
static constexpr int64_t kInOrderWorkgroups = 256;

/// The fewest columns that fill whole subgroups.
static int64_t minBlockV(const GlaProblem &p, const TargetInfo &target) {
  return std::max<int64_t>(1, subgroupOf(target) / lanesPerColumn(p, target));
}

SmallVector<ConfigAttr>
VulkanGla::configSpace(Operation *op, const TargetInfo &target, bool full) {
  GlaProblem p = readGlaProblem(op);
  int64_t minV = minBlockV(p, target);
  SmallVector<int64_t> chunks = full ? SmallVector<int64_t>{8, 16, 32, 64, 128}
                                     : SmallVector<int64_t>{16, 32, 64};
  SmallVector<int64_t> multiples =
      full ? SmallVector<int64_t>{1, 2, 4, 8, 16, 32}
           : SmallVector<int64_t>{1, 2, 4, 8};
  SmallVector<ConfigAttr> space;
  // Chunk-parallel candidates: chunks of 32 and 64, V blocks of 32 to 128,
  // SIMT and (where the device has them) cooperative matrices; the split
  // form (3) where its rules pass (constant decays, batch rows, whole
  // chunks).
  for (int64_t coop : {0, 1, 2, 3})
    for (int64_t chunk : {32, 64})
      for (int64_t blockV : {32, 64, 128}) {
        if (blockV > roundUp(std::max<int64_t>(1, p.dimV), 16) && blockV != 32)
          continue;
        ConfigAttr attr =
            GlaConfig{chunk, blockV, /*chunkParallel=*/true, coop}.toAttr(
                op->getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
  // The in-order cooperative kernel (constant decays, 16-bit inputs), both
  // forms: chunks of 16 and 32, V blocks of 16 to 64 (what fits shared
  // memory).
  for (int64_t form : {2, 1})
    for (int64_t chunk : {16, 32})
      for (int64_t blockV : {16, 32, 64}) {
        ConfigAttr attr =
            GlaConfig{chunk, blockV, /*chunkParallel=*/false, form}.toAttr(
                op->getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
  for (int64_t chunk : chunks) {
    if (chunk > ceilPow2(std::max<int64_t>(1, p.seq)) &&
        chunk != chunks.front())
      continue;
    for (int64_t multiple : multiples) {
      int64_t blockV = multiple * minV;
      if (blockV > ceilPow2(std::max<int64_t>(1, p.dimV)) &&
          multiple != multiples.front())
        continue;
      ConfigAttr attr = GlaConfig{chunk, blockV}.toAttr(op->getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  }
  return space;
}

/// About 256 threads per workgroup, fewer columns while the grid has fewer
/// than 64 workgroups (each (head, sequence) is a sequential scan, so
/// columns are the only parallelism); chunks of up to 64 steps, shorter
/// while the stage does not fit shared memory (the chunk only sets how
/// often the workgroup synchronizes), then narrower blocks.
ConfigAttr VulkanGla::heuristicConfig(Operation *op, const TargetInfo &target) {
  GlaProblem p = readGlaProblem(op);
  // Long sequences run chunk-parallel: the recurrent kernel's time is the
  // sequence's steps one after another (7.4 ms against fla's 1.0 ms at
  // B4 T4096 H16 K=V=128 on an H100). Chunks of 64, the whole of V per
  // workgroup up to 128 columns (the outputs recompute the chunk's scores
  // per V block), narrower until the layout fits.
  // Where the device has cooperative matrices (and the inputs are 16-bit),
  // `cooperative = 1`: the outputs on matrices, the update SIMT — whole on
  // an H200, gla bf16 B4 T4096 H16 K=V=128 1.81 against 2.00 ms SIMT, every
  // check case within 2.6e-3 of the f32 recurrence. `cooperative = 2` (the
  // update on matrices too) ran no faster (2.01 ms; simple gla 13.8 against
  // 12.4): the tuner's to pick (docs/ops/linear-vulkan.md).
  // A constant decay per head (simple gla, lightning) or none, 16-bit
  // inputs, cooperative matrices and at least 256 (sequence, head, V block)
  // workgroups of 32 columns: the in-order cooperative kernel (no states
  // temporary) — simple gla bf16 B16 T16384 H8 K=V=128 on an H200 against
  // the chunk-parallel form 1 in the same process, every check case within
  // bf16/f16 rounding (docs/ops/linear-vulkan.md, "The in-order cooperative
  // kernel"). Its form 2 (conversions inside each subgroup, outputs as
  // 16-byte words): 5.37 against 5.56 ms bf16 and 4.71 against 4.96 ms f16
  // in one process on an H200, every check case of both forms within the
  // same rounding. Where its rules pass (batch rows, whole chunks, int16,
  // subgroups of 32), the split form (`cooperative = 3`: a state pass
  // writing each chunk's state, then every chunk's outputs at once) runs
  // first: 3.760 against form 2's 4.855 ms bf16 and 3.690 against 4.336 ms
  // f16 at that shape in one process on an H200, its checks within the
  // same rounding (docs/ops/linear-vulkan.md, "The split form").
  // Saturating: huge shapes reach the heuristic (the rules refuse them).
  bool manyWorkgroups =
      kInOrderWorkgroups <= checkedProduct({std::max<int64_t>(1, p.numSeqs),
                                            p.heads, ceilDiv(p.dimV, 32)})
                                .value_or(std::numeric_limits<int64_t>::max());
  if (p.seq >= 256 && manyWorkgroups)
    for (int64_t blockV : {64, 32}) {
      ConfigAttr attr = GlaConfig{64, blockV, /*chunkParallel=*/true, 3}.toAttr(
          op->getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        return attr;
    }
  if (p.seq >= 256 && manyWorkgroups)
    for (auto [chunk, blockV] :
         {std::pair<int64_t, int64_t>{32, 32}, {16, 32}, {32, 16}, {16, 16}}) {
      ConfigAttr attr =
          GlaConfig{chunk, blockV, /*chunkParallel=*/false, 2}.toAttr(
              op->getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        return attr;
    }
  if (p.seq >= 256)
    for (int64_t coop : {1, 0})
      for (int64_t blockV = std::min<int64_t>(128, roundUp(p.dimV, 16));
           blockV >= 16; blockV /= 2)
        for (int64_t chunk : {64, 32}) {
          ConfigAttr attr =
              GlaConfig{chunk, blockV, /*chunkParallel=*/true, coop}.toAttr(
                  op->getContext());
          if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
            return attr;
        }
  int64_t tk = lanesPerColumn(p, target);
  int64_t minV = minBlockV(p, target);
  int64_t blockV0 = std::max(
      minV, std::min(256 / tk, ceilPow2(std::max<int64_t>(1, p.dimV))));
  while (blockV0 > minV &&
         checkedProduct({std::max<int64_t>(1, p.numSeqs), p.heads,
                         ceilDiv(p.dimV, blockV0)})
                 .value_or(std::numeric_limits<int64_t>::max()) < 64)
    blockV0 /= 2;
  int64_t chunk0 = std::min<int64_t>(64, ceilPow2(std::max<int64_t>(1, p.seq)));
  ConfigAttr fallback;
  for (int64_t blockV = blockV0; blockV >= minV; blockV /= 2)
    for (int64_t chunk = chunk0; chunk >= 1; chunk /= 2) {
      ConfigAttr attr = GlaConfig{chunk, blockV}.toAttr(op->getContext());
      if (!fallback)
        fallback = attr;
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        return attr;
    }
  // Nothing fits: the first choice, which verification then reports.
  return fallback;
}
