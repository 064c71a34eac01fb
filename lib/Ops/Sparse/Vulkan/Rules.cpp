//===- Rules.cpp - native sparse attention configs and tiling on Vulkan ---===//
//
// `block_t` is the workgroup's thread count, one token each. With the
// compression branch the select dispatch keeps two rows of `blocks` f32 per
// thread in workgroup memory, which bounds it. The heuristic takes the
// largest of 64, 32, ... 1 that fits.
//
// `cooperative = 1` runs the attend dispatch on cooperative matrices
// (CoopAttend.cpp); the rules below say what it needs. The heuristic takes
// it wherever it verifies (f16/bf16, head_dim in 16-column tiles, at most
// 16 heads per KV head, a device with the matrices): on an H200 it ran whole
// and correct (24 check cases against PyTorch f32, bench/vulkan/nsa.py) and
// its attend dispatch took 10.5 ms against the portable kernel's 107.8 ms
// (B1 T4096 H16/4 D128, top-16 of 64, window 512; docs/ops/native-sparse.md).
//
// `subgroup_select = 1` runs the select dispatch with one subgroup per token
// (LaneSelect.cpp). The heuristic takes it wherever it verifies (the
// compression branch, subgroup shuffles, a power-of-two subgroup): on an
// H200 it ran correct, byte for byte equal to the one-thread-per-token
// selection in 10 check cases, and took 2.24 ms against 7.33 ms at the
// shape above (the op 12.77 ms against 17.84; bench/vulkan/nsa.py).
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/VulkanFeatureChecks.h"
#include "Sparse/Kernels.h"
#include "Sparse/Vulkan/NativeSparse.h"

#include "ejk/Ops/Sparse/Config.h"

using namespace mlir;
using namespace mlir::ejk;

static NativeSparsePlan makePlan(NativeSparseAttentionOp op,
                                 const NativeSparseConfig &config,
                                 const TargetInfo &target) {
  NativeSparsePlan plan;
  static_cast<NativeSparseProblem &>(plan) = readNativeSparseProblem(op);
  plan.vulkan = true;
  plan.lanes = 1;
  plan.blockT = config.blockT;
  plan.cooperative = config.cooperative;
  plan.laneSelect = config.subgroupSelect;
  plan.subgroupSize = target.subgroupSize;
  return plan;
}

/// Why the cooperative attend dispatch cannot run `plan` on `target`.
static LogicalResult verifyCooperative(const NativeSparsePlan &plan,
                                       const TargetInfo &target,
                                       raw_ostream &reason) {
  llvm::StringLiteral key = NativeSparseConfig::kCooperative;
  Type element = plan.elementType;
  if (!target.hasCooperativeMatrix) {
    reason << "'" << key << "' needs a device with cooperative matrices";
    return failure();
  }
  if (!element.isF16() && !element.isBF16()) {
    reason << "'" << key << "' needs f16 or bf16 inputs (the matrices' "
           << "operands), got " << element;
    return failure();
  }
  if (element.isBF16() && !target.hasVulkanFeature("cooperative_matrix_bf16")) {
    reason << "'" << key << "' with bf16 inputs needs bf16 cooperative "
           << "matrices (the device feature 'cooperative_matrix_bf16')";
    return failure();
  }
  if (plan.headDim % 16 != 0) {
    reason << "'" << key << "' needs a head_dim in whole 16-column tiles, got "
           << plan.headDim;
    return failure();
  }
  if (plan.group() > 16) {
    reason << "'" << key << "' puts the " << plan.group()
           << " query heads of a KV head in the 16 rows of a matrix: at most "
              "16";
    return failure();
  }
  int64_t lanes = target.subgroupSize / 16;
  if (target.subgroupSize % 16 != 0 || lanes == 0 || 16 % lanes != 0) {
    reason << "'" << key << "' needs a subgroup of 16, 32, 64, 128 or 256 "
           << "lanes, got " << target.subgroupSize;
    return failure();
  }
  if (lanes > 1 && !target.hasVulkanFeature("subgroup_shuffle")) {
    reason << "'" << key << "' combines each row over " << lanes
           << " lanes with subgroup shuffles ('subgroup_shuffle')";
    return failure();
  }
  int64_t bytes = coopAttendSharedBytes(plan);
  if (bytes > target.sharedMemoryBytes) {
    reason << "'" << key << "' stages " << bytes
           << " bytes of workgroup memory, the device has "
           << target.sharedMemoryBytes;
    return failure();
  }
  return success();
}

/// Why the one-subgroup-per-token select dispatch cannot run `plan` on
/// `target`.
static LogicalResult verifyLaneSelect(const NativeSparsePlan &plan,
                                      const TargetInfo &target,
                                      raw_ostream &reason) {
  llvm::StringLiteral key = NativeSparseConfig::kSubgroupSelect;
  if (!plan.compress) {
    reason << "'" << key << "' runs the compression branch's selection, "
           << "which needs 'g_cmp'";
    return failure();
  }
  int64_t lanes = target.subgroupSize;
  if (lanes < 1 || (lanes & (lanes - 1)) != 0) {
    reason << "'" << key << "' needs a subgroup size that is a power of "
           << "two, got " << lanes;
    return failure();
  }
  if (!target.hasVulkanFeature("subgroup_shuffle")) {
    reason << "'" << key << "' shares blocks across lanes with subgroup "
           << "shuffles ('subgroup_shuffle')";
    return failure();
  }
  // A lane's blocks and its slice of head_dim are unrolled into registers
  // (LaneSelect.cpp): a head_dim of 2^40 ran the compiler out of memory.
  constexpr int64_t kMaxPerLane = 256;
  int64_t blocksPerLane =
      ceilDiv(std::max<int64_t>(plan.numBlocks(), 1), lanes);
  int64_t dimsPerLane = ceilDiv(plan.headDim, lanes);
  if (blocksPerLane > kMaxPerLane || dimsPerLane > kMaxPerLane) {
    reason << "'" << key << "' unrolls each lane's " << blocksPerLane
           << " blocks and " << dimsPerLane
           << " head_dim elements into registers: at most " << kMaxPerLane
           << " each";
    return failure();
  }
  // One workgroup a token along x: Vulkan guarantees 65535 workgroups a
  // dimension (the heuristic then takes the one-thread-per-token form).
  if (plan.seq > 65535) {
    reason << "'" << key << "' runs one workgroup a token: " << plan.seq
           << " tokens exceed the 65535 workgroups Vulkan guarantees along "
           << "a dimension";
    return failure();
  }
  return success();
}

LogicalResult VulkanNativeSparseAttention::verifyConfig(
    NativeSparseAttentionOp op, ConfigAttr attr, const TargetInfo &target,
    raw_ostream &reason) {
  std::optional<NativeSparseConfig> config =
      NativeSparseConfig::read(attr, reason);
  if (!config)
    return failure();
  // The device features every kernel needs for the inputs' type (without
  // them an f16 kernel failed to legalize 'memref.load' or
  // 'gpu.subgroup_mma_load_matrix', and a bf16 one named its dispatch).
  Type element = op.getQuery().getType().getElementType();
  if (failed(checkVulkanBufferFeatures(element, target, reason)))
    return failure();
  int64_t maxThreads = std::min<int64_t>(target.maxWorkgroupInvocations,
                                         target.maxWorkgroupSize[0]);
  if (config->blockT > maxThreads) {
    reason << "'" << NativeSparseConfig::kBlockT << "' (" << config->blockT
           << ") is the workgroup's thread count: at most " << maxThreads;
    return failure();
  }
  NativeSparsePlan plan = makePlan(op, *config, target);
  if (plan.cooperative && failed(verifyCooperative(plan, target, reason)))
    return failure();
  if (plan.laneSelect && failed(verifyLaneSelect(plan, target, reason)))
    return failure();
  // The kernels unroll a token's head_dim accumulators into a thread's
  // registers (Kernels.cpp): a head_dim of 2^40 ran the compiler out of
  // memory.
  constexpr int64_t kMaxHeadDim = 1024;
  if (plan.headDim > kMaxHeadDim) {
    reason << "head_dim " << plan.headDim << " is unrolled into each "
           << "thread's registers: at most " << kMaxHeadDim << " on Vulkan";
    return failure();
  }
  // SPIR-V indexes with 32-bit integers (the positions the kernels form
  // from these stay below 2^31 too).
  constexpr int64_t kMaxIndex = (int64_t(1) << 30);
  if (plan.blockSize > kMaxIndex || plan.windowSize > kMaxIndex) {
    reason << "'block_size' (" << plan.blockSize << ") and 'window_size' ("
           << plan.windowSize << ") must be at most " << kMaxIndex
           << " on Vulkan (32-bit indices)";
    return failure();
  }
  if (plan.compress && !plan.laneSelect &&
      plan.selectSharedBytes() > target.sharedMemoryBytes) {
    reason << "'" << NativeSparseConfig::kBlockT << "' (" << config->blockT
           << ") needs " << plan.selectSharedBytes()
           << " bytes of workgroup memory for the selection (two rows of "
           << plan.numBlocks() << " blocks per token), more than the "
           << target.sharedMemoryBytes << " of the device";
    return failure();
  }
  return success();
}

SmallVector<ConfigAttr>
VulkanNativeSparseAttention::configSpace(NativeSparseAttentionOp op,
                                         const TargetInfo &target, bool full) {
  SmallVector<ConfigAttr> space;
  for (bool lanes : {false, true})
    for (bool coop : {false, true})
      for (int64_t t : {1, 8, 16, 32, 64, 128}) {
        ConfigAttr attr =
            NativeSparseConfig{t, coop, lanes}.toAttr(op.getContext());
        if ((full || t >= 16) &&
            succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
  if (space.empty())
    space.push_back(heuristicConfig(op, target));
  return space;
}

ConfigAttr
VulkanNativeSparseAttention::heuristicConfig(NativeSparseAttentionOp op,
                                             const TargetInfo &target) {
  for (bool lanes : {true, false})
    for (bool coop : {true, false})
      for (int64_t t = 64; t > 1; t /= 2) {
        ConfigAttr attr =
            NativeSparseConfig{t, coop, lanes}.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          return attr;
      }
  // Even one thread may not fit: verification then reports it.
  return NativeSparseConfig{1}.toAttr(op.getContext());
}

LogicalResult VulkanNativeSparseAttention::tile(NativeSparseAttentionOp op,
                                                ConfigAttr attr,
                                                DispatchRewriter &rewriter) {
  NativeSparsePlan plan = makePlan(
      op, *NativeSparseConfig::read(attr, llvm::nulls()), rewriter.target());
  return tileNativeSparseAttention(op, plan, rewriter);
}
