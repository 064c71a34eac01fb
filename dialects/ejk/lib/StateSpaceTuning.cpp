//===- StateSpaceTuning.cpp - TunableOpInterface for the state-space ops --===//
//
// ejk.selective_scan config entries:
//   block_d     channels per workgroup (CPU: a multiple of the f32 lanes;
//               Vulkan: its threads, TN per channel, fill whole subgroups)
//   chunk_l     steps per chunk of the sequence: dt, dt * u and y are staged
//               per chunk while the state stays in registers
//
// ejk.ssd config entries:
//   chunk_size     steps per SSD chunk (must equal the op's attribute if set)
//   block_p        head_dim columns per workgroup (CPU: a multiple of the
//                  lanes)
//   block_n        d_state rows per tile of the state update (divides
//                  d_state); on Vulkan also the n-chunk of B and C staged
//   num_subgroups  subgroups per workgroup (Vulkan only)
//
// The Vulkan layouts live in GpuStateSpaceLayout.cpp.
//
//===----------------------------------------------------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Dialect/Ejk/GpuStateSpaceLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ejk;

/// Appends `;name=<shape>x<elt>` (or `none`) to a problem key.
static void appendType(llvm::raw_string_ostream &os, StringRef name,
                       Value value) {
  os << ';' << name << '=';
  if (!value) {
    os << "none";
    return;
  }
  auto type = cast<RankedTensorType>(value.getType());
  llvm::interleave(type.getShape(), os, "x");
  os << 'x' << type.getElementType();
}

static int64_t ceilPow2(int64_t n) {
  return static_cast<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(n, 1)));
}

static int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

static GpuLimits gpuLimits(const TargetInfo &target) {
  GpuLimits limits;
  limits.subgroupSize = std::max<unsigned>(1, target.subgroupSize);
  limits.maxInvocations = target.maxWorkgroupInvocations;
  limits.sharedBytes = target.sharedMemoryBytes;
  return limits;
}

/// Fails with `reason` when `config` has an entry outside `names`.
static LogicalResult checkNames(ConfigAttr config, ArrayRef<StringRef> names,
                                raw_ostream &reason) {
  for (NamedAttribute entry : config.getEntries())
    if (!llvm::is_contained(names, entry.getName().strref())) {
      reason << "unknown config entry '" << entry.getName().strref() << "'";
      return failure();
    }
  return success();
}

//===----------------------------------------------------------------------===//
// SelectiveScanOp
//===----------------------------------------------------------------------===//

namespace {
struct ScanDims {
  int64_t batch, seq, channels, groups, state;
};
} // namespace

static ScanDims getDims(SelectiveScanOp op) {
  auto u = op.getU().getType();
  auto b = op.getB().getType();
  return {u.getDimSize(0), u.getDimSize(1), u.getDimSize(2), b.getDimSize(2),
          b.getDimSize(3)};
}

std::string SelectiveScanOp::getProblemKey() {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << getOperationName();
  appendType(os, "u", getU());
  appendType(os, "A", getA());
  appendType(os, "B", getB());
  appendType(os, "D", getD());
  appendType(os, "z", getZ());
  appendType(os, "delta_bias", getDeltaBias());
  appendType(os, "initial_state", getInitialState());
  os << ";softplus=" << (getDeltaSoftplus() ? 1 : 0);
  os << ";final_state=" << (getFinalState() ? 1 : 0);
  return key;
}

/// Bytes of a CPU workgroup's scratch: dt, dt * u and y per chunk, A^T and
/// the state, all f32.
static int64_t scanScratchBytes(const ScanDims &d, int64_t blockD,
                                int64_t chunkL) {
  return 4 * blockD * (3 * chunkL + 2 * d.state);
}

LogicalResult SelectiveScanOp::verifyConfig(ConfigAttr config,
                                            const TargetInfo &target,
                                            raw_ostream &reason) {
  if (!config) {
    reason << "no config";
    return failure();
  }
  if (failed(checkNames(config, getConfigNames(), reason)))
    return failure();
  std::optional<int64_t> blockD = config.lookup("block_d");
  std::optional<int64_t> chunkL = config.lookup("chunk_l");
  if (!blockD || !chunkL) {
    reason << "config needs 'block_d' and 'chunk_l'";
    return failure();
  }
  if (target.isCpu()) {
    if (*blockD % target.f32Lanes() != 0) {
      reason << "'block_d' (" << *blockD << ") must be a multiple of the "
             << target.f32Lanes() << " f32 lanes of a " << target.vectorBits
             << "-bit vector";
      return failure();
    }
    int64_t bytes = scanScratchBytes(getDims(*this), *blockD, *chunkL);
    if (bytes > target.l2Bytes) {
      reason << "working set of " << bytes << " bytes exceeds the "
             << target.l2Bytes << "-byte L2 cache";
      return failure();
    }
    return success();
  }
  if (!getGpuScanLayout(*this, config, target, reason))
    return failure();
  return success();
}

std::optional<GpuScanLayout>
mlir::ejk::getGpuScanLayout(SelectiveScanOp op, ConfigAttr config,
                            const TargetInfo &target, raw_ostream &reason) {
  ScanDims d = getDims(op);
  return GpuScanLayout::compute(
      d.channels, d.groups, d.state, config.lookupOr("block_d", 0),
      config.lookupOr("chunk_l", 0), gpuLimits(target), reason);
}

/// Threads per channel of the Vulkan scan (GpuScanLayout).
static int64_t threadsPerChannel(const ScanDims &d, const TargetInfo &target) {
  return std::min<int64_t>(ceilPow2(d.state),
                           std::max<unsigned>(1, target.subgroupSize));
}

static SmallVector<ConfigAttr>
vulkanScanSpace(SelectiveScanOp op, const TargetInfo &target, bool full) {
  ScanDims d = getDims(op);
  int64_t perChannel = threadsPerChannel(d, target);
  SmallVector<int64_t> threadCounts =
      full ? SmallVector<int64_t>{32, 64, 128, 256, 512}
           : SmallVector<int64_t>{64, 128, 256};
  SmallVector<int64_t> chunkLs = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                      : SmallVector<int64_t>{32, 64};
  SmallVector<ConfigAttr> space;
  int64_t lastBlockD = 0;
  for (int64_t threads : threadCounts) {
    int64_t blockD = std::max<int64_t>(1, threads / perChannel);
    if (blockD == lastBlockD ||
        (blockD > ceilPow2(d.channels) && lastBlockD != 0))
      continue;
    lastBlockD = blockD;
    for (int64_t chunkL : chunkLs) {
      if (chunkL > ceilPow2(d.seq) && chunkL != chunkLs.front())
        continue;
      ConfigAttr config = ConfigAttr::get(
          op.getContext(), {{"block_d", blockD}, {"chunk_l", chunkL}});
      if (succeeded(op.verifyConfig(config, target, llvm::nulls())))
        space.push_back(config);
    }
  }
  return space;
}

SmallVector<ConfigAttr>
SelectiveScanOp::getConfigSpace(const TargetInfo &target, bool full) {
  if (target.isVulkan())
    return vulkanScanSpace(*this, target, full);
  ScanDims d = getDims(*this);
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> blockDs =
      full ? SmallVector<int64_t>{1, 2, 4, 8, 16} : SmallVector<int64_t>{2, 4};
  SmallVector<int64_t> chunkLs = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                      : SmallVector<int64_t>{32, 64};
  SmallVector<ConfigAttr> space;
  for (int64_t vectors : blockDs) {
    int64_t blockD = vectors * lanes;
    if (blockD > roundUp(d.channels, lanes) && vectors != blockDs.front())
      continue;
    for (int64_t chunkL : chunkLs) {
      if (chunkL > ceilPow2(d.seq) && chunkL != chunkLs.front())
        continue;
      ConfigAttr config = ConfigAttr::get(
          getContext(), {{"block_d", blockD}, {"chunk_l", chunkL}});
      if (succeeded(verifyConfig(config, target, llvm::nulls())))
        space.push_back(config);
    }
  }
  return space;
}

/// About 128 threads per workgroup (whole subgroups); fewer channels per
/// workgroup while the grid is small; shorter chunks when shared memory is
/// short.
static ConfigAttr vulkanScanHeuristic(SelectiveScanOp op,
                                      const TargetInfo &target) {
  ScanDims d = getDims(op);
  int64_t perChannel = threadsPerChannel(d, target);
  int64_t minBlockD = std::max<int64_t>(
      1, std::max<unsigned>(1, target.subgroupSize) / perChannel);
  int64_t blockD = std::max<int64_t>(minBlockD, 128 / perChannel);
  while (blockD > minBlockD &&
         d.batch * ((d.channels + blockD - 1) / blockD) < 64)
    blockD /= 2;
  int64_t chunkL = std::min<int64_t>(64, ceilPow2(d.seq));
  ConfigAttr config = ConfigAttr::get(
      op.getContext(), {{"block_d", blockD}, {"chunk_l", chunkL}});
  while (failed(op.verifyConfig(config, target, llvm::nulls())) &&
         config.lookupOr("chunk_l", 1) > 1)
    config = config.with("chunk_l", config.lookupOr("chunk_l", 1) / 2);
  return config;
}

ConfigAttr SelectiveScanOp::getHeuristicConfig(const TargetInfo &target) {
  if (target.isVulkan())
    return vulkanScanHeuristic(*this, target);
  ScanDims d = getDims(*this);
  int64_t lanes = target.f32Lanes();
  // Four vectors of channels amortize the per-step loads of B and C; halve
  // while there are too few workgroups to keep every core busy.
  int64_t blockD = std::min<int64_t>(4 * lanes, roundUp(d.channels, lanes));
  int64_t cores = std::max<unsigned>(1, target.numCores);
  while (blockD > lanes &&
         d.batch * ((d.channels + blockD - 1) / blockD) < 4 * cores)
    blockD -= lanes * std::max<int64_t>(1, blockD / lanes / 2);
  int64_t chunkL = std::min<int64_t>(64, ceilPow2(d.seq));
  return ConfigAttr::get(getContext(),
                         {{"block_d", blockD}, {"chunk_l", chunkL}});
}

//===----------------------------------------------------------------------===//
// SsdOp
//===----------------------------------------------------------------------===//

namespace {
struct SsdDims {
  int64_t batch, seq, heads, headDim, groups, state;
};
} // namespace

static SsdDims getDims(SsdOp op) {
  auto x = op.getX().getType();
  auto b = op.getB().getType();
  return {x.getDimSize(0), x.getDimSize(1), x.getDimSize(2),
          x.getDimSize(3), b.getDimSize(2), b.getDimSize(3)};
}

std::string SsdOp::getProblemKey() {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << getOperationName();
  appendType(os, "x", getX());
  appendType(os, "B", getB());
  appendType(os, "D", getD());
  appendType(os, "z", getZ());
  appendType(os, "dt_bias", getDtBias());
  appendType(os, "initial_state", getInitialState());
  // chunk_size is not part of the key: it does not change the result, and
  // the config's chunk decides the code.
  os << ";softplus=" << (getDtSoftplus() ? 1 : 0);
  os << ";final_state=" << (getFinalState() ? 1 : 0);
  return key;
}

/// Bytes of a CPU workgroup's scratch: the decay-weighted scores (Q x Q),
/// x and the weighted x (Q x block_p each), the state tile (N x block_p).
static int64_t ssdScratchBytes(const SsdDims &d, int64_t chunk, int64_t blockP,
                               int64_t lanes) {
  return 4 * (chunk * roundUp(chunk, lanes) + 2 * chunk * blockP +
              d.state * blockP + 2 * chunk);
}

LogicalResult SsdOp::verifyConfig(ConfigAttr config, const TargetInfo &target,
                                  raw_ostream &reason) {
  if (!config) {
    reason << "no config";
    return failure();
  }
  if (failed(checkNames(config, getConfigNames(), reason)))
    return failure();
  std::optional<int64_t> blockP = config.lookup("block_p");
  std::optional<int64_t> blockN = config.lookup("block_n");
  std::optional<int64_t> chunk = config.lookup("chunk_size");
  if (!blockP || !blockN || !chunk) {
    reason << "config needs 'block_p', 'block_n' and 'chunk_size'";
    return failure();
  }
  SsdDims d = getDims(*this);
  if (*blockN < 1 || d.state % *blockN != 0) {
    reason << "'block_n' (" << *blockN << ") must divide d_state (" << d.state
           << ")";
    return failure();
  }
  if (target.isCpu()) {
    if (config.lookup("num_subgroups")) {
      reason << "'num_subgroups' applies to Vulkan targets only";
      return failure();
    }
    if (*blockP % target.f32Lanes() != 0) {
      reason << "'block_p' (" << *blockP << ") must be a multiple of the "
             << target.f32Lanes() << " f32 lanes of a " << target.vectorBits
             << "-bit vector";
      return failure();
    }
    int64_t bytes = ssdScratchBytes(d, *chunk, *blockP, target.f32Lanes());
    if (bytes > target.l2Bytes) {
      reason << "working set of " << bytes << " bytes exceeds the "
             << target.l2Bytes << "-byte L2 cache";
      return failure();
    }
    return success();
  }
  if (!getGpuSsdLayout(*this, config, target, reason))
    return failure();
  return success();
}

std::optional<GpuSsdLayout> mlir::ejk::getGpuSsdLayout(SsdOp op,
                                                       ConfigAttr config,
                                                       const TargetInfo &target,
                                                       raw_ostream &reason) {
  SsdDims d = getDims(op);
  return GpuSsdLayout::compute(
      d.state, config.lookupOr("chunk_size", 0), config.lookupOr("block_p", 0),
      config.lookupOr("block_n", 0), config.lookupOr("num_subgroups", 1),
      gpuLimits(target), reason);
}

/// Divisors of `n` among `candidates`, plus `n` itself when small.
static SmallVector<int64_t> stateTiles(int64_t n,
                                       ArrayRef<int64_t> candidates) {
  SmallVector<int64_t> tiles;
  for (int64_t c : candidates)
    if (c < n && n % c == 0)
      tiles.push_back(c);
  tiles.push_back(n);
  return tiles;
}

static SmallVector<ConfigAttr>
vulkanSsdSpace(SsdOp op, const TargetInfo &target, bool full) {
  SsdDims d = getDims(op);
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  SmallVector<int64_t> chunks = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                     : SmallVector<int64_t>{32, 64};
  SmallVector<int64_t> blockPs =
      full ? SmallVector<int64_t>{8, 16, 32, 64} : SmallVector<int64_t>{16, 32};
  SmallVector<int64_t> blockNs = stateTiles(
      d.state, full ? ArrayRef<int64_t>{8, 16, 32} : ArrayRef<int64_t>{16, 32});
  SmallVector<int64_t> threadCounts =
      full ? SmallVector<int64_t>{64, 128, 256, 512}
           : SmallVector<int64_t>{128, 256};
  SmallVector<ConfigAttr> space;
  for (int64_t chunk : chunks) {
    if (chunk > ceilPow2(d.seq) && chunk != chunks.front())
      continue;
    for (int64_t blockP : blockPs) {
      if (blockP > ceilPow2(d.headDim) && blockP != blockPs.front())
        continue;
      for (int64_t blockN : blockNs)
        for (int64_t threads : threadCounts) {
          if (threads < subgroup)
            continue;
          ConfigAttr config = ConfigAttr::get(
              op.getContext(), {{"chunk_size", chunk},
                                {"block_p", blockP},
                                {"block_n", blockN},
                                {"num_subgroups", threads / subgroup}});
          if (succeeded(op.verifyConfig(config, target, llvm::nulls())))
            space.push_back(config);
        }
    }
  }
  return space;
}

SmallVector<ConfigAttr> SsdOp::getConfigSpace(const TargetInfo &target,
                                              bool full) {
  if (target.isVulkan())
    return vulkanSsdSpace(*this, target, full);
  SsdDims d = getDims(*this);
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> chunks = full
                                    ? SmallVector<int64_t>{16, 32, 64, 128, 256}
                                    : SmallVector<int64_t>{32, 64, 128};
  SmallVector<int64_t> blockPs =
      full ? SmallVector<int64_t>{1, 2, 4, 8} : SmallVector<int64_t>{2, 4};
  SmallVector<int64_t> blockNs = stateTiles(
      d.state, full ? ArrayRef<int64_t>{16, 32, 64} : ArrayRef<int64_t>{32});
  SmallVector<ConfigAttr> space;
  for (int64_t chunk : chunks) {
    if (chunk > ceilPow2(d.seq) && chunk != chunks.front())
      continue;
    for (int64_t vectors : blockPs) {
      int64_t blockP = vectors * lanes;
      if (blockP > roundUp(d.headDim, lanes) && vectors != blockPs.front())
        continue;
      for (int64_t blockN : blockNs) {
        ConfigAttr config = ConfigAttr::get(
            getContext(),
            {{"chunk_size", chunk}, {"block_p", blockP}, {"block_n", blockN}});
        if (succeeded(verifyConfig(config, target, llvm::nulls())))
          space.push_back(config);
      }
    }
  }
  return space;
}

/// The first config that fits, in order of preference: 256 threads;
/// chunks of 64 (each chunk is a sequential step of the workgroup, and the
/// quadratic part stays small next to the state work); head_dim blocks
/// halved from 64 until the grid has about 128 workgroups (the workgroups
/// of a head recompute its C B^T, so smaller blocks cost work); n-chunks of
/// up to 32 states.
static ConfigAttr vulkanSsdHeuristic(SsdOp op, const TargetInfo &target) {
  SsdDims d = getDims(op);
  int64_t subgroup = std::max<unsigned>(1, target.subgroupSize);
  int64_t preferred = std::max<int64_t>(1, 256 / subgroup);
  int64_t chunk0 = std::min<int64_t>(64, ceilPow2(d.seq));
  int64_t blockP0 = std::min<int64_t>(64, ceilPow2(d.headDim));
  while (blockP0 > 16 &&
         d.batch * d.heads * ((d.headDim + blockP0 - 1) / blockP0) < 128)
    blockP0 /= 2;
  SmallVector<int64_t> blockNs = stateTiles(d.state, {8, 16, 32});
  std::reverse(blockNs.begin(), blockNs.end());
  SmallVector<int64_t> subgroupCounts = {preferred, preferred * 2,
                                         preferred * 4};
  for (int64_t w = preferred / 2; w >= 1; w /= 2)
    subgroupCounts.push_back(w);
  ConfigAttr fallback;
  for (int64_t chunk = chunk0; chunk >= 1; chunk /= 2) {
    for (int64_t blockP = blockP0; blockP >= 1; blockP /= 2)
      for (int64_t blockN : blockNs) {
        if (blockN > 32 && blockN != blockNs.back())
          continue;
        for (int64_t w : subgroupCounts) {
          ConfigAttr config =
              ConfigAttr::get(op.getContext(), {{"chunk_size", chunk},
                                                {"block_p", blockP},
                                                {"block_n", blockN},
                                                {"num_subgroups", w}});
          if (!fallback)
            fallback = config;
          if (succeeded(op.verifyConfig(config, target, llvm::nulls())))
            return config;
        }
      }
    if (chunk < 8)
      break;
  }
  // Nothing fits: the first choice, which verification then reports.
  return fallback;
}

ConfigAttr SsdOp::getHeuristicConfig(const TargetInfo &target) {
  if (target.isVulkan())
    return vulkanSsdHeuristic(*this, target);
  SsdDims d = getDims(*this);
  int64_t lanes = target.f32Lanes();
  // Small chunks keep the quadratic intra-chunk part (~chunk/(4 d_state) of
  // the state work) cheap; 64 still gives the matmuls long inner loops.
  int64_t chunk = std::min<int64_t>(64, ceilPow2(d.seq));
  // A whole head per workgroup avoids recomputing the decay matrix per
  // column block; split head_dim only when there are too few workgroups.
  int64_t blockP = roundUp(d.headDim, lanes);
  int64_t cores = std::max<unsigned>(1, target.numCores);
  while (blockP > lanes && blockP % (2 * lanes) == 0 &&
         d.batch * d.heads * ((d.headDim + blockP - 1) / blockP) < 2 * cores)
    blockP /= 2;
  int64_t blockN = stateTiles(d.state, {64}).front();
  ConfigAttr config = ConfigAttr::get(
      getContext(),
      {{"chunk_size", chunk}, {"block_p", blockP}, {"block_n", blockN}});
  // Large chunks can overflow a small cache; halve the chunk size.
  while (failed(verifyConfig(config, target, llvm::nulls())) &&
         config.lookupOr("chunk_size", 1) > 1)
    config = config.with("chunk_size", config.lookupOr("chunk_size", 1) / 2);
  return config;
}
