//===- Rules.cpp - grouped matmul configs on the CPU ----------------------===//
//
// Which configs are valid on a CPU (whole vectors of columns, no Vulkan
// entries, scratch that fits L2), the spaces the tuner tries, and the
// heuristics. Group sizes are only known at run time, so the heuristics
// size row tiles for groups of the average size, rows / num_groups.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/CpuWorkingSet.h"
#include "Moe/Cpu/GroupedMatmul.h"
#include "Moe/Cpu/Kernels.h"

#include "ejk/Ops/Moe/Config.h"
#include "ejk/Ops/Moe/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

/// Reads a config and checks what both ops require of it on a CPU: no
/// `num_subgroups` or `num_stages`, `block_n` whole vectors.
static std::optional<GroupedMatmulConfig>
readCpuConfig(ConfigAttr attr, const TargetInfo &target, raw_ostream &reason) {
  std::optional<GroupedMatmulConfig> config =
      GroupedMatmulConfig::read(attr, reason);
  if (!config)
    return std::nullopt;
  if (config->numSubgroups || config->numStages) {
    reason << "'"
           << (config->numSubgroups ? GroupedMatmulConfig::kNumSubgroups
                                    : GroupedMatmulConfig::kNumStages)
           << "' applies to Vulkan targets only";
    return std::nullopt;
  }
  if (config->blockN % target.f32Lanes() != 0) {
    reason << "'" << GroupedMatmulConfig::kBlockN << "' (" << config->blockN
           << ") must be a multiple of the " << target.f32Lanes()
           << " f32 lanes of a " << target.vectorBits << "-bit vector";
    return std::nullopt;
  }
  return config;
}

/// Reports f32 scratch of `elements` above L2 (or above 2^63 bytes).
static LogicalResult checkWorkingSet(std::optional<int64_t> elements,
                                     const TargetInfo &target,
                                     raw_ostream &reason) {
  std::optional<int64_t> bytes =
      elements ? checkedProduct({4, *elements}) : std::nullopt;
  return checkL2WorkingSet(bytes, target, reason);
}

/// Column blocks to try: `vectors` f32 vectors each, the ones wider than n
/// (rounded to a register block) dropped but the first.
static SmallVector<int64_t> columnBlocks(int64_t n, ArrayRef<int64_t> vectors,
                                         int64_t lanes) {
  SmallVector<int64_t> blocks;
  for (int64_t v : vectors)
    if (blocks.empty() || v * lanes <= roundUp(n, 2 * lanes))
      blocks.push_back(v * lanes);
  return blocks;
}

/// The n block of the heuristics: 128 columns (8 panels of 16 on AVX2), or
/// n rounded up to a register block.
static int64_t heuristicBlockN(int64_t n, int64_t lanes) {
  return std::max<int64_t>(2 * lanes, std::min<int64_t>(roundUp(128, 2 * lanes),
                                                        roundUp(n, 2 * lanes)));
}

/// Row blocks to try: multiples of the micro-kernel's 6 rows.
static SmallVector<int64_t> rowBlocks(bool full) {
  return full ? SmallVector<int64_t>{6, 24, 48, 96, 132, 192, 264}
              : SmallVector<int64_t>{48, 96, 132};
}

//===----------------------------------------------------------------------===//
// grouped_matmul
//===----------------------------------------------------------------------===//

/// f32 elements of a workgroup's scratch: C (block_m rounded to register
/// blocks x block_n), the packed rhs panel (block_k in whole vectors x
/// block_n) and the
/// staged lhs rows (block_m x CpuGroupedMatmulPlan::lhsStride); nullopt
/// on overflow.
static std::optional<int64_t> gmmScratch(const GroupedMatmulConfig &c,
                                         int64_t lanes) {
  CpuMicroTile tile = CpuMicroTile::forBlock(c.blockM, c.blockN, lanes);
  if (!checkedSum({c.blockM, tile.rows}) || !checkedSum({c.blockK, 2 * lanes}))
    return std::nullopt;
  int64_t rows = tile.paddedRows(c.blockM);
  int64_t kRows = roundUp(c.blockK, lanes);
  return checkedSum({checkedProduct({rows, c.blockN}),
                     checkedProduct({kRows, c.blockN}),
                     checkedProduct({c.blockM, kRows + lanes})});
}

LogicalResult CpuGroupedMatmul::verifyConfig(GroupedMatmulOp op,
                                             ConfigAttr attr,
                                             const TargetInfo &target,
                                             raw_ostream &reason) {
  std::optional<GroupedMatmulConfig> config =
      readCpuConfig(attr, target, reason);
  if (!config)
    return failure();
  return checkWorkingSet(gmmScratch(*config, target.f32Lanes()), target,
                         reason);
}

SmallVector<ConfigAttr> CpuGroupedMatmul::configSpace(GroupedMatmulOp op,
                                                      const TargetInfo &target,
                                                      bool full) {
  GroupedMatmulProblem p = readGroupedMatmulProblem(op);
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> ms = rowBlocks(full);
  SmallVector<int64_t> ns = columnBlocks(
      p.n, full ? ArrayRef<int64_t>{2, 4, 8, 16, 32} : ArrayRef<int64_t>{8, 16},
      lanes);
  SmallVector<int64_t> ks = full ? SmallVector<int64_t>{64, 128, 256, 512}
                                 : SmallVector<int64_t>{128, 256};
  SmallVector<ConfigAttr> space;
  for (int64_t m : ms) {
    if (m > roundUp(std::max<int64_t>(p.rows, 1), 6) && m != ms.front())
      continue;
    for (int64_t n : ns)
      for (int64_t k : ks) {
        if (k > ceilPow2(p.k) && k != ks.front())
          continue;
        GroupedMatmulConfig config;
        config.blockM = m;
        config.blockN = n;
        config.blockK = k;
        ConfigAttr attr = config.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
  }
  return space;
}

ConfigAttr CpuGroupedMatmul::heuristicConfig(GroupedMatmulOp op,
                                             const TargetInfo &target) {
  GroupedMatmulProblem p = readGroupedMatmulProblem(op);
  int64_t lanes = target.f32Lanes();
  GroupedMatmulConfig config;
  // Row tiles of about 128 rows split a group of the average size evenly
  // (a 256-row group is two tiles of 132, not 128 + 128 + a sliver), in
  // whole 6-row register blocks; the packed panel is reused by all of them.
  int64_t average =
      ceilDiv(std::max<int64_t>(p.rows, 1), std::max<int64_t>(p.numGroups, 1));
  config.blockM = roundUp(ceilDiv(average, ceilDiv(average, 128)), 6);
  config.blockN = heuristicBlockN(p.n, lanes);
  // 256 rows of packed rhs: a 16-column panel (16 KiB) stays in L1 while
  // every row block of the tile streams over it.
  config.blockK = std::max<int64_t>(1, std::min<int64_t>(256, p.k));
  ConfigAttr attr = config.toAttr(op.getContext());
  while (failed(verifyConfig(op, attr, target, llvm::nulls())) &&
         config.blockK > 1) {
    config.blockK /= 2;
    attr = config.toAttr(op.getContext());
  }
  return attr;
}

//===----------------------------------------------------------------------===//
// transposed_grouped_matmul
//===----------------------------------------------------------------------===//

/// f32 elements of a workgroup's scratch: C (block_k rounded to register
/// blocks x block_n), the staged lhs (block_m x padded block_k) and rhs
/// (block_m x block_n); nullopt on overflow.
static std::optional<int64_t> tgmmScratch(const GroupedMatmulConfig &c,
                                          int64_t lanes) {
  CpuMicroTile tile = CpuMicroTile::forBlock(c.blockK, c.blockN, lanes);
  if (!checkedSum({c.blockK, tile.rows, lanes}))
    return std::nullopt;
  int64_t kRows = tile.paddedRows(c.blockK);
  return checkedSum({checkedProduct({kRows, c.blockN}),
                     checkedProduct({c.blockM, roundUp(kRows, lanes)}),
                     checkedProduct({c.blockM, c.blockN})});
}

LogicalResult CpuTransposedGroupedMatmul::verifyConfig(
    TransposedGroupedMatmulOp op, ConfigAttr attr, const TargetInfo &target,
    raw_ostream &reason) {
  std::optional<GroupedMatmulConfig> config =
      readCpuConfig(attr, target, reason);
  if (!config)
    return failure();
  return checkWorkingSet(tgmmScratch(*config, target.f32Lanes()), target,
                         reason);
}

SmallVector<ConfigAttr>
CpuTransposedGroupedMatmul::configSpace(TransposedGroupedMatmulOp op,
                                        const TargetInfo &target, bool full) {
  GroupedMatmulProblem p = readTransposedGroupedMatmulProblem(op);
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> ms = full ? SmallVector<int64_t>{32, 64, 128, 256}
                                 : SmallVector<int64_t>{64, 128};
  SmallVector<int64_t> ns = columnBlocks(
      p.n, full ? ArrayRef<int64_t>{2, 4, 8, 16, 32} : ArrayRef<int64_t>{8, 16},
      lanes);
  SmallVector<int64_t> ks = rowBlocks(full);
  SmallVector<ConfigAttr> space;
  for (int64_t m : ms) {
    if (m > ceilPow2(p.rows) && m != ms.front())
      continue;
    for (int64_t n : ns)
      for (int64_t k : ks) {
        if (k > roundUp(std::max<int64_t>(p.k, 1), 6) && k != ks.front())
          continue;
        GroupedMatmulConfig config;
        config.blockM = m;
        config.blockN = n;
        config.blockK = k;
        ConfigAttr attr = config.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
  }
  return space;
}

ConfigAttr
CpuTransposedGroupedMatmul::heuristicConfig(TransposedGroupedMatmulOp op,
                                            const TargetInfo &target) {
  GroupedMatmulProblem p = readTransposedGroupedMatmulProblem(op);
  int64_t lanes = target.f32Lanes();
  GroupedMatmulConfig config;
  // Output tiles of 96 k rows (16 register blocks) by 128 columns; steps of
  // 128 rows keep the staged rows in L2.
  config.blockK = std::min<int64_t>(96, roundUp(std::max<int64_t>(p.k, 1), 6));
  config.blockN = heuristicBlockN(p.n, lanes);
  config.blockM = std::min<int64_t>(128, ceilPow2(p.rows));
  // Split k further while there are too few tiles to keep every core busy.
  int64_t cores = std::max<unsigned>(1, target.numCores);
  auto tiles = [&] {
    return ceilDiv(p.k, config.blockK) * ceilDiv(p.n, config.blockN) *
           p.localGroups;
  };
  while (config.blockK > 12 && tiles() < 2 * cores)
    config.blockK = roundUp(config.blockK / 2, 6);
  ConfigAttr attr = config.toAttr(op.getContext());
  while (failed(verifyConfig(op, attr, target, llvm::nulls())) &&
         config.blockM > 1) {
    config.blockM /= 2;
    attr = config.toAttr(op.getContext());
  }
  return attr;
}
