//===- Config.h - the typed config of paged attention -----------*- C++ -*-===//
//
// Each `#ejk.config` entry of `ejk.paged_attention` is spelled once, here;
// the verifier (which names it accepts), the config rules (which values are
// valid on a target) and the kernels all read this struct.
//
//   block_k        tokens per step of the online softmax (CPU: the scores
//                  of a step are kept in a scratch row; Vulkan: tokens a
//                  workgroup reads per step, one per team of threads)
//   num_splits     workgroups the tokens of one (sequence, KV head) are
//                  split over, merged by a combine dispatch
//                  (flash-decoding; ejKernel's `num_splits`)
//   num_subgroups  subgroups per workgroup (Vulkan only)
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_CONFIG_H
#define EJK_OPS_PAGED_CONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::ejk {

struct PagedAttentionConfig {
  static constexpr llvm::StringLiteral kBlockK = "block_k";
  static constexpr llvm::StringLiteral kNumSplits = "num_splits";
  static constexpr llvm::StringLiteral kNumSubgroups = "num_subgroups";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockK, kNumSplits, kNumSubgroups};
    return all;
  }

  int64_t blockK = 0;
  int64_t numSplits = 1;
  std::optional<int64_t> numSubgroups;

  /// Reads `config`; fails with `reason` when `block_k` is missing, an
  /// entry is unknown or a value is below 1.
  static std::optional<PagedAttentionConfig> read(ConfigAttr config,
                                                  llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> k = config.lookup(kBlockK);
    if (!k) {
      reason << "config needs '" << kBlockK << "'";
      return std::nullopt;
    }
    PagedAttentionConfig c;
    c.blockK = *k;
    c.numSplits = config.lookup(kNumSplits).value_or(1);
    c.numSubgroups = config.lookup(kNumSubgroups);
    if (c.blockK < 1 || c.numSplits < 1 ||
        (c.numSubgroups && *c.numSubgroups < 1)) {
      reason << "config entries must be at least 1";
      return std::nullopt;
    }
    return c;
  }

  /// The attribute with the entries that are set (`num_splits` only when
  /// above 1).
  ConfigAttr toAttr(MLIRContext *context) const {
    llvm::SmallVector<std::pair<llvm::StringRef, int64_t>> values = {
        {kBlockK, blockK}};
    if (numSplits > 1)
      values.emplace_back(kNumSplits, numSplits);
    if (numSubgroups)
      values.emplace_back(kNumSubgroups, *numSubgroups);
    return ConfigAttr::get(context, values);
  }
};

/// The config of `ejk.ragged_paged_attention` and
/// `ejk.prefill_paged_attention` (which runs on the ragged kernels):
///
///   block_q        query tokens of one sequence a workgroup takes (their
///                  query heads of one KV head share every K/V read). The
///                  CPU kernel takes one; on Vulkan, above 1 the rows of
///                  sequences with several queries run on the
///                  cooperative-matrix kernel in blocks of block_q tokens
///                  (docs/ops/paged-vulkan.md) and the others on the
///                  decode kernel
///   block_k        tokens per step of the online softmax of the decode
///                  kernel, as for paged_attention
///   num_subgroups  subgroups per workgroup of the decode kernel (Vulkan
///                  only)
///   prefill_block_k  tokens per step of the cooperative-matrix kernel
///                  (Vulkan, block_q > 1; default block_k)
struct RaggedPagedConfig {
  static constexpr llvm::StringLiteral kBlockQ = "block_q";
  static constexpr llvm::StringLiteral kBlockK = "block_k";
  static constexpr llvm::StringLiteral kNumSubgroups = "num_subgroups";
  static constexpr llvm::StringLiteral kPrefillBlockK = "prefill_block_k";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockQ, kBlockK, kNumSubgroups,
                                          kPrefillBlockK};
    return all;
  }

  int64_t blockQ = 1;
  int64_t blockK = 0;
  std::optional<int64_t> numSubgroups;
  std::optional<int64_t> prefillBlockK = std::nullopt;

  /// Tokens per step of the cooperative-matrix kernel.
  int64_t coopBlockK() const { return prefillBlockK.value_or(blockK); }

  /// Reads `config`; fails with `reason` when `block_k` is missing, an
  /// entry is unknown or a value is below 1.
  static std::optional<RaggedPagedConfig> read(ConfigAttr config,
                                               llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> k = config.lookup(kBlockK);
    if (!k) {
      reason << "config needs '" << kBlockK << "'";
      return std::nullopt;
    }
    RaggedPagedConfig c;
    c.blockK = *k;
    c.blockQ = config.lookup(kBlockQ).value_or(1);
    c.numSubgroups = config.lookup(kNumSubgroups);
    c.prefillBlockK = config.lookup(kPrefillBlockK);
    if (c.blockK < 1 || c.blockQ < 1 ||
        (c.numSubgroups && *c.numSubgroups < 1) ||
        (c.prefillBlockK && *c.prefillBlockK < 1)) {
      reason << "config entries must be at least 1";
      return std::nullopt;
    }
    return c;
  }

  ConfigAttr toAttr(MLIRContext *context) const {
    llvm::SmallVector<std::pair<llvm::StringRef, int64_t>> values = {
        {kBlockQ, blockQ}, {kBlockK, blockK}};
    if (numSubgroups)
      values.emplace_back(kNumSubgroups, *numSubgroups);
    if (prefillBlockK)
      values.emplace_back(kPrefillBlockK, *prefillBlockK);
    return ConfigAttr::get(context, values);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_CONFIG_H
