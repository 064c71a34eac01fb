//===- Rules.cpp - grouped-matmul configs on Vulkan -----------------------===//
//
// Which configs are valid on a Vulkan device (a layout of Layout.h exists
// for them), the spaces the tuner tries, and the heuristics. The
// cooperative-matrix path is chosen from the target, never from the config.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/VulkanFeatureChecks.h"
#include "Moe/Vulkan/GroupedMatmul.h"
#include "Moe/Vulkan/Layout.h"

#include "ejk/Ops/Moe/Config.h"
#include "ejk/Ops/Moe/Problem.h"

#include <algorithm>
#include <array>

using namespace mlir;
using namespace mlir::ejk;

/// The config entries tile_m, tile_n and step stand for, per op.
static const char *const kGroupedNames[3] = {"block_m", "block_n", "block_k"};
static const char *const kTransposedNames[3] = {"block_k", "block_n",
                                                "block_m"};

static MoeVulkanLimits limitsOf(const TargetInfo &target) {
  MoeVulkanLimits limits;
  limits.subgroupSize = std::max<unsigned>(1, target.subgroupSize);
  limits.maxInvocations = target.maxWorkgroupInvocations;
  limits.sharedBytes = target.sharedMemoryBytes;
  return limits;
}

/// Whether the operands' bits go to bf16 cooperative matrices as they are
/// (VK_KHR_shader_bfloat16): bf16 inputs, no i8 weights (converted to f16).
static bool bf16Matrices(const GroupedMatmulProblem &p,
                         const TargetInfo &target) {
  return p.inputType.isBF16() && !p.quantized() &&
         target.hasVulkanFeature("cooperative_matrix_bf16");
}

/// Whether a problem of f16 inputs (or bf16 ones on a device with bf16
/// matrices) with contiguous extents `k` and `n` can take the cooperative
/// path on `target`: 16-byte copies need multiples of 8, and the smallest
/// cooperative layout must fit.
static bool cooperativeFits(const GroupedMatmulProblem &p,
                            GemmOperandOrder order, const TargetInfo &target) {
  if (!target.hasCooperativeMatrix ||
      !(p.inputType.isF16() || bf16Matrices(p, target)) || p.k < 1 || p.n < 1 ||
      p.k % 8 || p.n % 8)
    return false;
  // i8 weights move as 16-byte vectors of 16 and are converted through
  // 16-bit integer lanes (CoopGemmKernel.cpp).
  if (p.quantized() &&
      (p.k % 16 || p.n % 16 || !target.hasVulkanFeature("int16")))
    return false;
  static const char *const names[3] = {"", "", ""};
  return MoeVulkanLayout::compute(16, 16, 16, 1, /*numStages=*/1,
                                  /*cooperative=*/true, order, p.numGroups,
                                  limitsOf(target), names, llvm::nulls())
      .has_value();
}

static GemmOperandOrder groupedOrder(const GroupedMatmulProblem &p) {
  return {/*aReductionInner=*/true, /*bReductionInner=*/p.transposeRhs};
}

static GemmOperandOrder transposedOrder() {
  return {/*aReductionInner=*/false, /*bReductionInner=*/false};
}

bool mlir::ejk::usesCooperativeMatrix(GroupedMatmulOp op,
                                      const TargetInfo &target) {
  GroupedMatmulProblem p = readGroupedMatmulProblem(op);
  return cooperativeFits(p, groupedOrder(p), target);
}

bool mlir::ejk::usesCooperativeMatrix(TransposedGroupedMatmulOp op,
                                      const TargetInfo &target) {
  return cooperativeFits(readTransposedGroupedMatmulProblem(op),
                         transposedOrder(), target);
}

std::optional<MoeVulkanLayout>
mlir::ejk::getMoeVulkanLayout(GroupedMatmulOp op, ConfigAttr attr,
                              const TargetInfo &target,
                              llvm::raw_ostream &reason) {
  GroupedMatmulProblem p = readGroupedMatmulProblem(op);
  return MoeVulkanLayout::compute(
      attr.lookupOr(GroupedMatmulConfig::kBlockM, 0),
      attr.lookupOr(GroupedMatmulConfig::kBlockN, 0),
      attr.lookupOr(GroupedMatmulConfig::kBlockK, 0),
      attr.lookupOr(GroupedMatmulConfig::kNumSubgroups, 1),
      attr.lookupOr(GroupedMatmulConfig::kNumStages, 0),
      usesCooperativeMatrix(op, target), groupedOrder(p), p.numGroups,
      limitsOf(target), kGroupedNames, reason);
}

std::optional<MoeVulkanLayout>
mlir::ejk::getMoeVulkanLayout(TransposedGroupedMatmulOp op, ConfigAttr attr,
                              const TargetInfo &target,
                              llvm::raw_ostream &reason) {
  GroupedMatmulProblem p = readTransposedGroupedMatmulProblem(op);
  return MoeVulkanLayout::compute(
      attr.lookupOr(GroupedMatmulConfig::kBlockK, 0),
      attr.lookupOr(GroupedMatmulConfig::kBlockN, 0),
      attr.lookupOr(GroupedMatmulConfig::kBlockM, 0),
      attr.lookupOr(GroupedMatmulConfig::kNumSubgroups, 1),
      attr.lookupOr(GroupedMatmulConfig::kNumStages, 0),
      usesCooperativeMatrix(op, target), transposedOrder(), p.numGroups,
      limitsOf(target), kTransposedNames, reason);
}

/// What both ops check before the layout: the config's entries and the
/// device features the element types need.
static LogicalResult verifyCommon(const GroupedMatmulProblem &p,
                                  ConfigAttr attr, const TargetInfo &target,
                                  raw_ostream &reason) {
  if (!GroupedMatmulConfig::read(attr, reason))
    return failure();
  if (failed(checkVulkanBufferFeatures({p.inputType, p.outputType}, target,
                                       reason)))
    return failure();
  if (p.quantized() && !(target.hasVulkanFeature("storage8") &&
                         target.hasVulkanFeature("int8"))) {
    reason << "i8 weights need the device features 'storage8' and 'int8'";
    return failure();
  }
  return success();
}

/// Vulkan guarantees 65535 workgroups along each dimension of a grid.
static constexpr int64_t kMaxGridExtent = 65535;

static LogicalResult checkGrid(int64_t extent, StringRef what,
                               raw_ostream &reason) {
  if (extent <= kMaxGridExtent)
    return success();
  reason << "the grid would have " << extent << " " << what
         << ", more than the " << kMaxGridExtent
         << " workgroups Vulkan guarantees along one dimension";
  return failure();
}

LogicalResult VulkanGroupedMatmul::verifyConfig(GroupedMatmulOp op,
                                                ConfigAttr attr,
                                                const TargetInfo &target,
                                                raw_ostream &reason) {
  GroupedMatmulProblem p = readGroupedMatmulProblem(op);
  if (failed(verifyCommon(p, attr, target, reason)))
    return failure();
  std::optional<MoeVulkanLayout> l =
      getMoeVulkanLayout(op, attr, target, reason);
  if (!l ||
      failed(checkGrid(ceilDiv(p.rows, l->tileM) + p.localGroups + 2,
                       "row tiles ('block_m' " + std::to_string(l->tileM) + ")",
                       reason)) ||
      failed(checkGrid(ceilDiv(p.n, l->tileN), "column tiles", reason)))
    return failure();
  return success();
}

LogicalResult VulkanTransposedGroupedMatmul::verifyConfig(
    TransposedGroupedMatmulOp op, ConfigAttr attr, const TargetInfo &target,
    raw_ostream &reason) {
  GroupedMatmulProblem p = readTransposedGroupedMatmulProblem(op);
  if (failed(verifyCommon(p, attr, target, reason)))
    return failure();
  std::optional<MoeVulkanLayout> l =
      getMoeVulkanLayout(op, attr, target, reason);
  if (!l || failed(checkGrid(ceilDiv(p.n, l->tileN), "column tiles", reason)) ||
      failed(checkGrid(ceilDiv(p.k, l->tileM), "row tiles", reason)) ||
      failed(checkGrid(p.localGroups, "groups", reason)))
    return failure();
  return success();
}

/// A candidate config: tile_m, tile_n, step, threads, and num_stages (0:
/// left to the default).
using Candidate = std::array<int64_t, 5>;

/// The candidates of a space, in order; the full cooperative space also
/// tries two stages.
static SmallVector<Candidate> spaceCandidates(bool cooperative, bool full) {
  SmallVector<int64_t> tiles = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                    : SmallVector<int64_t>{32, 64, 128};
  SmallVector<int64_t> steps = cooperative
                                   ? (full ? SmallVector<int64_t>{16, 32, 64}
                                           : SmallVector<int64_t>{16, 32})
                                   : (full ? SmallVector<int64_t>{4, 8, 16, 32}
                                           : SmallVector<int64_t>{8, 16});
  SmallVector<int64_t> threadCounts =
      full ? SmallVector<int64_t>{32, 64, 128, 256, 512}
           : SmallVector<int64_t>{64, 128, 256};
  SmallVector<int64_t> stageCounts = cooperative && full
                                         ? SmallVector<int64_t>{0, 2}
                                         : SmallVector<int64_t>{0};
  SmallVector<Candidate> out;
  for (int64_t tm : tiles)
    for (int64_t tn : tiles)
      for (int64_t step : steps)
        for (int64_t threads : threadCounts)
          for (int64_t stages : stageCounts)
            out.push_back({tm, tn, step, threads, stages});
  return out;
}

/// The config of a candidate, spelled for the op (tile_m, tile_n, step as
/// block_* entries).
static GroupedMatmulConfig toConfig(const Candidate &c, bool transposed,
                                    int64_t subgroup) {
  auto [tm, tn, step, threads, stages] = c;
  GroupedMatmulConfig config;
  config.blockM = transposed ? step : tm;
  config.blockN = tn;
  config.blockK = transposed ? tm : step;
  config.numSubgroups = std::max<int64_t>(1, threads / subgroup);
  if (stages)
    config.numStages = stages;
  return config;
}

/// The configs of `candidates` that verify.
template <typename OpT, typename Rules>
static SmallVector<ConfigAttr> filterSpace(OpT op, const TargetInfo &target,
                                           bool transposed,
                                           ArrayRef<Candidate> candidates) {
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  SmallVector<ConfigAttr> space;
  for (const Candidate &c : candidates) {
    if (c[3] < subgroup)
      continue;
    ConfigAttr attr = toConfig(c, transposed, subgroup).toAttr(op.getContext());
    if (succeeded(Rules::verifyConfig(op, attr, target, llvm::nulls())))
      space.push_back(attr);
  }
  return space;
}

SmallVector<ConfigAttr>
VulkanGroupedMatmul::configSpace(GroupedMatmulOp op, const TargetInfo &target,
                                 bool full) {
  return filterSpace<GroupedMatmulOp, VulkanGroupedMatmul>(
      op, target, /*transposed=*/false,
      spaceCandidates(usesCooperativeMatrix(op, target), full));
}

SmallVector<ConfigAttr> VulkanTransposedGroupedMatmul::configSpace(
    TransposedGroupedMatmulOp op, const TargetInfo &target, bool full) {
  return filterSpace<TransposedGroupedMatmulOp, VulkanTransposedGroupedMatmul>(
      op, target, /*transposed=*/true,
      spaceCandidates(usesCooperativeMatrix(op, target), full));
}

/// The heuristic's candidates in order of preference. Cooperative: 128 x
/// 128 tiles of four subgroups, each 64 x 64 (16 accumulators: four A and
/// four B matrices per 16 of reduction), steps of 32, one stage: measured
/// best on the H100 (0.51 ms for the bench problem, against 0.80 with two
/// stages, 0.64 with steps of 16, 0.73 with steps of 64, 0.69-0.78 with
/// fewer accumulators a subgroup, 0.53-0.56 for 128 x 256 and 256 x 128
/// tiles of eight subgroups; docs/ops/moe-vulkan.md). Its 240 registers a
/// thread leave two workgroups an SM. 64 x 64 tiles first when the
/// groups average fewer than 96 rows (a tile starts at its group's first
/// row, so small groups waste most of a tall tile). Tiles of two subgroups
/// ran 3-4x slower there and are left to the tuner. Portable: 64 x 64 tiles
/// over 256 threads (16 accumulators each), then smaller.
static SmallVector<Candidate>
heuristicCandidates(bool cooperative, int64_t subgroup, bool smallGroups) {
  SmallVector<Candidate> out;
  if (cooperative) {
    if (smallGroups)
      out.push_back({64, 64, 32, 4 * subgroup, 0});
    out.append({{128, 128, 32, 4 * subgroup, 0},
                {64, 64, 32, 4 * subgroup, 0},
                {32, 32, 16, subgroup, 0},
                {16, 16, 16, subgroup, 0}});
  } else {
    for (int64_t threads : {256, 128, 64, 32})
      for (auto [tm, tn, step] :
           {std::array<int64_t, 3>{64, 64, 16},
            std::array<int64_t, 3>{32, 64, 16},
            std::array<int64_t, 3>{32, 32, 16},
            std::array<int64_t, 3>{16, 16, 8}, std::array<int64_t, 3>{8, 8, 4}})
        out.push_back({tm, tn, step, std::max(threads, subgroup), 0});
  }
  return out;
}

template <typename OpT, typename Rules>
static ConfigAttr pickHeuristic(OpT op, const TargetInfo &target,
                                bool transposed, bool cooperative,
                                bool smallGroups) {
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  SmallVector<Candidate> candidates =
      heuristicCandidates(cooperative, subgroup, smallGroups);
  SmallVector<ConfigAttr> valid =
      filterSpace<OpT, Rules>(op, target, transposed, candidates);
  if (!valid.empty())
    return valid.front();
  // Nothing fits: the first choice, which verification then reports.
  return toConfig(candidates.front(), transposed, subgroup)
      .toAttr(op.getContext());
}

ConfigAttr VulkanGroupedMatmul::heuristicConfig(GroupedMatmulOp op,
                                                const TargetInfo &target) {
  GroupedMatmulProblem p = readGroupedMatmulProblem(op);
  bool smallGroups = p.rows < 96 * std::max<int64_t>(1, p.numGroups);
  return pickHeuristic<GroupedMatmulOp, VulkanGroupedMatmul>(
      op, target, /*transposed=*/false, usesCooperativeMatrix(op, target),
      smallGroups);
}

ConfigAttr
VulkanTransposedGroupedMatmul::heuristicConfig(TransposedGroupedMatmulOp op,
                                               const TargetInfo &target) {
  return pickHeuristic<TransposedGroupedMatmulOp,
                       VulkanTransposedGroupedMatmul>(
      op, target, /*transposed=*/true, usesCooperativeMatrix(op, target),
      /*smallGroups=*/false);
}
