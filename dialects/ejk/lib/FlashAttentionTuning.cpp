//===- FlashAttentionTuning.cpp - TunableOpInterface for flash attention --===//
//
// Config entries:
//   block_q        query rows per workgroup
//   block_k        keys per inner block of the online softmax
//   num_subgroups  subgroups per workgroup (Vulkan only)
//
//===----------------------------------------------------------------------===//

#include "ejk/Dialect/Ejk/CpuAttentionRows.h"
#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Dialect/Ejk/GpuAttentionLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
/// The dimensions that config choices depend on.
struct AttentionDims {
  int64_t seqQ, seqK, headDim, headDimV, elementBytes, numHeads, numKvHeads,
      batch;
};
} // namespace

static AttentionDims getDims(FlashAttentionOp op) {
  auto q = op.getQuery().getType();
  auto v = op.getValue().getType();
  return {q.getDimSize(1),
          op.getKey().getType().getDimSize(1),
          q.getDimSize(3),
          v.getDimSize(3),
          q.getElementType().getIntOrFloatBitWidth() / 8,
          q.getDimSize(2),
          op.getKey().getType().getDimSize(2),
          q.getDimSize(0)};
}

static CpuAttentionRows cpuRows(const AttentionDims &d, int64_t blockQ) {
  return {d.seqQ, d.numHeads, d.numKvHeads, blockQ};
}

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

std::string FlashAttentionOp::getProblemKey() {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << getOperationName();
  appendType(os, "q", getQuery());
  appendType(os, "k", getKey());
  appendType(os, "v", getValue());
  appendType(os, "bias", getBias());
  appendType(os, "mask", getMask());
  os << ";segments=" << (getQSegmentIds() ? 1 : 0);
  os << ";causal=" << (getCausal() ? 1 : 0);
  if (std::optional<ArrayRef<int64_t>> window = getSlidingWindow())
    os << ";window=" << (*window)[0] << ',' << (*window)[1];
  os << ";softcap=" << (getLogitsSoftCapAttr() ? 1 : 0);
  os << ";dropout=" << (getDropoutProbAttr() ? 1 : 0);
  os << ";lse=" << (getLse() ? 1 : 0);
  return key;
}

/// Working set of one CPU workgroup: the query tile, one key/value block,
/// the score tile and the accumulator, all in f32.
static int64_t cpuWorkingSetBytes(const AttentionDims &d, int64_t blockQ,
                                  int64_t blockK) {
  return 4 * (blockQ * d.headDim + blockK * (d.headDim + d.headDimV) +
              blockQ * blockK + blockQ * d.headDimV);
}

/// Whether Vulkan code for the op uses cooperative matrices: f16 inputs,
/// head dims in whole 16x16 tiles and a device with 16x16x16 f16 -> f32.
static bool usesCooperativeMatrix(FlashAttentionOp op,
                                  const TargetInfo &target) {
  AttentionDims d = getDims(op);
  // The smallest cooperative config (one subgroup, block_k 16) must fit
  // shared memory; otherwise the portable path runs the op.
  constexpr int64_t t = GpuAttentionLayout::kTile;
  GpuAttentionLayout one;
  one.blockQ = one.blockK = t;
  int64_t smallest =
      2 * one.kvStageElements(d.headDim, d.headDimV) +
      t * (4 * one.sStride() + 2 * one.pStride() + 4 * one.alphaStride());
  return target.hasCooperativeMatrix &&
         op.getQuery().getType().getElementType().isF16() &&
         d.headDim % t == 0 && d.headDimV % t == 0 &&
         smallest <= target.sharedMemoryBytes;
}

/// Whether the cooperative path keeps its softmax in registers on `target`
/// (NVIDIA's matrix layout; GpuAttentionLayout::registerSoftmax).
static bool hasRegisterSoftmax(const TargetInfo &target) {
  return target.subgroupSize == 32 &&
         target.hasVulkanFeature("cooperative_matrix_nv_layout");
}

std::optional<GpuAttentionLayout>
mlir::ejk::getGpuAttentionLayout(FlashAttentionOp op, ConfigAttr config,
                                 const TargetInfo &target,
                                 llvm::raw_ostream &reason) {
  AttentionDims d = getDims(op);
  return GpuAttentionLayout::compute(
      d.headDim, d.headDimV, config.lookupOr("block_q", 0),
      config.lookupOr("block_k", 0), config.lookupOr("num_subgroups", 1),
      target.subgroupSize, target.maxWorkgroupInvocations,
      target.sharedMemoryBytes, usesCooperativeMatrix(op, target),
      hasRegisterSoftmax(target), target.hasVulkanFeature("subgroup_shuffle"),
      reason);
}

LogicalResult FlashAttentionOp::verifyConfig(ConfigAttr config,
                                             const TargetInfo &target,
                                             raw_ostream &reason) {
  if (!config) {
    reason << "no config";
    return failure();
  }
  std::optional<int64_t> blockQ = config.lookup("block_q");
  std::optional<int64_t> blockK = config.lookup("block_k");
  if (!blockQ || !blockK) {
    reason << "config needs 'block_q' and 'block_k'";
    return failure();
  }
  for (NamedAttribute entry : config.getEntries())
    if (!llvm::is_contained(getConfigNames(), entry.getName().strref())) {
      reason << "unknown config entry '" << entry.getName().strref() << "'";
      return failure();
    }
  AttentionDims d = getDims(*this);
  if (target.isCpu()) {
    if (config.lookup("num_subgroups")) {
      reason << "'num_subgroups' applies to Vulkan targets only";
      return failure();
    }
    if (*blockK % target.f32Lanes() != 0) {
      reason << "'block_k' (" << *blockK << ") must be a multiple of the "
             << target.f32Lanes() << " f32 lanes of a " << target.vectorBits
             << "-bit vector";
      return failure();
    }
    int64_t bytes = cpuWorkingSetBytes(d, *blockQ, *blockK);
    if (bytes > target.l2Bytes) {
      reason << "working set of " << bytes << " bytes exceeds the "
             << target.l2Bytes << "-byte L2 cache";
      return failure();
    }
    if (std::optional<int64_t> splits = config.lookup("key_splits")) {
      int64_t keyBlocks = (d.seqK + *blockK - 1) / *blockK;
      if (*splits < 1 || *splits > keyBlocks) {
        reason << "'key_splits' (" << *splits << ") must be in [1, "
               << keyBlocks << "], the number of key blocks";
        return failure();
      }
      CpuAttentionRows rows = cpuRows(d, *blockQ);
      if (*splits > 1 && !rows.oneRowBlockPerHead()) {
        reason << "'key_splits' > 1 needs one row block per head: "
               << rows.rowsPerHead() << " rows per head exceed 'block_q' ("
               << *blockQ << ")";
        return failure();
      }
    }
    return success();
  }
  if (config.lookup("key_splits")) {
    reason << "'key_splits' applies to CPU targets only";
    return failure();
  }
  if (getQuery().getType().getElementType().isF16() &&
      !(target.hasVulkanFeature("float16") &&
        target.hasVulkanFeature("storage16"))) {
    reason << "f16 inputs need the device features 'float16' and "
              "'storage16'";
    return failure();
  }
  if (!getGpuAttentionLayout(*this, config, target, reason))
    return failure();
  return success();
}

/// Smallest power of two >= n (and >= 1).
static int64_t ceilPow2(int64_t n) {
  return static_cast<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(n, 1)));
}

/// The first valid config in order of preference: about 128 threads per
/// workgroup, query blocks no larger than the problem needs.
static ConfigAttr vulkanHeuristic(FlashAttentionOp op,
                                  const TargetInfo &target) {
  AttentionDims d = getDims(op);
  MLIRContext *context = op.getContext();
  // 512 threads on 128 x 64 blocks: measured best on the H200 for
  // gfa-d128 f32 (24.6 TFLOP/s against 18.8 for 64 x 64 blocks of 256
  // threads; docs/performance-vulkan.md).
  int64_t subgroups =
      std::max<int64_t>(1, 512 / std::max<int64_t>(1, target.subgroupSize));
  SmallVector<SmallVector<std::pair<StringRef, int64_t>>> candidates;
  if (usesCooperativeMatrix(op, target)) {
    // With the softmax in registers, large blocks pay no per-subgroup score
    // stage: 128 x 64 blocks of 8 subgroups were the fastest of five
    // configs on all six gfa prefill workloads on the H200, 1.09-1.19x the
    // 64 x 16 blocks (docs/performance-vulkan.md). Not for short queries
    // (decode), where a 128-row block is mostly padding.
    if (hasRegisterSoftmax(target) && ceilPow2(d.seqQ) >= 128)
      candidates.push_back(
          {{"block_q", 128}, {"block_k", 64}, {"num_subgroups", 8}});
    for (int64_t w : {int64_t(4), int64_t(2), int64_t(1)})
      // block_k 16 first: measured best on the H200 (65.7 TFLOP/s for
      // gfa-d128 against 57.3 with 32; docs/performance-vulkan.md).
      for (int64_t blockK : {int64_t(16), int64_t(32)})
        candidates.push_back(
            {{"block_q", 16 * w}, {"block_k", blockK}, {"num_subgroups", w}});
  } else {
    for (int64_t w = subgroups; w >= 1; w /= 2)
      for (int64_t blockQ :
           {int64_t(128), int64_t(64), int64_t(32), int64_t(16), int64_t(8)})
        for (int64_t blockK : {int64_t(64), int64_t(32), int64_t(16)}) {
          if ((blockQ > ceilPow2(d.seqQ) && blockQ > 8) ||
              (blockK > ceilPow2(d.seqK) && blockK > 16))
            continue;
          candidates.push_back(
              {{"block_q", blockQ}, {"block_k", blockK}, {"num_subgroups", w}});
        }
  }
  for (auto &values : candidates) {
    ConfigAttr config = ConfigAttr::get(context, values);
    if (succeeded(op.verifyConfig(config, target, llvm::nulls())))
      return config;
  }
  // Nothing fits: the smallest config, which verification then reports.
  return ConfigAttr::get(
      context, {{"block_q", 8}, {"block_k", 16}, {"num_subgroups", 1}});
}

SmallVector<ConfigAttr>
FlashAttentionOp::getConfigSpace(const TargetInfo &target, bool full) {
  AttentionDims d = getDims(*this);
  SmallVector<int64_t> blockQs, blockKs, subgroupCounts = {1};
  if (target.isCpu()) {
    blockQs = full ? SmallVector<int64_t>{4, 8, 16, 32, 64, 128}
                   : SmallVector<int64_t>{8, 16, 32};
    blockKs = full ? SmallVector<int64_t>{32, 64, 128, 256, 512}
                   : SmallVector<int64_t>{64, 128, 256};
  } else {
    blockQs = full ? SmallVector<int64_t>{8, 16, 32, 64, 128}
                   : SmallVector<int64_t>{16, 32, 64};
    blockKs = full ? SmallVector<int64_t>{16, 32, 64, 128}
                   : SmallVector<int64_t>{32, 64};
    subgroupCounts = full ? SmallVector<int64_t>{1, 2, 4, 8, 16}
                          : SmallVector<int64_t>{2, 4, 8};
  }
  SmallVector<ConfigAttr> space;
  for (int64_t blockQ : blockQs) {
    // Blocks much larger than the problem only add remainder work.
    // (Vulkan keeps block_q 16: the cooperative path's smallest.)
    int64_t smallestBlockQ = target.isCpu() ? blockQs.front() : 16;
    if (blockQ > std::max(ceilPow2(d.seqQ), smallestBlockQ))
      continue;
    for (int64_t blockK : blockKs) {
      if (blockK > ceilPow2(d.seqK) && blockK != blockKs.front())
        continue;
      for (int64_t subgroups : subgroupCounts) {
        SmallVector<std::pair<StringRef, int64_t>> values = {
            {"block_q", blockQ}, {"block_k", blockK}};
        if (target.isVulkan())
          values.emplace_back("num_subgroups", subgroups);
        ConfigAttr config = ConfigAttr::get(getContext(), values);
        if (succeeded(verifyConfig(config, target, llvm::nulls())))
          space.push_back(config);
        // Decode shapes: the keys split across workgroups too.
        if (!target.isCpu() || !cpuRows(d, blockQ).oneRowBlockPerHead())
          continue;
        for (int64_t splits : full ? SmallVector<int64_t>{2, 4, 8}
                                   : SmallVector<int64_t>{2, 4}) {
          ConfigAttr split = config.with("key_splits", splits);
          if (succeeded(verifyConfig(split, target, llvm::nulls())))
            space.push_back(split);
        }
      }
    }
  }
  return space;
}

ConfigAttr FlashAttentionOp::getHeuristicConfig(const TargetInfo &target) {
  AttentionDims d = getDims(*this);
  SmallVector<std::pair<StringRef, int64_t>> values;
  if (target.isCpu()) {
    // Masked key blocks on the causal / window boundary are computed in
    // full: smaller key blocks waste less there (measured on fa-d128:
    // 0.93x instead of 0.88x of the non-causal rate; docs/performance.md).
    int64_t maxBlockK = getCausal() || getSlidingWindow() ? 64 : 128;
    // Short queries (decode) with grouped KV heads: the block takes the
    // rows of all query heads of a KV head, which the kernel then packs
    // together so that K/V are read once per group (CpuAttentionPlan::
    // packsGroupRows).
    int64_t group = d.numHeads / d.numKvHeads;
    int64_t rows = d.seqQ < 16 && group > 1 ? d.seqQ * group : d.seqQ;
    // Up to 64 grouped rows (MQA decode) still fit one row block, which
    // keeps K/V read in place.
    int64_t blockQ =
        std::min<int64_t>(rows == d.seqQ ? 16 : 64, ceilPow2(rows));
    int64_t blockK = std::max<int64_t>(
        target.f32Lanes(), std::min<int64_t>(maxBlockK, ceilPow2(d.seqK)));
    values = {{"block_q", blockQ}, {"block_k", blockK}};
    // Decode: with one row block per head the grid has only heads x batch
    // workgroups; split the keys (flash-decoding) until every core has two.
    CpuAttentionRows layout = cpuRows(d, blockQ);
    if (layout.oneRowBlockPerHead()) {
      int64_t workgroups =
          d.batch * (layout.packsGroupRows() ? d.numKvHeads : d.numHeads);
      int64_t wanted = 2 * std::max<int64_t>(1, target.numCores);
      int64_t keyBlocks = (d.seqK + blockK - 1) / blockK;
      int64_t splits =
          std::min<int64_t>(keyBlocks, (wanted + workgroups - 1) / workgroups);
      if (splits > 1)
        values.emplace_back("key_splits", splits);
    }
  } else {
    return vulkanHeuristic(*this, target);
  }
  ConfigAttr config = ConfigAttr::get(getContext(), values);
  // Large head dims can overflow a small device's limits; halve block_k
  // until the config fits.
  while (failed(verifyConfig(config, target, llvm::nulls())) &&
         config.lookupOr("block_k", 1) > 1)
    config = config.with("block_k", config.lookupOr("block_k", 1) / 2);
  return config;
}
