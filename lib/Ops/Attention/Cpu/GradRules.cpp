//===- GradRules.cpp - flash attention backward configs on the CPU --------===//
//
// Which configs are valid on a CPU (key blocks are whole vectors, each
// pass's working set fits L2), the space the tuner tries, and the
// heuristic.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/FlashAttentionGrad.h"
#include "Common/Arithmetic.h"
#include "Common/CpuWorkingSet.h"

#include "ejk/Ops/Attention/GradConfig.h"
#include "ejk/Ops/Attention/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

/// Working set of one workgroup of a pass, in f32: the Q and dO rows, the
/// two score tiles and the accumulator (`accRows` rows of dK and dV, or of
/// dQ); nullopt on overflow.
static std::optional<int64_t> passBytes(int64_t blockQ, int64_t blockK,
                                        int64_t paddedD, int64_t paddedDv,
                                        int64_t accRows, int64_t accWidth) {
  std::optional<int64_t> elements =
      checkedSum({checkedProduct({blockQ, paddedD + paddedDv}),
                  checkedProduct({2, blockQ, blockK}),
                  checkedProduct({accRows, accWidth})});
  if (!elements)
    return std::nullopt;
  return checkedProduct({4, *elements});
}

LogicalResult CpuFlashAttentionGrad::verifyConfig(FlashAttentionGradOp op,
                                                  ConfigAttr attr,
                                                  const TargetInfo &target,
                                                  raw_ostream &reason) {
  return verifyCpuAttentionGradConfig(readAttentionProblem(op), attr, target,
                                      reason);
}

LogicalResult mlir::ejk::verifyCpuAttentionGradConfig(const AttentionProblem &p,
                                                      ConfigAttr attr,
                                                      const TargetInfo &target,
                                                      raw_ostream &reason) {
  std::optional<FlashAttentionGradConfig> config =
      FlashAttentionGradConfig::read(attr, reason);
  if (!config)
    return failure();
  std::pair<StringRef, int64_t> sizes[] = {
      {FlashAttentionGradConfig::kBlockQ, config->blockQ},
      {FlashAttentionGradConfig::kBlockK, config->blockK},
      {FlashAttentionGradConfig::kDqBlockQ, config->dqBlockQ},
      {FlashAttentionGradConfig::kDqBlockK, config->dqBlockK}};
  for (auto [name, value] : sizes) {
    if (value < 1 || value > 4096) {
      reason << "'" << name << "' (" << value << ") must be in [1, 4096]";
      return failure();
    }
  }
  for (auto [name, value] : {sizes[1], sizes[3]}) {
    if (value % target.f32Lanes() != 0) {
      reason << "'" << name << "' (" << value << ") must be a multiple of the "
             << target.f32Lanes() << " f32 lanes of a " << target.vectorBits
             << "-bit vector";
      return failure();
    }
  }
  int64_t paddedD = roundUp(p.headDim, target.f32Lanes());
  int64_t paddedDv = roundUp(p.headDimV, target.f32Lanes());
  struct Pass {
    StringRef name;
    std::optional<int64_t> bytes;
  } passes[] = {
      {"dK/dV", passBytes(config->blockQ, config->blockK, paddedD, paddedDv,
                          config->blockK, paddedD + paddedDv)},
      {"dQ", config->fuseDq
                 ? std::optional<int64_t>(0)
                 : passBytes(config->dqBlockQ, config->dqBlockK, paddedD,
                             paddedDv, config->dqBlockQ, paddedD)}};
  for (const Pass &pass : passes) {
    std::string what = ("working set of the " + pass.name + " pass").str();
    if (failed(checkL2WorkingSet(pass.bytes, target, reason, what)))
      return failure();
  }
  return success();
}

SmallVector<ConfigAttr>
CpuFlashAttentionGrad::configSpace(FlashAttentionGradOp op,
                                   const TargetInfo &target, bool full) {
  AttentionProblem p = readAttentionProblem(op);
  SmallVector<int64_t> blockQs = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                      : SmallVector<int64_t>{32, 64};
  SmallVector<int64_t> blockKs =
      full ? SmallVector<int64_t>{32, 64, 128} : SmallVector<int64_t>{32, 64};
  // Blocks much larger than the problem only add remainder work.
  auto fits = [](int64_t block, int64_t size, ArrayRef<int64_t> all) {
    return block <= std::max(ceilPow2(size), all.front());
  };
  SmallVector<ConfigAttr> space;
  MLIRContext *context = op.getContext();
  for (int64_t blockQ : blockQs)
    for (int64_t blockK : blockKs)
      for (int64_t dqBlockQ : blockQs)
        for (int64_t dqBlockK : blockKs) {
          if (!fits(blockQ, p.seqQ, blockQs) ||
              !fits(dqBlockQ, p.seqQ, blockQs) ||
              !fits(blockK, p.seqK, blockKs) ||
              !fits(dqBlockK, p.seqK, blockKs))
            continue;
          FlashAttentionGradConfig config{blockQ, blockK, dqBlockQ, dqBlockK};
          ConfigAttr attr = config.toAttr(context);
          if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
            space.push_back(attr);
        }
  for (int64_t blockQ : blockQs)
    for (int64_t blockK : blockKs) {
      if (!fits(blockQ, p.seqQ, blockQs) || !fits(blockK, p.seqK, blockKs))
        continue;
      FlashAttentionGradConfig config{blockQ, blockK, blockQ, blockK, true};
      ConfigAttr attr = config.toAttr(context);
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  return space;
}

ConfigAttr CpuFlashAttentionGrad::heuristicConfig(FlashAttentionGradOp op,
                                                  const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  int64_t lanes = target.f32Lanes();
  FlashAttentionGradConfig config;
  config.blockQ = std::min<int64_t>(64, ceilPow2(std::max<int64_t>(p.seqQ, 1)));
  config.dqBlockQ = config.blockQ;
  config.blockK = std::max<int64_t>(
      lanes, std::min<int64_t>(64, ceilPow2(std::max<int64_t>(p.seqK, 1))));
  config.dqBlockK = config.blockK;
  // Five matmuls instead of seven when the KV heads alone give every core
  // two workgroups (fa-d128 on 2 cores: 16 workgroups); otherwise the dQ
  // pass keeps the grid wide.
  config.fuseDq =
      p.batch * p.numKvHeads >= 2 * std::max<int64_t>(1, target.numCores);
  // Large head dims can overflow a small device's L2; halve the blocks
  // until the config fits.
  ConfigAttr attr = config.toAttr(op.getContext());
  while (failed(verifyConfig(op, attr, target, llvm::nulls())) &&
         (config.blockQ > 1 || config.blockK > lanes)) {
    if (config.blockK > lanes) {
      config.blockK /= 2;
      config.dqBlockK /= 2;
    } else {
      config.blockQ /= 2;
      config.dqBlockQ /= 2;
    }
    attr = config.toAttr(op.getContext());
  }
  return attr;
}
