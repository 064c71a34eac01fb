//===- Config.h - the typed config of mean pooling --------------*- C++ -*-===//
//
// Each `#ejk.config` entry of `ejk.mean_pooling` and `ejk.mean_pooling_grad`
// is spelled once, here; the verifier, the config rules and the kernels all
// read this struct.
//
//   block_d   hidden columns per workgroup (CPU: a multiple of the f32
//             lanes; Vulkan: one column per thread)
//   block_s   tokens per workgroup along the sequence (the forward sums
//             them; the backward writes them)
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_POOLING_CONFIG_H
#define EJK_OPS_POOLING_CONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include <optional>

namespace mlir::ejk {

struct MeanPoolingConfig {
  static constexpr llvm::StringLiteral kBlockD = "block_d";
  static constexpr llvm::StringLiteral kBlockS = "block_s";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockD, kBlockS};
    return all;
  }

  int64_t blockD = 0, blockS = 0;

  /// Reads `config`; fails with `reason` on an unknown or missing entry or
  /// a block below 1.
  static std::optional<MeanPoolingConfig> read(ConfigAttr config,
                                               llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> d = config.lookup(kBlockD);
    std::optional<int64_t> s = config.lookup(kBlockS);
    if (!d || !s) {
      reason << "config needs '" << kBlockD << "' and '" << kBlockS << "'";
      return std::nullopt;
    }
    if (*d < 1 || *s < 1) {
      reason << "'" << kBlockD << "' and '" << kBlockS
             << "' must be at least 1";
      return std::nullopt;
    }
    return MeanPoolingConfig{*d, *s};
  }

  ConfigAttr toAttr(MLIRContext *context) const {
    return ConfigAttr::get(context, {{kBlockD, blockD}, {kBlockS, blockS}});
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_POOLING_CONFIG_H
