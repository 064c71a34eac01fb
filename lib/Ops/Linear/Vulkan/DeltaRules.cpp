//===- DeltaRules.cpp - delta_attention configs on Vulkan -----------------===//
//
// Which configs are valid on a Vulkan device (gla's layout exists for them,
// with the delta rule's per-step arrays in shared memory, and the device
// has the features the element types need), the space the tuner tries,
// and the heuristic.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/VulkanFeatureChecks.h"
#include "Linear/Vulkan/Delta.h"
#include "Linear/Vulkan/DeltaChunk.h"
#include "Linear/Vulkan/DeltaKernel.h"

#include "ejk/Ops/Linear/Config.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::ejk;

/// gla's view of the problem: the same layout rules, with a per-key decay
/// staged as gla stages `g`.
static GlaProblem asGla(const DeltaProblem &p) {
  GlaProblem g;
  g.batch = p.batch;
  g.seq = p.seq;
  g.heads = p.heads;
  g.kvHeads = p.kvHeads;
  g.dimK = p.dimK;
  g.dimV = p.dimV;
  g.numSeqs = p.numSeqs;
  g.hasG = p.decay == DeltaDecay::PerKey;
  g.hasGk = false;
  g.hasGv = false;
  g.gamma = GammaForm::None;
  g.packed = p.packed;
  g.reverse = p.reverse;
  g.scale = p.scale;
  return g;
}

std::optional<VulkanGlaLayout>
mlir::ejk::computeVulkanDeltaLayout(const DeltaProblem &p, int64_t chunk,
                                    int64_t blockV, const TargetInfo &target,
                                    llvm::raw_ostream &reason) {
  std::optional<VulkanGlaLayout> l =
      VulkanGlaLayout::compute(asGla(p), chunk, blockV, target, reason);
  if (!l)
    return std::nullopt;
  // The rates and the per-head decays: [chunk] f32 each.
  l->sharedBytes += 4 * chunk * (p.decay == DeltaDecay::PerHead ? 2 : 1);
  if (l->sharedBytes > target.sharedMemoryBytes) {
    reason << "stages " << l->sharedBytes
           << " bytes of shared memory per chunk, the device has "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  return l;
}

LogicalResult VulkanDelta::verifyConfig(DeltaAttentionOp op, ConfigAttr attr,
                                        const TargetInfo &target,
                                        raw_ostream &reason) {
  std::optional<GlaConfig> config = GlaConfig::read(attr, reason);
  if (!config)
    return failure();
  // gla's config reads forms past 2 (its own kernels); the delta rule has
  // 1 and 2.
  if (config->cooperative > 2) {
    reason << "'" << GlaConfig::kCooperative << "' (" << config->cooperative
           << ") must be 0, 1 or 2 for the delta rule";
    return failure();
  }
  if (config->cooperative && !config->chunkParallel) {
    reason << "'" << GlaConfig::kCooperative << "' needs '"
           << GlaConfig::kChunkParallel << "' = 1";
    return failure();
  }
  Type element = op.getQuery().getType().getElementType();
  if (failed(checkVulkanBufferFeatures({element}, target, reason)))
    return failure();
  // bf16 inputs are converted to f16 as they are staged (MLIR's matrix
  // type has no bf16); f32 inputs keep the SIMT kernel's precision.
  if (config->cooperative && element.isF32()) {
    reason << "'" << GlaConfig::kCooperative
           << "' takes f16 or bf16 inputs (f32 runs the SIMT kernel)";
    return failure();
  }
  if (config->chunkParallel)
    return success(VulkanDeltaChunkLayout::compute(
                       readDeltaProblem(op), config->chunkSize, config->blockV,
                       config->cooperative, target, reason)
                       .has_value());
  return success(computeVulkanDeltaLayout(readDeltaProblem(op),
                                          config->chunkSize, config->blockV,
                                          target, reason)
                     .has_value());
}

static int64_t subgroupOf(const TargetInfo &target) {
  return std::max<unsigned>(1, target.subgroupSize);
}

/// The fewest columns that fill whole subgroups (gla's rule).
static int64_t minBlockV(const DeltaProblem &p, const TargetInfo &target) {
  int64_t tk =
      std::min(ceilPow2(std::max<int64_t>(1, p.dimK)), subgroupOf(target));
  return std::max<int64_t>(1, subgroupOf(target) / tk);
}

SmallVector<ConfigAttr> VulkanDelta::configSpace(DeltaAttentionOp op,
                                                 const TargetInfo &target,
                                                 bool full) {
  DeltaProblem p = readDeltaProblem(op);
  int64_t minV = minBlockV(p, target);
  SmallVector<int64_t> chunks = full ? SmallVector<int64_t>{8, 16, 32, 64, 128}
                                     : SmallVector<int64_t>{16, 32, 64};
  SmallVector<int64_t> multiples =
      full ? SmallVector<int64_t>{1, 2, 4, 8, 16, 32}
           : SmallVector<int64_t>{1, 2, 4, 8};
  SmallVector<ConfigAttr> space;
  // Chunk-parallel candidates: chunks of 32 and 64, state blocks of 16 to
  // 64 columns.
  for (int64_t chunk : {32, 64})
    for (int64_t blockV : {16, 32, 64}) {
      if (blockV > roundUp(std::max<int64_t>(1, p.dimV), 16) && blockV != 16)
        continue;
      ConfigAttr attr = GlaConfig{chunk, blockV, /*chunkParallel=*/true}.toAttr(
          op.getContext());
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
      ConfigAttr attr = GlaConfig{chunk, blockV}.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  }
  return space;
}

/// gla's heuristic: about 256 threads per workgroup, fewer columns while
/// the grid has fewer than 64 workgroups; chunks of up to 64 steps, shorter
/// while the stage does not fit shared memory, then narrower blocks.
ConfigAttr VulkanDelta::heuristicConfig(DeltaAttentionOp op,
                                        const TargetInfo &target) {
  DeltaProblem p = readDeltaProblem(op);
  // Long sequences run chunk-parallel (DeltaChunk.h): the recurrent
  // kernel's time is the sequence's steps one after another. Chunks of 64,
  // state blocks of 32 columns (the state pass is the sequential part:
  // narrower blocks give it more workgroups), narrower or shorter until
  // the layout fits; the recurrent kernel where none does. With the l2
  // norm, f16/bf16 inputs on a device with cooperative matrices take the
  // state pass on them (`cooperative = 2`, where its rules hold: 0.57
  // against SIMT's 0.99 ms on an H200, docs/ops/delta.md); without the
  // norm the keys, and so W and Kd, are not bounded for its f16 operands.
  SmallVector<int64_t, 2> forms = {0};
  if (p.l2Norm)
    forms.insert(forms.begin(), 2);
  if (p.seq >= 256)
    for (int64_t blockV : {32, 16})
      for (int64_t chunk : {64, 32, 16})
        for (int64_t form : forms) {
          ConfigAttr attr =
              GlaConfig{chunk, blockV, /*chunkParallel=*/true, form}.toAttr(
                  op.getContext());
          if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
            return attr;
        }
  int64_t tk =
      std::min(ceilPow2(std::max<int64_t>(1, p.dimK)), subgroupOf(target));
  int64_t minV = minBlockV(p, target);
  int64_t blockV0 = std::max(
      minV, std::min(256 / tk, ceilPow2(std::max<int64_t>(1, p.dimV))));
  // Saturating: huge shapes reach the heuristic (the rules refuse them).
  while (blockV0 > minV &&
         checkedProduct({std::max<int64_t>(1, p.numSeqs), p.heads,
                         ceilDiv(p.dimV, blockV0)})
                 .value_or(std::numeric_limits<int64_t>::max()) < 64)
    blockV0 /= 2;
  int64_t chunk0 = std::min<int64_t>(64, ceilPow2(std::max<int64_t>(1, p.seq)));
  ConfigAttr fallback;
  for (int64_t blockV = blockV0; blockV >= minV; blockV /= 2)
    for (int64_t chunk = chunk0; chunk >= 1; chunk /= 2) {
      ConfigAttr attr = GlaConfig{chunk, blockV}.toAttr(op.getContext());
      if (!fallback)
        fallback = attr;
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        return attr;
    }
  // Nothing fits: the first choice, which verification then reports.
  return fallback;
}
