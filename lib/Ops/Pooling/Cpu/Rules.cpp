//===- Rules.cpp - mean pooling configs on the CPU ------------------------===//
//
// Column blocks are whole f32 vectors; the heuristic takes up to four
// vectors (the sums of a row step stay in registers) and halves them while
// there are too few workgroups to keep every core busy.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Pooling/Cpu/MeanPooling.h"

#include "ejk/Ops/Pooling/Config.h"
#include "ejk/Ops/Pooling/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

LogicalResult verify(ConfigAttr attr, const TargetInfo &target,
                     raw_ostream &reason) {
  std::optional<MeanPoolingConfig> config =
      MeanPoolingConfig::read(attr, reason);
  if (!config)
    return failure();
  int64_t lanes = target.f32Lanes();
  if (config->blockD % lanes != 0 || config->blockD > 64 * lanes) {
    reason << "'" << MeanPoolingConfig::kBlockD << "' (" << config->blockD
           << ") must be a multiple of the " << lanes << " f32 lanes of a "
           << target.vectorBits << "-bit vector, at most " << 64 * lanes;
    return failure();
  }
  if (config->blockS > 4096) {
    reason << "'" << MeanPoolingConfig::kBlockS << "' (" << config->blockS
           << ") must be at most 4096";
    return failure();
  }
  return success();
}

/// `workgroups(blockD)`: how many workgroups a column block gives.
ConfigAttr heuristic(MLIRContext *context, const MeanPoolingProblem &p,
                     const TargetInfo &target, int64_t blockS,
                     function_ref<int64_t(int64_t)> workgroups) {
  int64_t lanes = target.f32Lanes();
  int64_t blockD = std::max<int64_t>(
      lanes, std::min<int64_t>(4 * lanes, roundUp(p.hidden, lanes)));
  int64_t cores = std::max<unsigned>(1, target.numCores);
  while (blockD > lanes && workgroups(blockD) < 4 * cores)
    blockD = roundUp(blockD / 2, lanes);
  return MeanPoolingConfig{blockD, blockS}.toAttr(context);
}

SmallVector<ConfigAttr> space(MLIRContext *context, const TargetInfo &target,
                              const MeanPoolingProblem &p, bool full,
                              ArrayRef<int64_t> blockSs) {
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> vectors =
      full ? SmallVector<int64_t>{1, 2, 4, 8} : SmallVector<int64_t>{2, 4};
  SmallVector<ConfigAttr> configs;
  for (int64_t v : vectors) {
    if (v * lanes > roundUp(std::max<int64_t>(p.hidden, 1), lanes) &&
        v != vectors.front())
      continue;
    for (int64_t s : blockSs)
      configs.push_back(MeanPoolingConfig{v * lanes, s}.toAttr(context));
  }
  return configs;
}

} // namespace

LogicalResult CpuMeanPooling::verifyConfig(MeanPoolingOp op, ConfigAttr attr,
                                           const TargetInfo &target,
                                           raw_ostream &reason) {
  return verify(attr, target, reason);
}

SmallVector<ConfigAttr> CpuMeanPooling::configSpace(MeanPoolingOp op,
                                                    const TargetInfo &target,
                                                    bool full) {
  return space(op.getContext(), target, readMeanPoolingProblem(op), full,
               full ? ArrayRef<int64_t>{1, 2, 4, 8} : ArrayRef<int64_t>{2, 4});
}

ConfigAttr CpuMeanPooling::heuristicConfig(MeanPoolingOp op,
                                           const TargetInfo &target) {
  MeanPoolingProblem p = readMeanPoolingProblem(op);
  // Four rows per step: four independent loads per column vector.
  return heuristic(op.getContext(), p, target, 4, [&](int64_t blockD) {
    return p.batch * ceilDiv(p.hidden, blockD);
  });
}

LogicalResult CpuMeanPoolingGrad::verifyConfig(MeanPoolingGradOp op,
                                               ConfigAttr attr,
                                               const TargetInfo &target,
                                               raw_ostream &reason) {
  return verify(attr, target, reason);
}

SmallVector<ConfigAttr>
CpuMeanPoolingGrad::configSpace(MeanPoolingGradOp op, const TargetInfo &target,
                                bool full) {
  return space(op.getContext(), target, readMeanPoolingGradProblem(op), full,
               full ? ArrayRef<int64_t>{16, 64, 256} : ArrayRef<int64_t>{64});
}

ConfigAttr CpuMeanPoolingGrad::heuristicConfig(MeanPoolingGradOp op,
                                               const TargetInfo &target) {
  MeanPoolingProblem p = readMeanPoolingGradProblem(op);
  // 64 rows per workgroup amortize the packed case's binary searches over
  // enough stores; fewer when there are few rows.
  int64_t blockS = std::max<int64_t>(1, std::min<int64_t>(64, p.tokenRows()));
  return heuristic(op.getContext(), p, target, blockS, [&](int64_t blockD) {
    return ceilDiv(p.tokenRows(), blockS) * ceilDiv(p.hidden, blockD);
  });
}
