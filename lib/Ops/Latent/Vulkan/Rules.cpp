//===- Rules.cpp - latent attention configs on Vulkan ---------------------===//
//
// A config is valid when its layout exists: head_lanes a power of two
// within a subgroup, block_h x head_lanes threads a whole number of
// subgroups within the device's limit, the staged rows within workgroup
// memory and each lane's queries and accumulator within
// kMaxMlaLaneState registers. The heuristic gives each head as few lanes
// as keep the lane state in registers (16 at a 512-wide latent), as many
// heads per workgroup as make 256 threads (all heads of a row when they
// are fewer: the cache is then read once per row), the largest step that
// fits workgroup memory (8 tokens at 576-wide rows in 32 KiB), and splits
// until about 256 workgroups fill the device.
//
// The cooperative-matrix kernels (f16, bf16 on bf16 matrices) are the
// heuristic's choice wherever their layout exists (getCoopLayout): the
// register softmax (`cooperative = 2`) where the device has NVIDIA's matrix
// layout, else `cooperative = 1`; 32 heads a workgroup where they divide
// the heads, 32-token steps, splits up to about 128 workgroups. The
// pipelined register softmax (`cooperative = 3`: P V one step late on two
// stages of 16 rows) is in the config space only: on the H100 it was
// slower (DeepSeek-V3 bf16 0.354 ms against 0.291, same process).
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/VulkanFeatureChecks.h"
#include "Latent/Vulkan/Mla.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
constexpr int64_t kTargetWorkgroups = 256;
/// The cooperative kernel's workgroups are 8 subgroups with their output in
/// registers: about one a compute unit is enough (H100, DeepSeek-V3: 128
/// workgroups 0.490 ms, 256 0.527, 512 0.549).
constexpr int64_t kCoopTargetWorkgroups = 128;
constexpr int64_t kMaxSplits = 64;
} // namespace

/// The cooperative-matrix layout (Mla.h): 16x16x16 f16 matrices, heads in
/// whole 16-row matrices, latent columns split evenly over the subgroups,
/// cache tiles of 16 tokens that never straddle a page.
static std::optional<VulkanMlaLayout> getCoopLayout(const MlaProblem &p,
                                                    const MlaConfig &c,
                                                    const TargetInfo &target,
                                                    llvm::raw_ostream &reason) {
  constexpr int64_t t = 16;
  VulkanMlaLayout l;
  l.cooperative = true;
  l.blockK = c.blockK;
  l.numSplits = c.numSplits;
  l.numSubgroups = kMlaCoopSubgroups;
  int64_t sg = target.subgroupSize;
  bool bf16Matrices = p.elementType.isBF16() &&
                      target.hasVulkanFeature("cooperative_matrix_bf16");
  if (!target.hasCooperativeMatrix ||
      !(p.elementType.isF16() || bf16Matrices)) {
    reason << "'" << MlaConfig::kCooperative
           << "' needs f16 inputs and a device with 16x16x16 f16 cooperative "
              "matrices, or bf16 inputs and a device with bf16 ones";
    return std::nullopt;
  }
  // Matrices loaded straight from storage buffers: MLIR's SPIR-V lowering
  // admits cooperative-matrix loads from StorageBuffer pointers at SPIR-V
  // 1.6 only (workgroup memory, what the attention kernel reads, at any).
  if (target.spirvVersion < 16) {
    reason << "'" << MlaConfig::kCooperative
           << "' needs SPIR-V 1.6 (cooperative-matrix loads from buffers)";
    return std::nullopt;
  }
  if (p.latentDim % (t * l.numSubgroups) != 0 || p.ropeDim % t != 0 ||
      (p.paged ? p.pageSize : p.seqK) % t != 0) {
    reason << "'" << MlaConfig::kCooperative << "' needs a latent dim that is "
           << "a multiple of " << t * l.numSubgroups << " and a RoPE dim and "
           << (p.paged ? "page size" : "cache length") << " that are "
           << "multiples of " << t;
    return std::nullopt;
  }
  if (c.headLanes) {
    reason << "'" << MlaConfig::kHeadLanes
           << "' applies to the portable kernel only";
    return std::nullopt;
  }
  // The register softmax reads the matrices' elements where NVIDIA's
  // mma.sync fragments hold them.
  l.registerSoftmax = c.registerSoftmax;
  l.pipelined = c.pipelined;
  l.wideParts = l.pipelined;
  if (l.registerSoftmax &&
      (sg != 32 || !target.hasVulkanFeature("cooperative_matrix_nv_layout"))) {
    reason << "'" << MlaConfig::kCooperative << "' " << (l.pipelined ? 3 : 2)
           << " needs NVIDIA's cooperative-matrix layout "
              "(cooperative_matrix_nv_layout, subgroups of 32)";
    return std::nullopt;
  }
  l.blockH = c.blockH.value_or(p.numHeads % (2 * t) == 0 ? 2 * t : t);
  if ((l.blockH != t && l.blockH != 2 * t) || p.numHeads % l.blockH != 0) {
    reason << "'" << MlaConfig::kBlockH << "' (" << l.blockH
           << ") must be 16 or 32 and divide the " << p.numHeads
           << " heads for the cooperative kernel";
    return std::nullopt;
  }
  l.rowTiles = l.blockH / t;
  l.threads = l.numSubgroups * sg;
  l.threadsPerRow = l.threads / l.blockH;
  l.keyTiles = l.blockK / t;
  int64_t matrices = l.rowTiles * l.keyTiles;
  int64_t depth = (p.latentDim + p.ropeDim) / t;
  if (l.blockK % t != 0 || matrices > l.numSubgroups ||
      l.numSubgroups % matrices != 0 ||
      depth % (l.numSubgroups / matrices) != 0 ||
      (!l.registerSoftmax && l.blockK % l.threadsPerRow != 0)) {
    reason << "'" << MlaConfig::kBlockK << "' (" << l.blockK
           << ") must be a multiple of 16 whose 16x16 score matrices (with "
           << l.blockH << " heads) divide the " << l.numSubgroups
           << " subgroups and split the " << depth
           << " products of a score evenly among them";
    return std::nullopt;
  }
  l.scoreSplit = l.numSubgroups / matrices;
  if (l.threads > target.maxWorkgroupInvocations ||
      (!l.registerSoftmax &&
       (l.threadsPerRow > sg || t % l.threadsPerRow != 0))) {
    reason << "the cooperative kernel's " << l.threads
           << " threads do not fit the device (subgroup " << sg << ", at most "
           << target.maxWorkgroupInvocations << " invocations)";
    return std::nullopt;
  }
  if (l.numSplits > kMaxSplits) {
    reason << "'" << MlaConfig::kNumSplits << "' (" << l.numSplits
           << ") must be at most " << kMaxSplits;
    return std::nullopt;
  }
  l.headChunks = p.numHeads / l.blockH;
  // The step's latent rows (f16, rows padded by 16 bytes against bank
  // conflicts), the partial scores (f32; also the epilogue's 16x16 stage
  // per subgroup), P (f16), the row factors (f32).
  int64_t scores =
      std::max(l.scoreSplit * l.blockH * l.blockK, l.numSubgroups * t * t) * 4;
  l.sharedBytes = l.blockK * l.stageStride(p.latentDim) * 2 + scores +
                  l.blockH * l.blockK * 2 + l.rowTiles * t * t * 4;
  // Register softmax: the whole rows (latent | RoPE, f16, padded by 16
  // bytes; two stages of them when pipelined), one f32 score tile per
  // subgroup (also the layout probe's f32 tile; side by side in 16 padded
  // rows with wideParts), the probe's f16 tile.
  if (l.registerSoftmax) {
    int64_t parts = l.wideParts ? t * l.partStride() : l.numSubgroups * t * t;
    l.sharedBytes = l.rowStages() * l.blockK *
                        l.rowStageStride(p.latentDim, p.ropeDim) * 2 +
                    parts * 4 + t * t * 2;
  }
  if (l.sharedBytes > target.sharedMemoryBytes) {
    reason << "the cooperative kernel needs " << l.sharedBytes
           << " bytes of workgroup memory, more than the "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  return l;
}

std::optional<VulkanMlaLayout>
mlir::ejk::getVulkanMlaLayout(const MlaProblem &p, const MlaConfig &c,
                              const TargetInfo &target,
                              llvm::raw_ostream &reason) {
  if (c.cooperative)
    return getCoopLayout(p, c, target, reason);
  VulkanMlaLayout l;
  l.blockK = c.blockK;
  l.numSplits = c.numSplits;
  l.headLanes = c.headLanes.value_or(std::min<int64_t>(
      target.subgroupSize,
      std::max<int64_t>(1, llvm::PowerOf2Ceil(llvm::divideCeil(
                               p.latentDim + p.ropeDim, 36)))));
  int64_t sg = target.subgroupSize;
  if (!llvm::isPowerOf2_64(l.headLanes) || l.headLanes > sg) {
    reason << "'" << MlaConfig::kHeadLanes << "' (" << l.headLanes
           << ") must be a power of two of at most the subgroup size (" << sg
           << ")";
    return std::nullopt;
  }
  // By default all heads (at most 256 threads), rounded up to whole
  // subgroups.
  l.blockH = c.blockH.value_or(
      roundUp(std::min<int64_t>(std::max<int64_t>(p.numHeads, 1),
                                256 / l.headLanes) *
                  l.headLanes,
              sg) /
      l.headLanes);
  l.threads = l.blockH * l.headLanes;
  if (l.threads % sg != 0 || l.threads > target.maxWorkgroupInvocations) {
    reason << "'" << MlaConfig::kBlockH << "' x '" << MlaConfig::kHeadLanes
           << "' (" << l.threads << " threads) must be a multiple of the "
           << "subgroup size (" << sg << ") and at most "
           << target.maxWorkgroupInvocations;
    return std::nullopt;
  }
  if (l.blockK > kMaxMlaBlockK) {
    reason << "'" << MlaConfig::kBlockK << "' (" << l.blockK
           << ") must be at most " << kMaxMlaBlockK;
    return std::nullopt;
  }
  if (l.numSplits > kMaxSplits) {
    reason << "'" << MlaConfig::kNumSplits << "' (" << l.numSplits
           << ") must be at most " << kMaxSplits;
    return std::nullopt;
  }
  l.headChunks = llvm::divideCeil(std::max<int64_t>(p.numHeads, 1), l.blockH);
  l.paddedLatent = roundUp(p.latentDim, l.headLanes);
  l.paddedRope = roundUp(p.ropeDim, l.headLanes);
  int64_t state = 2 * l.latentPerLane() + l.ropePerLane();
  if (state > kMaxMlaLaneState) {
    reason << "'" << MlaConfig::kHeadLanes << "' (" << l.headLanes
           << ") leaves " << state << " registers of queries and accumulator "
           << "per lane, more than " << kMaxMlaLaneState;
    return std::nullopt;
  }
  l.sharedBytes = 4 * l.blockK * l.width();
  if (l.sharedBytes > target.sharedMemoryBytes) {
    reason << "'" << MlaConfig::kBlockK << "' (" << l.blockK << ") stages "
           << l.sharedBytes << " bytes of rows, more than the "
           << target.sharedMemoryBytes << " bytes of workgroup memory";
    return std::nullopt;
  }
  return l;
}

LogicalResult VulkanMla::verifyConfig(Operation *op, ConfigAttr attr,
                                      const TargetInfo &target,
                                      raw_ostream &reason) {
  std::optional<MlaConfig> config = MlaConfig::read(attr, reason);
  if (!config)
    return failure();
  // A 0-sized RoPE operand does not lower through the CPU dispatch ABI
  // yet (the dispatch keeps its 0-element buffers).
  if (readMlaProblem(op).ropeDim == 0) {
    reason << "rope_dim 0 has no kernel yet (pass a RoPE key of at least "
              "one element)";
    return failure();
  }
  // The device features every kernel needs: without them the dispatch
  // failed to legalize ('memref.load', 'gpu.subgroup_mma_load_matrix') or
  // was refused in the GPU dialect's words ('gpu.shuffle' op needs ...).
  Type element = readMlaProblem(op).elementType;
  if (failed(checkVulkanBufferFeatures(element, target, reason)))
    return failure();
  if (!target.hasVulkanFeature("subgroup_shuffle")) {
    reason << "the kernels reduce across the lanes of a subgroup with "
              "shuffles, which the target lacks ('subgroup_shuffle')";
    return failure();
  }
  return success(getVulkanMlaLayout(readMlaProblem(op), *config, target, reason)
                     .has_value());
}

/// The heuristic of the module comment, for `headLanes` (or the natural
/// one) and `splits` (or the filling count).
static std::optional<MlaConfig> makeConfig(const MlaProblem &p,
                                           const TargetInfo &target,
                                           std::optional<int64_t> headLanes,
                                           std::optional<int64_t> splits) {
  MlaConfig c;
  c.headLanes = headLanes;
  c.blockK = 1;
  std::optional<VulkanMlaLayout> l =
      getVulkanMlaLayout(p, c, target, llvm::nulls());
  if (!l)
    return std::nullopt;
  c.headLanes = l->headLanes;
  c.blockH = l->blockH;
  int64_t rowBytes = 4 * l->width();
  c.blockK =
      std::clamp<int64_t>(target.sharedMemoryBytes / rowBytes / 2 * 2, 1, 16);
  int64_t chunks =
      llvm::divideCeil(std::max<int64_t>(p.numHeads, 1), *c.blockH);
  if (splits) {
    c.numSplits = *splits;
  } else {
    int64_t base = std::max<int64_t>(1, p.rows() * chunks);
    int64_t s = llvm::divideCeil(kTargetWorkgroups, base);
    s = std::min<int64_t>(s, kMaxSplits);
    s = std::min<int64_t>(
        s, std::max<int64_t>(1, p.maxContext() / (4 * c.blockK)));
    c.numSplits = std::max<int64_t>(s, 1);
  }
  if (!getVulkanMlaLayout(p, c, target, llvm::nulls()))
    return std::nullopt;
  return c;
}

/// The cooperative kernel's config (`cooperative` = `kind`: 1, 2 or 3):
/// 32 heads a workgroup where they divide the heads (the cache is then
/// read once per 32 heads), 32-token steps (64 where a score's products do
/// not split evenly over the subgroups that share it; the pipelined kind 3
/// 16 first, as two stages of 32 rows do not fit), splits until about
/// kCoopTargetWorkgroups workgroups (or `splits`).
static std::optional<MlaConfig> makeCoopConfig(const MlaProblem &p,
                                               const TargetInfo &target,
                                               std::optional<int64_t> splits,
                                               int64_t kind) {
  SmallVector<int64_t> steps = {32, 64};
  if (kind == 3)
    steps = {16, 32};
  for (int64_t blockK : steps) {
    MlaConfig c;
    c.cooperative = true;
    c.registerSoftmax = kind >= 2;
    c.pipelined = kind == 3;
    c.blockH = p.numHeads % 32 == 0 ? 32 : 16;
    c.blockK = blockK;
    int64_t chunks = std::max<int64_t>(1, p.numHeads / *c.blockH);
    int64_t s = splits.value_or(std::clamp<int64_t>(
        llvm::divideCeil(kCoopTargetWorkgroups,
                         std::max<int64_t>(1, p.rows() * chunks)),
        1, std::max<int64_t>(1, p.maxContext() / (4 * c.blockK))));
    c.numSplits = std::min<int64_t>(s, kMaxSplits);
    if (getVulkanMlaLayout(p, c, target, llvm::nulls()))
      return c;
  }
  return std::nullopt;
}

ConfigAttr VulkanMla::heuristicConfig(Operation *op, const TargetInfo &target) {
  MlaProblem p = readMlaProblem(op);
  // The register softmax first where the device has NVIDIA's layout (H100,
  // bf16 and f16, DeepSeek-V3 decode: 0.309 ms (0.291 since a step's page
  // is looked up once; cooperative = 3: 0.354) against the cooperative = 1
  // kernel's 0.493, same process; docs/performance-vulkan-latent.md).
  if (p.ropeDim > 0)
    for (int64_t kind : {2, 1})
      if (std::optional<MlaConfig> c = makeCoopConfig(p, target, {}, kind))
        return c->toAttr(op->getContext());
  for (std::optional<int64_t> lanes :
       {std::optional<int64_t>(), std::optional<int64_t>(int64_t(32)),
        std::optional<int64_t>(int64_t(16))})
    if (std::optional<MlaConfig> c = makeConfig(p, target, lanes, {}))
      return c->toAttr(op->getContext());
  return ConfigAttr();
}

SmallVector<ConfigAttr>
VulkanMla::configSpace(Operation *op, const TargetInfo &target, bool full) {
  MlaProblem p = readMlaProblem(op);
  SmallVector<ConfigAttr> configs;
  if (p.ropeDim > 0)
    for (std::optional<int64_t> s :
         {std::optional<int64_t>(), std::optional<int64_t>(1),
          std::optional<int64_t>(2), std::optional<int64_t>(4),
          std::optional<int64_t>(8)})
      for (int64_t kind : {2, 3, 1})
        if (std::optional<MlaConfig> c = makeCoopConfig(p, target, s, kind)) {
          ConfigAttr attr = c->toAttr(op->getContext());
          if (!llvm::is_contained(configs, attr))
            configs.push_back(attr);
        }
  if (std::optional<MlaConfig> c = makeConfig(p, target, {}, {}))
    configs.push_back(c->toAttr(op->getContext()));
  SmallVector<int64_t> lanes = {8, 16, 32};
  SmallVector<int64_t> splits =
      full ? SmallVector<int64_t>{1, 4, 16, 32} : SmallVector<int64_t>{1, 8};
  for (int64_t hl : lanes)
    for (int64_t s : splits)
      if (std::optional<MlaConfig> c = makeConfig(p, target, hl, s)) {
        ConfigAttr attr = c->toAttr(op->getContext());
        if (!llvm::is_contained(configs, attr))
          configs.push_back(attr);
      }
  return configs;
}
