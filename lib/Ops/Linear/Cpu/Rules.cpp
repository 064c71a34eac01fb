//===- Rules.cpp - gla configs on the CPU ---------------------------------===//
//
// Which configs are valid on a CPU (whole vectors of head_dim_v columns, a
// workgroup's chunk scratch within L2), the space the tuner tries, and the
// heuristic (ChunkedRules.h).
//
//===----------------------------------------------------------------------===//

#include "Linear/Cpu/ChunkedRules.h"
#include "Linear/Cpu/Gla.h"
#include "Linear/Cpu/Kernel.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult CpuGla::verifyConfig(Operation *op, ConfigAttr attr,
                                   const TargetInfo &target,
                                   raw_ostream &reason) {
  std::optional<GlaConfig> config = GlaConfig::read(attr, reason);
  if (!config)
    return failure();
  if (config->chunkParallel) {
    reason << "'" << GlaConfig::kChunkParallel
           << "' = 1 has no CPU kernel: the CPU kernel walks a sequence's "
              "chunks in order";
    return failure();
  }
  if (config->cooperative) {
    reason << "'" << GlaConfig::kCooperative
           << "' = 1 has no CPU kernel: cooperative matrices are Vulkan's";
    return failure();
  }
  return verifyChunkedCpuConfig(
      *config, target,
      [&](int64_t chunk, int64_t blockV, int64_t lanes) {
        return glaScratchBytes(readGlaProblem(op), chunk, blockV, lanes);
      },
      reason);
}

SmallVector<ConfigAttr>
CpuGla::configSpace(Operation *op, const TargetInfo &target, bool full) {
  GlaProblem p = readGlaProblem(op);
  return chunkedCpuConfigSpace(
      op->getContext(), p.seq, p.dimV, target.f32Lanes(), full,
      /*quickBlockVectors=*/{2, 4, 8}, [&](ConfigAttr attr) {
        return succeeded(verifyConfig(op, attr, target, llvm::nulls()));
      });
}

ConfigAttr CpuGla::heuristicConfig(Operation *op, const TargetInfo &target) {
  // 64-step chunks: the quadratic part (the gated scores, an exp per key
  // dim and pair of steps) stays below the state work for head dims >= 64.
  return chunkedCpuHeuristic(
      op->getContext(), readGlaProblem(op), target, [&](ConfigAttr attr) {
        return succeeded(verifyConfig(op, attr, target, llvm::nulls()));
      });
}
