//===- ChunkParallel.cpp - gated linear recurrences, chunk-parallel -------===//
//
// The layout rules and the tiling of the three dispatches of
// ChunkParallel.h (their bodies: ChunkUpdate.cpp, ChunkScan.cpp,
// ChunkOutputs.cpp) for `ejk.gla`,
// `ejk.lightning_attention` and `ejk.recurrent` without a value gate. With
// B_t the cumulative key log gate of step t from its chunk's start
// (inclusive), per chunk:
//
//   dS     = sum_s (k_s exp(B_last - B_s))^T v_s          (update)
//   S_c    = diag(exp(B_last)) S_{c-1} + dS                (scan)
//   A[t,s] = sum_k scale q_t[k] exp(B_t[k]) k_s[k] exp(-B_s[k])   (s <= t)
//   O[t,:] = sum_s A[t,s] v_s + (scale q_t exp(B_t)) S_{c-1}     (outputs)
//
// Every exponent of the update and the scan is <= 0 for gates <= 0; the
// scores factor the gate ratio while the chunk's strongest decay stays
// within e^-60 (as the CPU kernel does) and take exp(min(B_t - B_s, 0)) per
// key and pair past that. All arithmetic is f32 (SIMT FMAs): the state and
// the gate factors need f32's range.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/ChunkParallel.h"
#include "Linear/Vulkan/ChunkDispatches.h"
#include "Linear/Vulkan/ChunkKernel.h"
#include "Linear/Vulkan/ChunkLayout.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::chunk_parallel;

namespace {

SmallVector<MemRefType> temporaryTypes(const GlaProblem &p,
                                       const VulkanGlaChunkLayout &l,
                                       MLIRContext *context) {
  Type f32 = Float32Type::get(context);
  // The cooperative kernels keep the states between dispatches in f16 (the
  // cooperative outputs take them as f16 operands anyway; the scan sums in
  // f32): half the traffic of the largest temporary (simple gla's scan:
  // 2.18 -> 1.63 ms on an H200).
  Type stateType = l.cooperative ? Type(Float16Type::get(context)) : f32;
  SmallVector<MemRefType> types = {
      MemRefType::get({numSlots(p, l), p.heads, p.dimK, p.dimV}, stateType)};
  if (gateMode(p) == GateMode::PerStep) {
    types.push_back(MemRefType::get({numSlots(p, l), p.heads, p.dimK}, f32));
    types.push_back(MemRefType::get({p.batch, p.seq, p.heads, p.dimK}, f32));
  }
  return types;
}

Temporaries remapTemporaries(ArrayRef<Value> temps) {
  Temporaries t;
  t.states = temps[0];
  if (temps.size() > 1) {
    t.decays = temps[1];
    t.cumGates = temps[2];
  }
  return t;
}

} // namespace

GlaBuffers mlir::ejk::remapGlaBuffers(const GlaBuffers &buffers,
                                      ValueRange args) {
  return remapBuffers(buffers, args,
                      {&GlaBuffers::query, &GlaBuffers::key, &GlaBuffers::value,
                       &GlaBuffers::g, &GlaBuffers::gk, &GlaBuffers::gv,
                       &GlaBuffers::gGamma, &GlaBuffers::initialState,
                       &GlaBuffers::cuSeqlens, &GlaBuffers::output,
                       &GlaBuffers::finalState});
}

std::optional<VulkanGlaChunkLayout> VulkanGlaChunkLayout::compute(
    const GlaProblem &p, int64_t chunk, int64_t blockV, int64_t cooperative,
    const TargetInfo &target, llvm::raw_ostream &reason) {
  if (p.hasGv) {
    reason << "the chunk-parallel kernel has no value gate ('gv'); use '"
           << GlaConfig::kChunkParallel << "' = 0";
    return std::nullopt;
  }
  if (chunk < kStepTile || chunk > 128 || chunk % kStepTile != 0) {
    reason << "'" << GlaConfig::kChunkSize << "' (" << chunk
           << ") must be a multiple of " << kStepTile << " in [16, 128] with '"
           << GlaConfig::kChunkParallel << "' = 1";
    return std::nullopt;
  }
  std::optional<VulkanGlaChunkLayout> grid =
      gridLayout<VulkanGlaChunkLayout>(p.dimK, chunk, blockV, reason);
  if (!grid)
    return std::nullopt;
  VulkanGlaChunkLayout l = *grid;
  l.subgroupSize = std::max<unsigned>(1, target.subgroupSize);
  if (p.dimK > kThreads) {
    reason << "head_dim_k (" << p.dimK << ") exceeds the " << kThreads
           << " threads of the chunk-parallel kernel";
    return std::nullopt;
  }
  for (auto [what, n] :
       {std::pair<StringRef, int64_t>{"state", l.kPer * l.vPer},
        {"score", l.cPer * l.cPer},
        {"output", l.cPer * l.vPer}})
    if (n > kMaxRegisters) {
      reason << "the chunk-parallel kernel would keep " << n << " " << what
             << " entries per thread (at most " << kMaxRegisters
             << "): smaller '" << GlaConfig::kChunkSize << "' or '"
             << GlaConfig::kBlockV << "'";
      return std::nullopt;
    }
  if (kThreads > target.maxWorkgroupInvocations ||
      kThreads % l.subgroupSize != 0) {
    reason << "the chunk-parallel kernel runs " << kThreads
           << " threads per workgroup in whole subgroups; the device allows "
           << target.maxWorkgroupInvocations << " in subgroups of "
           << l.subgroupSize;
    return std::nullopt;
  }
  if (!target.hasVulkanFeature("subgroup_shuffle")) {
    reason << "the chunk-parallel kernel reduces the chunk decay with "
              "subgroup shuffles, which the target lacks ('subgroup_shuffle')";
    return std::nullopt;
  }
  int64_t slots = numSlots(p, l) + (p.packed ? 1 : 0);
  if (slots > 65535) {
    reason << "the chunk-parallel kernel launches " << slots
           << " chunk workgroups along x, more than 65535";
    return std::nullopt;
  }
  bool gated = p.gated();
  bool perStep = p.hasG || p.hasGk;
  l.updateSharedBytes = 4 * (kStepTile * l.kPad() + kStepTile * blockV);
  // Key tiles of 16 where shared memory allows (half the barriers of 8).
  auto outputBytes = [&](int64_t keyTile) {
    return 4 * (chunk * chunk + (gated ? 3 : 2) * chunk * (keyTile + 1) +
                std::max(kStepTile, keyTile) * blockV +
                (perStep ? kThreads / l.subgroupSize : 0));
  };
  l.keyTile = outputBytes(16) <= target.sharedMemoryBytes ? 16 : 8;
  l.outputSharedBytes = outputBytes(l.keyTile);
  l.coopUpdate = cooperative == 2;
  if (cooperative && !l.computeCooperative(p, target, reason))
    return std::nullopt;
  int64_t shared = std::max(l.updateSharedBytes, l.outputSharedBytes);
  if (shared > target.sharedMemoryBytes) {
    reason << "the chunk-parallel kernel stages " << shared
           << " bytes of shared memory, the device has "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  return l;
}

bool VulkanGlaChunkLayout::computeCooperative(const GlaProblem &p,
                                              const TargetInfo &target,
                                              llvm::raw_ostream &reason) {
  constexpr int64_t t = kMatrix;
  if (!target.hasCooperativeMatrix) {
    reason << "'" << GlaConfig::kCooperative
           << "' needs a device with 16x16x16 f16 cooperative matrices";
    return false;
  }
  if (chunk > 64) {
    reason << "'" << GlaConfig::kChunkSize << "' (" << chunk
           << ") must be at most 64 with '" << GlaConfig::kCooperative
           << "' (the chunk's scores are staged whole)";
    return false;
  }
  cooperative = true;
  int64_t kTiles = ceilDiv(std::max<int64_t>(1, p.dimK), t);
  int64_t rowTiles = chunk / t, colTiles = blockV / t;
  int64_t n = subgroups();
  updateSlots = coopUpdate ? ceilDiv(kTiles * colTiles, n) : 0;
  outputSlots = ceilDiv(rowTiles * colTiles, n);
  scoreSlots = ceilDiv(rowTiles * rowTiles, n);
  for (auto [what, count] :
       {std::pair<StringRef, int64_t>{"state", updateSlots},
        {"output and score", outputSlots + scoreSlots}})
    if (count > kMaxMatrices) {
      reason << "the cooperative chunk-parallel kernel would keep " << count
             << " " << what << " matrices per subgroup (at most "
             << kMaxMatrices << "): smaller '" << GlaConfig::kChunkSize
             << "' or '" << GlaConfig::kBlockV << "'";
      return false;
    }
  // The cooperative update stages gated keys and values for 32 steps (16
  // if short of memory), f16, and each subgroup's 16x16 f32 result stage.
  bool constantGate = gateMode(p) == GateMode::Constant;
  int64_t kPadded = kTiles * t;
  auto updateBytes = [&](int64_t steps) {
    return 2 * steps * (kPadded + blockV) + 4 * n * t * t;
  };
  if (coopUpdate) {
    coopSteps = std::min<int64_t>(chunk, 32);
    if (updateBytes(coopSteps) > target.sharedMemoryBytes)
      coopSteps = t;
    updateSharedBytes = updateBytes(coopSteps);
  }
  // The outputs: the f16 stage (key tiles of 32, else 16), the f32 scores,
  // the f16 scores A and the strongest-decay reduction's partials.
  auto outputBytes = [&](int64_t keyTile) {
    coopKeyTile = keyTile;
    return 2 * coopStageHalves(constantGate) + 4 * coopScoreFloats() +
           2 * chunk * chunk + 4 * n;
  };
  outputSharedBytes = outputBytes(32);
  if (outputSharedBytes > target.sharedMemoryBytes)
    outputSharedBytes = outputBytes(16);
  return true;
}

LogicalResult mlir::ejk::tileVulkanGlaChunkParallel(
    Operation *op, const GlaProblem &p, const VulkanGlaChunkLayout &l,
    const GlaBuffers &buf, DispatchRewriter &rewriter) {
  auto tiling = beginChunkTiling(
      rewriter, temporaryTypes(p, l, rewriter.dispatch().getContext()), p, l,
      buf, remapGlaBuffers, remapTemporaries);
  if (failed(tiling))
    return failure();
  ArrayRef<MemRefType> tempTypes = tiling->tempTypes;
  const Temporaries &mainTemps = tiling->mainTemps;
  ArrayRef<Type> argTypes = tiling->argTypes;
  int64_t vBlocks = ceilDiv(p.dimV, l.blockV);
  int64_t slots = numSlots(p, l);
  func::FuncOp update = rewriter.addDispatch(
      "update", argTypes, {slots, p.heads, vBlocks},
      tiling->build(l.coopUpdate ? buildCoopUpdate : buildChunkUpdate));
  DispatchRewriter::setVulkanLaunch(update, l.kThreads, l.updateSharedBytes);
  DispatchRewriter::setWork(
      update, p.steps() * p.heads * 2 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.key, buf.value, buf.g, buf.gk}) +
          DispatchRewriter::bytesOf(mainTemps.states));
  func::FuncOp scan =
      rewriter.addDispatch("scan", argTypes,
                           {ceilDiv(p.dimK * p.dimV, l.kThreads), p.heads,
                            std::max<int64_t>(1, p.numSeqs)},
                           tiling->build(buildChunkScan));
  DispatchRewriter::setVulkanLaunch(scan, l.kThreads, 0);
  DispatchRewriter::setWork(
      scan, 0,
      2 * DispatchRewriter::bytesOf(mainTemps.states) +
          DispatchRewriter::bytesOf({buf.initialState, buf.finalState}));

  dispatchInOrder(rewriter, tempTypes, {update, scan});

  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  if (l.cooperative)
    buildCoopOutputs(b, loc, p, l, buf, mainTemps);
  else
    buildChunkOutputs(b, loc, p, l, buf, mainTemps);
  rewriter.finish(b);
  func::FuncOp outputs = rewriter.dispatch();
  DispatchRewriter::setGrid(outputs,
                            {slots + (p.packed ? 1 : 0), p.heads, vBlocks});
  DispatchRewriter::setVulkanLaunch(outputs, l.kThreads, l.outputSharedBytes);
  DispatchRewriter::setWork(
      outputs, glaFlops(p, l.chunk) - p.steps() * p.heads * 2 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.query, buf.key, buf.value, buf.output}) +
          DispatchRewriter::bytesOf(mainTemps.states));
  return success();
}
