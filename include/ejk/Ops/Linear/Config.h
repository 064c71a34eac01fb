//===- Config.h - the typed configs of the linear family --------*- C++ -*-===//
//
// Each `#ejk.config` entry of the linear-recurrent family is spelled once,
// here; the verifier, the config rules and the kernels all read these
// structs.
//
// ejk.gla:
//   chunk_size  steps per chunk: quadratic work inside it, the state passed
//               between chunks (does not change the result)
//   block_v     head_dim_v columns of the state per workgroup (CPU: a
//               multiple of the f32 lanes); each workgroup recomputes the
//               chunk's gated scores, so smaller blocks trade work for
//               parallelism
//   chunk_parallel  (optional, default 0) 1 runs the chunks of a sequence
//               in parallel: per-chunk state updates, a scan of the states
//               over chunks, then every chunk's outputs at once (Vulkan's
//               chunk-parallel kernel); 0 walks the chunks in order
//   cooperative (optional, default 0) on Vulkan (f16/bf16 inputs): with
//               `chunk_parallel = 1`, 1 runs the outputs' matmuls (scores,
//               q S, A V) on 16x16x16 f16 cooperative matrices, 2 also the
//               update's (k^T v, f16 states between the dispatches); with
//               `chunk_parallel = 0`, 1 runs the in-order kernel on
//               matrices (a constant decay or none: every product, the
//               state in accumulators; lib/Ops/Linear/Vulkan/CoopInOrder.h),
//               2 the same with each subgroup converting its own tiles to
//               operands and the outputs written as 16-byte words
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_CONFIG_H
#define EJK_OPS_LINEAR_CONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include <optional>

namespace mlir::ejk {

struct GlaConfig {
  static constexpr llvm::StringLiteral kChunkSize = "chunk_size";
  static constexpr llvm::StringLiteral kBlockV = "block_v";
  static constexpr llvm::StringLiteral kChunkParallel = "chunk_parallel";
  static constexpr llvm::StringLiteral kCooperative = "cooperative";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kChunkSize, kBlockV, kChunkParallel,
                                          kCooperative};
    return all;
  }

  int64_t chunkSize = 0, blockV = 0;
  bool chunkParallel = false;
  /// 0, 1 (outputs) or 2 (outputs and update); 3 with `chunk_parallel`:
  /// the split state pass and outputs of constant decays (CoopSplit.h).
  int64_t cooperative = 0;

  /// Reads `config`; fails with `reason` on an unknown or missing entry.
  static std::optional<GlaConfig> read(ConfigAttr config,
                                       llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> chunk = config.lookup(kChunkSize);
    std::optional<int64_t> v = config.lookup(kBlockV);
    if (!chunk || !v) {
      reason << "config needs '" << kChunkSize << "' and '" << kBlockV << "'";
      return std::nullopt;
    }
    std::optional<int64_t> parallel = config.lookup(kChunkParallel);
    if (parallel && *parallel != 0 && *parallel != 1) {
      reason << "'" << kChunkParallel << "' (" << *parallel
             << ") must be 0 or 1";
      return std::nullopt;
    }
    std::optional<int64_t> coop = config.lookup(kCooperative);
    if (coop && (*coop < 0 || *coop > 3)) {
      reason << "'" << kCooperative << "' (" << *coop
             << ") must be 0, 1, 2 or 3";
      return std::nullopt;
    }
    return GlaConfig{*chunk, *v, parallel.value_or(0) == 1, coop.value_or(0)};
  }

  /// The config; `chunk_parallel` and `cooperative` only when set (configs
  /// of the in-order kernels keep their two entries).
  ConfigAttr toAttr(MLIRContext *context) const {
    if (cooperative)
      return ConfigAttr::get(context, {{kChunkSize, chunkSize},
                                       {kBlockV, blockV},
                                       {kChunkParallel, chunkParallel ? 1 : 0},
                                       {kCooperative, cooperative}});
    if (chunkParallel)
      return ConfigAttr::get(
          context,
          {{kChunkSize, chunkSize}, {kBlockV, blockV}, {kChunkParallel, 1}});
    return ConfigAttr::get(context,
                           {{kChunkSize, chunkSize}, {kBlockV, blockV}});
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_CONFIG_H
