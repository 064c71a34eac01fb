//===- DeltaRules.cpp - delta_attention configs on the CPU ----------------===//
//
// Which configs are valid on a CPU (whole vectors of head_dim_v columns, a
// workgroup's chunk scratch within L2), the space the tuner tries, and the
// heuristic (ChunkedRules.h). The config is gla's (GlaConfig).
//
//===----------------------------------------------------------------------===//

#include "Linear/Cpu/ChunkedRules.h"
#include "Linear/Cpu/Delta.h"
#include "Linear/Cpu/DeltaKernel.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult CpuDelta::verifyConfig(DeltaAttentionOp op, ConfigAttr attr,
                                     const TargetInfo &target,
                                     raw_ostream &reason) {
  std::optional<GlaConfig> config = GlaConfig::read(attr, reason);
  if (!config)
    return failure();
  if (config->chunkParallel) {
    reason << "'" << GlaConfig::kChunkParallel
           << "' = 1 has no CPU kernel for the delta rule";
    return failure();
  }
  if (config->cooperative) {
    reason << "'" << GlaConfig::kCooperative
           << "' has no CPU kernel: cooperative matrices are Vulkan's";
    return failure();
  }
  return verifyChunkedCpuConfig(
      *config, target,
      [&](int64_t chunk, int64_t blockV, int64_t lanes) {
        return deltaScratchBytes(readDeltaProblem(op), chunk, blockV, lanes);
      },
      reason);
}

SmallVector<ConfigAttr> CpuDelta::configSpace(DeltaAttentionOp op,
                                              const TargetInfo &target,
                                              bool full) {
  DeltaProblem p = readDeltaProblem(op);
  return chunkedCpuConfigSpace(
      op.getContext(), p.seq, p.dimV, target.f32Lanes(), full,
      /*quickBlockVectors=*/{2, 4, 8, 16}, [&](ConfigAttr attr) {
        return succeeded(verifyConfig(op, attr, target, llvm::nulls()));
      });
}

ConfigAttr CpuDelta::heuristicConfig(DeltaAttentionOp op,
                                     const TargetInfo &target) {
  // 64-step chunks: the quadratic part (two score matrices, the solve and
  // P U, C/2 x (K + V) each per step) stays below the state's three
  // K x V products for head dims >= 64. Every block of head_dim_v
  // recomputes the chunk's scores and norms.
  return chunkedCpuHeuristic(
      op.getContext(), readDeltaProblem(op), target, [&](ConfigAttr attr) {
        return succeeded(verifyConfig(op, attr, target, llvm::nulls()));
      });
}
