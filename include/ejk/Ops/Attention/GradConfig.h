//===- GradConfig.h - typed config of the attention backward ----*- C++ -*-===//
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
//   fuse_dq      1: no dQ pass; a dK/dV workgroup owns whole KV heads (all
//                their key blocks) and adds dS K into an f32 dQ of its own
//                query heads (five matmuls instead of seven, but only
//                batch x kv_heads workgroups); dq_block_* are then absent
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
  static constexpr llvm::StringLiteral kFuseDq = "fuse_dq";

  /// Every entry the op accepts (the verifier's list).
  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockQ, kBlockK, kDqBlockQ,
                                          kDqBlockK, kFuseDq};
    return all;
  }

  /// With `fuseDq` the dQ blocks are those of the dK/dV pass.
  int64_t blockQ = 0, blockK = 0, dqBlockQ = 0, dqBlockK = 0;
  bool fuseDq = false;

  /// Reads `config`; fails with `reason` when an entry is missing, unknown
  /// or out of place.
  static std::optional<FlashAttentionGradConfig>
  read(ConfigAttr config, llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    FlashAttentionGradConfig c;
    std::optional<int64_t> fuse = config.lookup(kFuseDq);
    if (fuse && *fuse != 0 && *fuse != 1) {
      reason << "'" << kFuseDq << "' must be 0 or 1, got " << *fuse;
      return std::nullopt;
    }
    c.fuseDq = fuse.value_or(0) == 1;
    std::optional<int64_t> q = config.lookup(kBlockQ);
    std::optional<int64_t> k = config.lookup(kBlockK);
    std::optional<int64_t> dqQ = config.lookup(kDqBlockQ);
    std::optional<int64_t> dqK = config.lookup(kDqBlockK);
    if (c.fuseDq) {
      if (!q || !k) {
        reason << "config needs '" << kBlockQ << "' and '" << kBlockK << "'";
        return std::nullopt;
      }
      if (dqQ || dqK) {
        reason << "'" << kDqBlockQ << "' and '" << kDqBlockK
               << "' apply only without '" << kFuseDq << "'";
        return std::nullopt;
      }
      dqQ = q;
      dqK = k;
    } else if (!q || !k || !dqQ || !dqK) {
      reason << "config needs '" << kBlockQ << "', '" << kBlockK << "', '"
             << kDqBlockQ << "' and '" << kDqBlockK << "' (or '" << kFuseDq
             << " = 1' without the last two)";
      return std::nullopt;
    }
    c.blockQ = *q;
    c.blockK = *k;
    c.dqBlockQ = *dqQ;
    c.dqBlockK = *dqK;
    return c;
  }

  /// The attribute with the entries that apply.
  ConfigAttr toAttr(MLIRContext *context) const {
    llvm::SmallVector<std::pair<llvm::StringRef, int64_t>> values = {
        {kBlockQ, blockQ}, {kBlockK, blockK}};
    if (fuseDq) {
      values.emplace_back(kFuseDq, 1);
    } else {
      values.emplace_back(kDqBlockQ, dqBlockQ);
      values.emplace_back(kDqBlockK, dqBlockK);
    }
    return ConfigAttr::get(context, values);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_GRADCONFIG_H
