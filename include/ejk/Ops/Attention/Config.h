//===- Config.h - the typed config of flash attention -----------*- C++ -*-===//
//
// Each `#ejk.config` entry of the attention family is spelled once, here;
// the verifier (which names it accepts), the config rules (which values are
// valid) and the kernels (which sizes they tile with) all read this struct.
//
//   block_q        query rows per workgroup
//   block_k        keys per inner block of the online softmax
//   num_subgroups  subgroups per workgroup (Vulkan only)
//   key_splits     workgroups the keys of one head are split over, with a
//                  combine dispatch after them (CPU only; flash-decoding)
//   cm2            Vulkan: the VK_NV_cooperative_matrix2 kernel
//                  (Vulkan/Cm2Kernel.h), variant 1-4: 1 V loaded with K,
//                  2 V after the softmax, 3 = 2 and 4 = 1 with
//                  tensor-addressed loads; only where the device has
//                  `cooperative_matrix2`
//   row_blocks     Vulkan, cooperative matrices with the register softmax:
//                  query blocks one workgroup runs in turn (default 1)
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_CONFIG_H
#define EJK_OPS_ATTENTION_CONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::ejk {

struct FlashAttentionConfig {
  static constexpr llvm::StringLiteral kBlockQ = "block_q";
  static constexpr llvm::StringLiteral kBlockK = "block_k";
  static constexpr llvm::StringLiteral kNumSubgroups = "num_subgroups";
  static constexpr llvm::StringLiteral kKeySplits = "key_splits";
  static constexpr llvm::StringLiteral kCm2 = "cm2";
  static constexpr llvm::StringLiteral kRowBlocks = "row_blocks";

  /// Every entry the family's ops accept (the verifier's list).
  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockQ,    kBlockK, kNumSubgroups,
                                          kKeySplits, kCm2,    kRowBlocks};
    return all;
  }

  int64_t blockQ = 0, blockK = 0;
  std::optional<int64_t> numSubgroups, keySplits, cm2, rowBlocks;

  /// Reads `config`; fails with `reason` when block_q or block_k is
  /// missing or an entry is unknown.
  static std::optional<FlashAttentionConfig> read(ConfigAttr config,
                                                  llvm::raw_ostream &reason) {
    std::optional<int64_t> q = config.lookup(kBlockQ);
    std::optional<int64_t> k = config.lookup(kBlockK);
    if (!q || !k) {
      reason << "config needs '" << kBlockQ << "' and '" << kBlockK << "'";
      return std::nullopt;
    }
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    FlashAttentionConfig c;
    c.blockQ = *q;
    c.blockK = *k;
    c.numSubgroups = config.lookup(kNumSubgroups);
    c.keySplits = config.lookup(kKeySplits);
    c.cm2 = config.lookup(kCm2);
    c.rowBlocks = config.lookup(kRowBlocks);
    return c;
  }

  /// The attribute with the entries that are set.
  ConfigAttr toAttr(MLIRContext *context) const {
    llvm::SmallVector<std::pair<llvm::StringRef, int64_t>> values = {
        {kBlockQ, blockQ}, {kBlockK, blockK}};
    if (numSubgroups)
      values.emplace_back(kNumSubgroups, *numSubgroups);
    if (keySplits)
      values.emplace_back(kKeySplits, *keySplits);
    if (cm2)
      values.emplace_back(kCm2, *cm2);
    if (rowBlocks)
      values.emplace_back(kRowBlocks, *rowBlocks);
    return ConfigAttr::get(context, values);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_CONFIG_H
