//===- Config.h - the typed config of latent attention ----------*- C++ -*-===//
//
// Each `#ejk.config` entry of `ejk.mla` and `ejk.paged_mla` is spelled once,
// here; the verifiers (which names they accept), the config rules (which
// values are valid on a target) and the kernels all read this struct.
//
//   block_k     cache tokens per step of the online softmax (CPU: the
//               step's latent rows are widened once into a scratch block
//               every head reads; Vulkan: rows staged in workgroup memory)
//   num_splits  workgroups the tokens of one query row are split over,
//               merged by a combine dispatch (flash-decoding)
//   block_h     query heads per workgroup (Vulkan only; the CPU kernel
//               takes all heads of a row in one workgroup)
//   head_lanes  lanes that share one head's dot products and accumulator
//               (Vulkan only)
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LATENT_CONFIG_H
#define EJK_OPS_LATENT_CONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::ejk {

struct MlaConfig {
  static constexpr llvm::StringLiteral kBlockK = "block_k";
  static constexpr llvm::StringLiteral kNumSplits = "num_splits";
  static constexpr llvm::StringLiteral kBlockH = "block_h";
  static constexpr llvm::StringLiteral kHeadLanes = "head_lanes";
  /// Vulkan: 1 runs the cooperative-matrix kernel (f16), 2 the same with
  /// the softmax in registers (NVIDIA's matrix layout), 3 the register
  /// softmax with P V one step late on a double-buffered stage, 0 the
  /// portable one.
  static constexpr llvm::StringLiteral kCooperative = "cooperative";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {kBlockK, kNumSplits, kBlockH,
                                          kHeadLanes, kCooperative};
    return all;
  }

  int64_t blockK = 0;
  int64_t numSplits = 1;
  std::optional<int64_t> blockH, headLanes;
  bool cooperative = false;
  /// `cooperative = 2` or 3 (cooperative is then set too).
  bool registerSoftmax = false;
  /// `cooperative = 3` (registerSoftmax is then set too).
  bool pipelined = false;

  /// Reads `config`; fails with `reason` when `block_k` is missing, an
  /// entry is unknown or a value is below 1.
  static std::optional<MlaConfig> read(ConfigAttr config,
                                       llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> k = config.lookup(kBlockK);
    if (!k) {
      reason << "config needs '" << kBlockK << "'";
      return std::nullopt;
    }
    MlaConfig c;
    c.blockK = *k;
    c.numSplits = config.lookup(kNumSplits).value_or(1);
    c.blockH = config.lookup(kBlockH);
    c.headLanes = config.lookup(kHeadLanes);
    std::optional<int64_t> coop = config.lookup(kCooperative);
    if (coop && (*coop < 0 || *coop > 3)) {
      reason << "'" << kCooperative << "' must be 0, 1, 2 or 3";
      return std::nullopt;
    }
    c.cooperative = coop.value_or(0) >= 1;
    c.registerSoftmax = coop.value_or(0) >= 2;
    c.pipelined = coop.value_or(0) == 3;
    if (c.blockK < 1 || c.numSplits < 1 || (c.blockH && *c.blockH < 1) ||
        (c.headLanes && *c.headLanes < 1)) {
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
    if (blockH)
      values.emplace_back(kBlockH, *blockH);
    if (headLanes)
      values.emplace_back(kHeadLanes, *headLanes);
    if (cooperative)
      values.emplace_back(kCooperative,
                          registerSoftmax ? (pipelined ? 3 : 2) : 1);
    return ConfigAttr::get(context, values);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_LATENT_CONFIG_H
