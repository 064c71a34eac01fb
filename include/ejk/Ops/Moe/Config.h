//===- Config.h - the typed config of the grouped matmuls -------*- C++ -*-===//
//
// Each `#ejk.config` entry of `ejk.grouped_matmul` and
// `ejk.transposed_grouped_matmul` is spelled once, here; the verifier, the
// config rules and the kernels all read this struct.
//
//   block_m        grouped_matmul: rows of lhs per output tile;
//                  transposed_grouped_matmul: rows per reduction step
//   block_n        columns of the output per tile
//   block_k        grouped_matmul: the reduction step;
//                  transposed_grouped_matmul: rows (k) of the output tile
//   num_subgroups  subgroups per workgroup (Vulkan only)
//   num_stages     shared-memory stages of the operands, 1 or 2 (Vulkan
//                  cooperative-matrix path only; default 2 where they fit)
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_MOE_CONFIG_H
#define EJK_OPS_MOE_CONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::ejk {

struct GroupedMatmulConfig {
  static constexpr llvm::StringLiteral kBlockM = "block_m";
  static constexpr llvm::StringLiteral kBlockN = "block_n";
  static constexpr llvm::StringLiteral kBlockK = "block_k";
  static constexpr llvm::StringLiteral kNumSubgroups = "num_subgroups";
  static constexpr llvm::StringLiteral kNumStages = "num_stages";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockM, kBlockN, kBlockK,
                                          kNumSubgroups, kNumStages};
    return all;
  }

  int64_t blockM = 0, blockN = 0, blockK = 0;
  std::optional<int64_t> numSubgroups, numStages;

  /// Reads `config`; fails with `reason` on an unknown or missing entry or
  /// a block below 1.
  static std::optional<GroupedMatmulConfig> read(ConfigAttr config,
                                                 llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> m = config.lookup(kBlockM);
    std::optional<int64_t> n = config.lookup(kBlockN);
    std::optional<int64_t> k = config.lookup(kBlockK);
    if (!m || !n || !k) {
      reason << "config needs '" << kBlockM << "', '" << kBlockN << "' and '"
             << kBlockK << "'";
      return std::nullopt;
    }
    if (*m < 1 || *n < 1 || *k < 1) {
      reason << "'" << kBlockM << "', '" << kBlockN << "' and '" << kBlockK
             << "' must be at least 1";
      return std::nullopt;
    }
    GroupedMatmulConfig c;
    c.blockM = *m;
    c.blockN = *n;
    c.blockK = *k;
    c.numSubgroups = config.lookup(kNumSubgroups);
    c.numStages = config.lookup(kNumStages);
    return c;
  }

  ConfigAttr toAttr(MLIRContext *context) const {
    llvm::SmallVector<std::pair<llvm::StringRef, int64_t>> values = {
        {kBlockM, blockM}, {kBlockN, blockN}, {kBlockK, blockK}};
    if (numSubgroups)
      values.emplace_back(kNumSubgroups, *numSubgroups);
    if (numStages)
      values.emplace_back(kNumStages, *numStages);
    return ConfigAttr::get(context, values);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_MOE_CONFIG_H
