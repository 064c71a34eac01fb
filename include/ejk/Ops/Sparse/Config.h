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
//   subgroup_select  Vulkan only, optional (default 0): 1 runs the
//                selection dispatch with one subgroup per token (lanes over
//                the compressed blocks, then over head_dim; LaneSelect.cpp);
//                block_t then sizes the attention dispatch only
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
  static constexpr llvm::StringLiteral kSubgroupSelect = "subgroup_select";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockT, kCooperative,
                                          kSubgroupSelect};
    return all;
  }

  int64_t blockT = 0;
  bool cooperative = false;
  bool subgroupSelect = false;

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
    std::optional<NativeSparseConfig> result = NativeSparseConfig{*t};
    for (auto [key, flag] :
         {std::pair(kCooperative, &result->cooperative),
          std::pair(kSubgroupSelect, &result->subgroupSelect)}) {
      std::optional<int64_t> value = config.lookup(key);
      if (value && *value != 0 && *value != 1) {
        reason << "'" << key << "' must be 0 or 1, got " << *value;
        return std::nullopt;
      }
      *flag = value.value_or(0) == 1;
    }
    return result;
  }

  ConfigAttr toAttr(MLIRContext *context) const {
    SmallVector<std::pair<StringRef, int64_t>> entries = {{kBlockT, blockT}};
    if (cooperative)
      entries.push_back({kCooperative, 1});
    if (subgroupSelect)
      entries.push_back({kSubgroupSelect, 1});
    return ConfigAttr::get(context, entries);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_SPARSE_CONFIG_H
