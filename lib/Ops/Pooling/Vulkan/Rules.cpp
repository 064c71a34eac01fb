//===- Rules.cpp - mean pooling configs on Vulkan -------------------------===//
//
// `block_d` is the workgroup's thread count (one column each): whole
// subgroups, at most the device's invocations per workgroup.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/VulkanFeatureChecks.h"
#include "Pooling/Vulkan/MeanPooling.h"

#include "ejk/Ops/Pooling/Config.h"
#include "ejk/Ops/Pooling/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

/// Checks `attr` and the device features the kernels need for `element`
/// (without them an f16 kernel failed to legalize 'memref.load', and a bf16
/// one named its dispatch instead of the op).
LogicalResult verify(ConfigAttr attr, Type element, const TargetInfo &target,
                     raw_ostream &reason) {
  std::optional<MeanPoolingConfig> config =
      MeanPoolingConfig::read(attr, reason);
  if (!config)
    return failure();
  if (failed(checkVulkanBufferFeatures(element, target, reason)))
    return failure();
  int64_t subgroup = target.subgroupSize;
  int64_t maxThreads = target.maxWorkgroupInvocations;
  if (config->blockD % subgroup != 0 || config->blockD > maxThreads) {
    reason << "'" << MeanPoolingConfig::kBlockD << "' (" << config->blockD
           << ") is the workgroup's thread count: a multiple of the "
           << subgroup << "-lane subgroup, at most " << maxThreads;
    return failure();
  }
  if (config->blockS > 4096) {
    reason << "'" << MeanPoolingConfig::kBlockS << "' (" << config->blockS
           << ") must be at most 4096";
    return failure();
  }
  return success();
}

int64_t heuristicBlockD(const MeanPoolingProblem &p, const TargetInfo &target) {
  int64_t subgroup = target.subgroupSize;
  int64_t cap = std::max<int64_t>(
      subgroup, std::min<int64_t>(256, target.maxWorkgroupInvocations) /
                    subgroup * subgroup);
  return std::min(cap, roundUp(std::max<int64_t>(p.hidden, 1), subgroup));
}

SmallVector<ConfigAttr> space(MLIRContext *context, const TargetInfo &target,
                              const MeanPoolingProblem &p, bool full,
                              ArrayRef<int64_t> blockSs) {
  SmallVector<ConfigAttr> configs;
  for (int64_t threads : {64, 128, 256, 512}) {
    MeanPoolingConfig probe{threads, 1};
    if (failed(verify(probe.toAttr(context), p.elementType, target,
                      llvm::nulls())))
      continue;
    if (!full && threads > roundUp(std::max<int64_t>(p.hidden, 1), 64) &&
        threads != 64)
      continue;
    for (int64_t s : blockSs)
      configs.push_back(MeanPoolingConfig{threads, s}.toAttr(context));
  }
  if (configs.empty())
    configs.push_back(
        MeanPoolingConfig{heuristicBlockD(p, target), blockSs.front()}.toAttr(
            context));
  return configs;
}

} // namespace

LogicalResult VulkanMeanPooling::verifyConfig(MeanPoolingOp op, ConfigAttr attr,
                                              const TargetInfo &target,
                                              raw_ostream &reason) {
  return verify(attr, readMeanPoolingProblem(op).elementType, target, reason);
}

SmallVector<ConfigAttr> VulkanMeanPooling::configSpace(MeanPoolingOp op,
                                                       const TargetInfo &target,
                                                       bool full) {
  return space(op.getContext(), target, readMeanPoolingProblem(op), full,
               full ? ArrayRef<int64_t>{1, 4, 8} : ArrayRef<int64_t>{4});
}

ConfigAttr VulkanMeanPooling::heuristicConfig(MeanPoolingOp op,
                                              const TargetInfo &target) {
  MeanPoolingProblem p = readMeanPoolingProblem(op);
  return MeanPoolingConfig{heuristicBlockD(p, target), 4}.toAttr(
      op.getContext());
}

LogicalResult VulkanMeanPoolingGrad::verifyConfig(MeanPoolingGradOp op,
                                                  ConfigAttr attr,
                                                  const TargetInfo &target,
                                                  raw_ostream &reason) {
  return verify(attr, readMeanPoolingGradProblem(op).elementType, target,
                reason);
}

SmallVector<ConfigAttr>
VulkanMeanPoolingGrad::configSpace(MeanPoolingGradOp op,
                                   const TargetInfo &target, bool full) {
  return space(op.getContext(), target, readMeanPoolingGradProblem(op), full,
               full ? ArrayRef<int64_t>{4, 16, 64} : ArrayRef<int64_t>{16});
}

ConfigAttr VulkanMeanPoolingGrad::heuristicConfig(MeanPoolingGradOp op,
                                                  const TargetInfo &target) {
  MeanPoolingProblem p = readMeanPoolingGradProblem(op);
  return MeanPoolingConfig{heuristicBlockD(p, target), 16}.toAttr(
      op.getContext());
}
