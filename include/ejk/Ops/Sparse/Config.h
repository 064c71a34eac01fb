//===- Config.h - the typed config of native sparse attention ---*- C++ -*-===//
//
// Each `#ejk.config` entry of `ejk.native_sparse_attention` is spelled once,
// here; the verifier, the config rules and the kernels all read this struct.
//
//   block_t      tokens per workgroup of the selection and attention
//                dispatches (CPU: a workgroup runs them one after the
//                other; Vulkan: one thread each)
//   cooperative  Vulkan only, optional (default 0): 1 runs the attention
//                dispatch on cooperative matrices (one subgroup per token,
//                the group's heads as matrix rows; block_t then sizes the
//                selection dispatch only)
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_SPARSE_CONFIG_H
#define EJK_OPS_SPARSE_CONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include <optional>

namespace mlir::ejk {

struct NativeSparseConfig {
  static constexpr llvm::StringLiteral kBlockT = "block_t";
  static constexpr llvm::StringLiteral kCooperative = "cooperative";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockT, kCooperative};
    return all;
  }

  int64_t blockT = 0;
  bool cooperative = false;

  /// Reads `config`; fails with `reason` on an unknown or missing entry or
  /// a block below 1.
  static std::optional<NativeSparseConfig> read(ConfigAttr config,
                                                llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> t = config.lookup(kBlockT);
    if (!t) {
      reason << "config needs '" << kBlockT << "'";
      return std::nullopt;
    }
    if (*t < 1) {
      reason << "'" << kBlockT << "' must be at least 1, got " << *t;
      return std::nullopt;
    }
    std::optional<int64_t> coop = config.lookup(kCooperative);
    if (coop && *coop != 0 && *coop != 1) {
      reason << "'" << kCooperative << "' must be 0 or 1, got " << *coop;
      return std::nullopt;
    }
    return NativeSparseConfig{*t, coop.value_or(0) == 1};
  }

  ConfigAttr toAttr(MLIRContext *context) const {
    if (cooperative)
      return ConfigAttr::get(context, {{kBlockT, blockT}, {kCooperative, 1}});
    return ConfigAttr::get(context, {{kBlockT, blockT}});
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_SPARSE_CONFIG_H
