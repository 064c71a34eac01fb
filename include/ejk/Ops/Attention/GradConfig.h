//===- GradConfig.h - the typed config of flash attention's backward -*- C++ -*-===//
//
// Each `#ejk.config` entry of `ejk.flash_attention_grad` is spelled once,
// here; the verifier, the config rules and the kernels read this struct.
// The backward runs two passes whose best blocks differ (the dK/dV pass
// accumulates a key block over the queries, the dQ pass a query block over
// the keys), so each has its own pair:
//
//   block_q      queries per inner block of the dK/dV pass
//   block_k      keys per workgroup of the dK/dV pass
//   dq_block_q   queries per workgroup of the dQ pass
//   dq_block_k   keys per inner block of the dQ pass
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_GRADCONFIG_H
#define EJK_OPS_ATTENTION_GRADCONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::ejk {

struct FlashAttentionGradConfig {
  static constexpr llvm::StringLiteral kBlockQ = "block_q";
  static constexpr llvm::StringLiteral kBlockK = "block_k";
  static constexpr llvm::StringLiteral kDqBlockQ = "dq_block_q";
  static constexpr llvm::StringLiteral kDqBlockK = "dq_block_k";

  /// Every entry the op accepts (the verifier's list).
  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockQ, kBlockK, kDqBlockQ,
                                          kDqBlockK};
    return all;
  }

  int64_t blockQ = 0, blockK = 0, dqBlockQ = 0, dqBlockK = 0;

  /// Reads `config`; fails with `reason` when an entry is missing or
  /// unknown.
  static std::optional<FlashAttentionGradConfig>
  read(ConfigAttr config, llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    FlashAttentionGradConfig c;
    int64_t *fields[] = {&c.blockQ, &c.blockK, &c.dqBlockQ, &c.dqBlockK};
    for (auto [name, field] : llvm::zip_equal(names(), fields)) {
      std::optional<int64_t> value = config.lookup(name);
      if (!value) {
        reason << "config needs '" << kBlockQ << "', '" << kBlockK << "', '"
               << kDqBlockQ << "' and '" << kDqBlockK << "'";
        return std::nullopt;
      }
      *field = *value;
    }
    return c;
  }

  /// The attribute with every entry.
  ConfigAttr toAttr(MLIRContext *context) const {
    llvm::SmallVector<std::pair<llvm::StringRef, int64_t>> values = {
        {kBlockQ, blockQ},
        {kBlockK, blockK},
        {kDqBlockQ, dqBlockQ},
        {kDqBlockK, dqBlockK}};
    return ConfigAttr::get(context, values);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_GRADCONFIG_H
