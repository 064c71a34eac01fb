//===- Rules.cpp - paged attention configs on the CPU ---------------------===//
//
// `block_k` tokens per online-softmax step: a whole number of f32 vectors
// (the step's scores are exponentiated as vectors), at most 512 (the score
// row of every query head stays in L1). `num_splits` divides each
// sequence's tokens among workgroups: the heuristic adds splits until
// there are a few workgroups per core, never leaving a split with less
// than a step's work for the longest sequence.
//
//===----------------------------------------------------------------------===//

#include "Common/Arithmetic.h"
#include "Common/CpuWorkingSet.h"
#include "Paged/Cpu/Decode.h"
#include "Paged/Cpu/PagedAttention.h"

#include "ejk/Ops/Paged/Config.h"
#include "ejk/Ops/Paged/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

/// Splits beyond this add combine work and buy no parallelism on a CPU.
static constexpr int64_t kMaxSplits = 64;

LogicalResult mlir::ejk::verifyCpuPagedConfig(ConfigAttr attr,
                                              const TargetInfo &target,
                                              raw_ostream &reason) {
  std::optional<PagedAttentionConfig> config =
      PagedAttentionConfig::read(attr, reason);
  if (!config)
    return failure();
  int64_t lanes = target.f32Lanes();
  if (config->blockK % lanes != 0 || config->blockK > 512) {
    reason << "'" << PagedAttentionConfig::kBlockK << "' (" << config->blockK
           << ") must be a multiple of the " << lanes << " f32 lanes of a "
           << target.vectorBits << "-bit vector, at most 512";
    return failure();
  }
  if (config->numSplits > kMaxSplits) {
    reason << "'" << PagedAttentionConfig::kNumSplits << "' ("
           << config->numSplits << ") must be at most " << kMaxSplits;
    return failure();
  }
  if (config->numSubgroups) {
    reason << "'" << PagedAttentionConfig::kNumSubgroups
           << "' is a Vulkan entry; the CPU kernel takes none";
    return failure();
  }
  return success();
}

LogicalResult mlir::ejk::checkCpuPagedWorkingSet(const PagedAttentionProblem &p,
                                                 int64_t blockK,
                                                 const TargetInfo &target,
                                                 raw_ostream &reason) {
  int64_t lanes = target.f32Lanes();
  std::optional<int64_t> padded = checkedSum({p.headDim, lanes - 1});
  std::optional<int64_t> row =
      padded ? checkedSum({2 * (*padded / lanes), ceilDiv(blockK, lanes)})
             : std::nullopt;
  std::optional<int64_t> bytes =
      row ? checkedProduct({p.groupSize(), *row, lanes, 4}) : std::nullopt;
  std::string what;
  llvm::raw_string_ostream(what)
      << "working set of the " << p.groupSize() << " query heads of a KV head";
  return checkL2WorkingSet(bytes, target, reason, what);
}

ConfigAttr mlir::ejk::cpuPagedHeuristic(const PagedAttentionProblem &p,
                                        MLIRContext *context,
                                        const TargetInfo &target) {
  int64_t lanes = target.f32Lanes();
  int64_t tokens = std::max<int64_t>(1, p.maxContext());
  if (p.window)
    tokens = std::max<int64_t>(1, std::min(tokens, *p.window));
  // 64 tokens a step: the scores of a step fit in a few vectors per head.
  int64_t blockK =
      std::min<int64_t>(64, roundUp(std::min<int64_t>(tokens, 64), lanes));
  int64_t cores = std::max<unsigned>(1, target.numCores);
  int64_t workgroups = std::max<int64_t>(1, p.batch * p.numKvHeads);
  int64_t splits = 1;
  while (splits < kMaxSplits && workgroups * splits < 4 * cores &&
         tokens / (2 * splits) >= 4 * blockK)
    splits *= 2;
  return PagedAttentionConfig{blockK, splits, std::nullopt}.toAttr(context);
}

SmallVector<ConfigAttr> mlir::ejk::cpuPagedConfigSpace(MLIRContext *context,
                                                       const TargetInfo &target,
                                                       bool full) {
  int64_t lanes = target.f32Lanes();
  SmallVector<int64_t> blocks = full ? SmallVector<int64_t>{32, 64, 128, 256}
                                     : SmallVector<int64_t>{64, 128};
  SmallVector<int64_t> splits =
      full ? SmallVector<int64_t>{1, 2, 4, 8, 16} : SmallVector<int64_t>{1, 4};
  SmallVector<ConfigAttr> configs;
  for (int64_t k : blocks)
    for (int64_t s : splits)
      configs.push_back(
          PagedAttentionConfig{roundUp(k, lanes), s, std::nullopt}.toAttr(
              context));
  return configs;
}

LogicalResult CpuPagedAttention::verifyConfig(PagedAttentionOp op,
                                              ConfigAttr attr,
                                              const TargetInfo &target,
                                              raw_ostream &reason) {
  if (failed(verifyCpuPagedConfig(attr, target, reason)))
    return failure();
  return checkCpuPagedWorkingSet(
      readPagedAttentionProblem(op),
      PagedAttentionConfig::read(attr, reason)->blockK, target, reason);
}

ConfigAttr CpuPagedAttention::heuristicConfig(PagedAttentionOp op,
                                              const TargetInfo &target) {
  return cpuPagedHeuristic(readPagedAttentionProblem(op), op.getContext(),
                           target);
}

SmallVector<ConfigAttr> CpuPagedAttention::configSpace(PagedAttentionOp op,
                                                       const TargetInfo &target,
                                                       bool full) {
  return cpuPagedConfigSpace(op.getContext(), target, full);
}
