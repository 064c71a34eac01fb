//===- GradRules.cpp - flash attention backward configs on Vulkan ---------===//
//
// Which configs are valid on a Vulkan device (each pass has a layout of
// GradKernel.h: threads that divide its blocks, accumulators that fit
// registers, stages that fit shared memory), the space the tuner tries, and
// the heuristic.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/FlashAttentionGrad.h"
#include "Attention/Vulkan/GradKernel.h"
#include "Common/Arithmetic.h"

#include "ejk/Ops/Attention/GradConfig.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
/// Accumulators one thread may keep in registers (dK and dV, or dQ).
constexpr int64_t kMaxAccumulators = 128;
/// S and dP values one thread may keep.
constexpr int64_t kMaxScores = 32;
/// Threads per workgroup, in order of preference.
constexpr int64_t kThreadCounts[] = {128, 256, 64, 32, 16, 8};

/// Largest power of two <= `limit` that divides `value`.
int64_t powerOfTwoDividing(int64_t value, int64_t limit) {
  int64_t x = 1;
  while (x * 2 <= limit && value % (x * 2) == 0)
    x *= 2;
  return x;
}
} // namespace

std::optional<VulkanGradPassLayout>
VulkanGradPassLayout::compute(bool keyValue, int64_t headDim, int64_t headDimV,
                              int64_t blockQ, int64_t blockK,
                              int64_t maxInvocations, int64_t sharedLimit,
                              llvm::raw_ostream &reason) {
  StringRef pass = keyValue ? "dK/dV" : "dQ";
  if (blockQ < 1 || blockK < 1 || blockQ > 1024 || blockK > 1024) {
    reason << "blocks of the " << pass << " pass must be in [1, 1024], got "
           << blockQ << " x " << blockK;
    return std::nullopt;
  }
  VulkanGradPassLayout l;
  l.blockQ = blockQ;
  l.blockK = blockK;
  int64_t accRowsTotal = keyValue ? blockK : blockQ;
  std::string why;
  for (int64_t threads : kThreadCounts) {
    if (threads > maxInvocations)
      continue;
    l.threads = threads;
    l.scoreThreadsX =
        powerOfTwoDividing(blockK, std::min<int64_t>(16, threads));
    l.accThreadsX = std::min<int64_t>(16, threads);
    if (blockQ % l.scoreThreadsY() != 0 || accRowsTotal % l.accThreadsY() != 0)
      continue;
    l.scoreRows = blockQ / l.scoreThreadsY();
    l.scoreKeys = blockK / l.scoreThreadsX;
    l.accRows = accRowsTotal / l.accThreadsY();
    l.accCols = ceilDiv(headDim, l.accThreadsX);
    l.accColsV = keyValue ? ceilDiv(headDimV, l.accThreadsX) : 0;
    if (2 * l.scoreRows * l.scoreKeys > kMaxScores ||
        l.accRows * (l.accCols + l.accColsV) > kMaxAccumulators)
      continue;
    l.sharedBytes =
        4 * (blockQ * (rowStride(headDim) + rowStride(headDimV)) +
             (keyValue ? 2 : 1) * blockQ * l.pStride() + 2 * blockQ);
    if (l.sharedBytes > sharedLimit) {
      reason << "the " << pass << " pass stages " << l.sharedBytes
             << " bytes of shared memory (" << blockQ
             << " rows of Q and dO, P and dS), the device has " << sharedLimit;
      return std::nullopt;
    }
    return l;
  }
  reason << "no workgroup of 8 to 256 threads runs the " << pass
         << " pass's blocks " << blockQ << " x " << blockK
         << " with whole thread shares and at most " << kMaxAccumulators
         << " accumulators and " << kMaxScores
         << " scores per thread; use smaller blocks";
  return std::nullopt;
}

std::optional<VulkanGradPassLayout> VulkanGradPassLayout::computeCooperative(
    bool keyValue, int64_t headDim, int64_t headDimV, int64_t blockQ,
    int64_t blockK, int64_t maxInvocations, int64_t sharedLimit,
    llvm::raw_ostream &reason) {
  StringRef pass = keyValue ? "dK/dV" : "dQ";
  if (blockQ < 16 || blockK < 16 || blockQ % 16 != 0 || blockK % 16 != 0 ||
      blockQ > 1024 || blockK > 1024) {
    reason << "cooperative-matrix code needs the " << pass
           << " pass's blocks to be multiples of 16 in [16, 1024], got "
           << blockQ << " x " << blockK;
    return std::nullopt;
  }
  VulkanGradPassLayout l;
  l.cooperative = true;
  l.blockQ = blockQ;
  l.blockK = blockK;
  // A subgroup of 32 per 16 rows of what the pass accumulates.
  l.threads = 32 * (keyValue ? blockK : blockQ) / 16;
  if (l.threads > maxInvocations) {
    reason << "the " << pass << " pass's " << l.threads << " threads exceed "
           << maxInvocations << " invocations per workgroup";
    return std::nullopt;
  }
  l.sharedBytes = 2 * l.coopStageElements(headDim, headDimV) + 8 * blockQ;
  if (l.sharedBytes > sharedLimit) {
    reason << "the " << pass << " pass stages " << l.sharedBytes
           << " bytes of shared memory (f16 rows of K and V, Q and dO), the "
              "device has "
           << sharedLimit;
    return std::nullopt;
  }
  return l;
}

/// Whether both passes run on cooperative matrices: f16 inputs, head dims of
/// whole 16x16 tiles up to 128 (the dK/dV pass keeps K, V, dK and dV in
/// registers), and a device with 16x16x16 f16 -> f32 matrices laid out as
/// NVIDIA's mma.sync fragments (the elementwise part relies on it).
static bool usesCooperativeMatrix(FlashAttentionGradOp op,
                                  const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  return target.hasCooperativeMatrix && target.subgroupSize == 32 &&
         target.hasVulkanFeature("cooperative_matrix_nv_layout") &&
         target.hasVulkanFeature("float16") &&
         op.getQuery().getType().getElementType().isF16() &&
         p.headDim % 16 == 0 && p.headDimV % 16 == 0 && p.headDim <= 128 &&
         p.headDimV <= 128;
}

std::optional<VulkanAttentionGradPlan> mlir::ejk::getVulkanAttentionGradPlan(
    const AttentionProblem &problem, Type element, bool cooperative,
    ConfigAttr attr, const TargetInfo &target, raw_ostream &reason) {
  std::optional<FlashAttentionGradConfig> config =
      FlashAttentionGradConfig::read(attr, reason);
  if (!config)
    return std::nullopt;
  if (config->fuseDq) {
    reason << "'" << FlashAttentionGradConfig::kFuseDq
           << "' has no Vulkan kernel (a workgroup per KV head is too few for "
              "a GPU): give 'dq_block_q' and 'dq_block_k' instead";
    return std::nullopt;
  }
  if ((element.isF16() || element.isBF16()) &&
      !target.hasVulkanFeature("storage16")) {
    reason << "f16/bf16 inputs need the device feature 'storage16'";
    return std::nullopt;
  }
  // bf16 buffers are read as 16-bit integers (ejk-convert-to-spirv): without
  // 'int16' a dispatch was refused by its own name, not the op's.
  if (element.isBF16() && !target.hasVulkanFeature("int16")) {
    reason << "bf16 inputs, read as 16-bit integers, need the device "
              "feature 'int16'";
    return std::nullopt;
  }
  VulkanAttentionGradPlan plan;
  static_cast<AttentionProblem &>(plan) = problem;
  plan.subgroupSize = target.subgroupSize;
  plan.cooperative = cooperative;
  auto compute = plan.cooperative ? VulkanGradPassLayout::computeCooperative
                                  : VulkanGradPassLayout::compute;
  std::optional<VulkanGradPassLayout> keyValue =
      compute(true, plan.headDim, plan.headDimV, config->blockQ, config->blockK,
              target.maxWorkgroupInvocations, target.sharedMemoryBytes, reason);
  if (!keyValue)
    return std::nullopt;
  std::optional<VulkanGradPassLayout> query = compute(
      false, plan.headDim, plan.headDimV, config->dqBlockQ, config->dqBlockK,
      target.maxWorkgroupInvocations, target.sharedMemoryBytes, reason);
  if (!query)
    return std::nullopt;
  plan.keyValue = *keyValue;
  plan.query = *query;
  // Delta: up to 8 lanes per row, combined with shuffles where the device
  // has them.
  plan.delta.threads = std::min<int64_t>(64, target.maxWorkgroupInvocations);
  if (target.hasVulkanFeature("subgroup_shuffle"))
    plan.delta.lanes = powerOfTwoDividing(
        plan.delta.threads,
        std::min<int64_t>({8, target.subgroupSize, plan.delta.threads}));
  return plan;
}

/// The plan of `op` under `attr` on `target`, or nullopt with the reason.
static std::optional<VulkanAttentionGradPlan>
getVulkanGradPlan(FlashAttentionGradOp op, ConfigAttr attr,
                  const TargetInfo &target, raw_ostream &reason) {
  return getVulkanAttentionGradPlan(
      readAttentionProblem(op), op.getQuery().getType().getElementType(),
      usesCooperativeMatrix(op, target), attr, target, reason);
}

std::optional<VulkanAttentionGradPlan>
mlir::ejk::getVulkanAttentionGradPlan(FlashAttentionGradOp op, ConfigAttr attr,
                                      const TargetInfo &target,
                                      raw_ostream &reason) {
  return getVulkanGradPlan(op, attr, target, reason);
}

LogicalResult VulkanFlashAttentionGrad::verifyConfig(FlashAttentionGradOp op,
                                                     ConfigAttr attr,
                                                     const TargetInfo &target,
                                                     raw_ostream &reason) {
  // As the forward's rule (Rules.cpp): a Vulkan buffer cannot be empty.
  // Without queries or keys the gradients are constants, with no dispatch.
  if (Value aux = op.getSoftmaxAux();
      aux && cast<ShapedType>(aux.getType()).getNumElements() == 0 &&
      op.getQuery().getType().getNumElements() != 0 &&
      op.getKey().getType().getNumElements() != 0) {
    reason << "a 'softmax_aux' of no elements has no Vulkan kernel (a "
              "Vulkan buffer cannot be empty): leave it out, which means "
              "the same";
    return failure();
  }
  return success(getVulkanGradPlan(op, attr, target, reason).has_value());
}

SmallVector<ConfigAttr>
VulkanFlashAttentionGrad::configSpace(FlashAttentionGradOp op,
                                      const TargetInfo &target, bool full) {
  AttentionProblem p = readAttentionProblem(op);
  SmallVector<int64_t> blockQs =
      full ? SmallVector<int64_t>{8, 16, 32, 64} : SmallVector<int64_t>{16, 32};
  SmallVector<int64_t> blockKs =
      full ? SmallVector<int64_t>{16, 32, 64} : SmallVector<int64_t>{16, 32};
  auto fits = [](int64_t block, int64_t size, ArrayRef<int64_t> all) {
    return block <= std::max(ceilPow2(size), all.front());
  };
  SmallVector<ConfigAttr> space;
  for (int64_t blockQ : blockQs)
    for (int64_t blockK : blockKs)
      for (int64_t dqBlockQ : blockQs)
        for (int64_t dqBlockK : blockKs) {
          if (!fits(blockQ, p.seqQ, blockQs) ||
              !fits(dqBlockQ, p.seqQ, blockQs) ||
              !fits(blockK, p.seqK, blockKs) ||
              !fits(dqBlockK, p.seqK, blockKs))
            continue;
          FlashAttentionGradConfig config{blockQ, blockK, dqBlockQ, dqBlockK};
          ConfigAttr attr = config.toAttr(op.getContext());
          if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
            space.push_back(attr);
        }
  return space;
}

/// 16 x 32 blocks for the dK/dV pass and 32 x 32 for the dQ pass (clamped
/// to the problem), each pass's larger block halved until its layout fits.
ConfigAttr VulkanFlashAttentionGrad::heuristicConfig(FlashAttentionGradOp op,
                                                     const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  auto clampTo = [](int64_t block, int64_t size) {
    return std::max<int64_t>(
        8, std::min(block, ceilPow2(std::max<int64_t>(size, 1))));
  };
  FlashAttentionGradConfig config;
  if (usesCooperativeMatrix(op, target)) {
    // 64 x 64 blocks for both passes (4 subgroups; FlashAttention-2's
    // backward also runs 64-row blocks at D = 128), smaller where shared
    // memory or a short sequence asks for it.
    auto pick = [&](bool keyValue, int64_t &blockQ, int64_t &blockK) {
      for (auto [q, k] : {std::pair<int64_t, int64_t>{64, 64},
                          {32, 64},
                          {64, 32},
                          {32, 32},
                          {16, 32},
                          {32, 16},
                          {16, 16}}) {
        blockQ = std::max<int64_t>(16, std::min(q, ceilPow2(p.seqQ)));
        blockK = std::max<int64_t>(16, std::min(k, ceilPow2(p.seqK)));
        if (VulkanGradPassLayout::computeCooperative(
                keyValue, p.headDim, p.headDimV, blockQ, blockK,
                target.maxWorkgroupInvocations, target.sharedMemoryBytes,
                llvm::nulls()))
          return;
      }
    };
    pick(true, config.blockQ, config.blockK);
    pick(false, config.dqBlockQ, config.dqBlockK);
    return config.toAttr(op.getContext());
  }
  config.blockQ = clampTo(16, p.seqQ);
  config.blockK = clampTo(32, p.seqK);
  config.dqBlockQ = clampTo(32, p.seqQ);
  config.dqBlockK = clampTo(32, p.seqK);
  auto shrink = [&](bool keyValue, int64_t &blockQ, int64_t &blockK) {
    while (!VulkanGradPassLayout::compute(
               keyValue, p.headDim, p.headDimV, blockQ, blockK,
               target.maxWorkgroupInvocations, target.sharedMemoryBytes,
               llvm::nulls()) &&
           (blockQ > 1 || blockK > 1)) {
      if (blockQ >= blockK)
        blockQ /= 2;
      else
        blockK /= 2;
    }
  };
  shrink(true, config.blockQ, config.blockK);
  shrink(false, config.dqBlockQ, config.dqBlockK);
  return config.toAttr(op.getContext());
}
