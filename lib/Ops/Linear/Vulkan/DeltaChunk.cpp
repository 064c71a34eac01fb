//===- DeltaChunk.cpp - the chunk-parallel delta rule: layout and tiling --===//
//
// The layout rules of DeltaChunk.h, the tiling into its dispatches, and the
// gates dispatch (the cumulative log decays of each chunk, one column
// thread per key dim or one per head, eight steps' loads a round). The
// other bodies: DeltaChunkPrepare.cpp, DeltaChunkState.cpp,
// DeltaChunkOutputs.cpp.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/DeltaChunk.h"
#include "Linear/Vulkan/ChunkDispatches.h"
#include "Linear/Vulkan/ChunkLayout.h"

#include "ejk/Ops/Linear/Config.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

std::optional<VulkanDeltaChunkLayout> VulkanDeltaChunkLayout::compute(
    const DeltaProblem &p, int64_t chunk, int64_t blockV, int64_t cooperative,
    const TargetInfo &target, llvm::raw_ostream &reason) {
  if (chunk < kTile || chunk > kMaxChunk || chunk % kTile != 0) {
    reason << "'" << GlaConfig::kChunkSize << "' (" << chunk
           << ") must be a multiple of " << kTile << " in [" << kTile << ", "
           << kMaxChunk << "] with '" << GlaConfig::kChunkParallel << "' = 1";
    return std::nullopt;
  }
  std::optional<VulkanDeltaChunkLayout> grid =
      gridLayout<VulkanDeltaChunkLayout>(p.dimK, chunk, blockV, reason);
  if (!grid)
    return std::nullopt;
  VulkanDeltaChunkLayout l = *grid;
  for (auto [what, n] :
       {std::pair<StringRef, int64_t>{"state", l.kPer * l.vPer},
        {"new-value", l.cPer * l.vPer}})
    if (n > kMaxRegisters) {
      reason << "the chunk-parallel delta rule would keep " << n << " " << what
             << " entries per thread (at most " << kMaxRegisters
             << "): smaller '" << GlaConfig::kBlockV << "'";
      return std::nullopt;
    }
  unsigned subgroup = std::max<unsigned>(1, target.subgroupSize);
  if (kThreads > target.maxWorkgroupInvocations || kThreads % subgroup != 0) {
    reason << "the chunk-parallel delta rule runs " << kThreads
           << " threads per workgroup in whole subgroups; the device allows "
           << target.maxWorkgroupInvocations << " in subgroups of " << subgroup;
    return std::nullopt;
  }
  int64_t slots = numSlots(p, l) + (p.packed ? 1 : 0);
  if (slots > 65535) {
    reason << "the chunk-parallel delta rule launches " << slots
           << " chunk workgroups along x, more than 65535";
    return std::nullopt;
  }
  bool perKey = p.decay == DeltaDecay::PerKey;
  int64_t keyTiles = perKey ? 2 : 1;
  int64_t shared = target.sharedMemoryBytes;
  l.prepareSharedBytes =
      4 * (chunk * chunk + keyTiles * chunk * kTilePitch + 3 * chunk);
  // The state pass: S, the new values, and the W tile or the transposed Kd
  // tile (its key rows padded by a 4-float vector: DeltaChunkState.cpp).
  auto stateBytes = [&](int64_t tile) {
    return 4 * (l.kPad() * blockV + chunk * blockV +
                std::max(chunk * kTile, (tile + 4) * l.kPad()));
  };
  l.updateTile = stateBytes(16) <= shared ? 16 : 8;
  l.stateSharedBytes = stateBytes(l.updateTile);
  // The outputs' V block: up to 128 columns, halved while it does not fit.
  auto outputBytes = [&](int64_t width) {
    return 4 * (chunk * chunk + (keyTiles + 1) * chunk * kTilePitch +
                kTile * width + chunk);
  };
  l.outBlockV =
      std::min<int64_t>(128, roundUp(std::max<int64_t>(1, p.dimV), kGrid));
  while (l.outBlockV > kGrid && outputBytes(l.outBlockV) > shared)
    l.outBlockV = roundUp(l.outBlockV / 2, kGrid);
  l.outVPer = l.outBlockV / kGrid;
  l.outputSharedBytes = outputBytes(l.outBlockV);
  l.subgroupSize = subgroup;
  l.coopState = cooperative == 2;
  if (cooperative && !l.computeCooperative(p, target, reason, cooperative))
    return std::nullopt;
  for (auto [what, bytes] :
       {std::pair<StringRef, int64_t>{"prepare", l.prepareSharedBytes},
        {"state", l.stateSharedBytes},
        {"outputs", l.outputSharedBytes}})
    if (bytes > target.sharedMemoryBytes) {
      reason << "the chunk-parallel delta rule's " << what << " pass stages "
             << bytes << " bytes of shared memory, the device has "
             << target.sharedMemoryBytes;
      return std::nullopt;
    }
  return l;
}

bool VulkanDeltaChunkLayout::computeCooperative(const DeltaProblem &p,
                                                const TargetInfo &target,
                                                llvm::raw_ostream &reason,
                                                int64_t form) {
  if (!target.hasCooperativeMatrix) {
    reason << "'" << GlaConfig::kCooperative
           << "' needs a device with 16x16x16 f16 cooperative matrices";
    return false;
  }
  // A per-key ratio exp(B_t - B_s) does not factor into two f16 operands
  // without a bound on the chunk's decay (gla's cooperative outputs fall
  // back to SIMT scores past it); the delta rule keeps KDA on SIMT.
  if (p.decay == DeltaDecay::PerKey) {
    reason << "'" << GlaConfig::kCooperative
           << "' takes per-head or no decay: per-key decays (KDA) run the "
              "SIMT kernel";
    return false;
  }
  if (form == 2) {
    // The state pass reads whole 16x16 tiles of W, Kd, U, the states and
    // the new values straight from memory: every tile inside the problem.
    if (p.dimK % kMatrix != 0 || p.dimV % blockV != 0) {
      reason << "the cooperative delta-rule state pass ('"
             << GlaConfig::kCooperative
             << "' = 2) reads whole 16x16 tiles: head_dim_k (" << p.dimK
             << ") a multiple of 16 and '" << GlaConfig::kBlockV << "' ("
             << blockV << ") a divisor of head_dim_v (" << p.dimV << ")";
      return false;
    }
    // The f16 state and new values, and the subgroups' 16x16 f32 stages.
    int64_t pitch = coopStatePitch(blockV);
    stateSharedBytes =
        2 * (p.dimK + chunk) * pitch + 4 * subgroups() * kMatrix * kMatrix;
    if (stateSharedBytes > target.sharedMemoryBytes) {
      reason << "the cooperative delta-rule state pass stages "
             << stateSharedBytes << " bytes of shared memory, the device has "
             << target.sharedMemoryBytes << ": smaller '" << GlaConfig::kBlockV
             << "'";
      return false;
    }
    // The outputs on matrices too where their stages fit; else SIMT.
    directOutputs = computeDirectOutputs(p, target);
    return true;
  }
  cooperative = true;
  int64_t rowTiles = chunk / kMatrix, n = subgroups();
  scoreSlots = ceilDiv(rowTiles * rowTiles, n);
  // The outputs: the f16 stage, the f32 scores, the f16 scores A, the
  // per-head decays and the inverse norms of q and k ([chunk] f32 each).
  auto bytes = [&] {
    return 2 * coopStageHalves() + 4 * coopScoreFloats() + 2 * chunk * chunk +
           4 * 3 * chunk;
  };
  // V blocks of up to 128 columns, keys staged 32 at a time (16 if short of
  // memory), halved while a subgroup would keep too many matrices or the
  // stages do not fit.
  for (outBlockV = std::min<int64_t>(
           128, roundUp(std::max<int64_t>(1, p.dimV), kMatrix));
       outBlockV >= kMatrix; outBlockV = roundUp(outBlockV / 2, kMatrix)) {
    outputSlots = ceilDiv(rowTiles * (outBlockV / kMatrix), n);
    for (int64_t keyTile : {32, 16}) {
      coopKeyTile = keyTile;
      outputSharedBytes = bytes();
      if (outputSlots + scoreSlots <= kMaxMatrices &&
          outputSharedBytes <= target.sharedMemoryBytes)
        return true;
    }
    if (outBlockV == kMatrix)
      break;
  }
  reason << "the cooperative delta-rule outputs do not fit: " << bytes()
         << " bytes of shared memory (the device has "
         << target.sharedMemoryBytes << ") or " << outputSlots + scoreSlots
         << " matrices per subgroup (at most " << kMaxMatrices << "): smaller '"
         << GlaConfig::kChunkSize << "'";
  return false;
}

bool VulkanDeltaChunkLayout::computeDirectOutputs(const DeltaProblem &p,
                                                  const TargetInfo &target) {
  // V blocks of up to 128 columns, a divisor of head_dim_v (the f16 states
  // and new values are read as whole tiles; head_dim_v is a multiple of
  // 16 under form 2's rules).
  int64_t width = 128;
  while (p.dimV % width != 0)
    width /= 2;
  // The f16 q and k of the chunk (rows of K + 8 halves), P (f16, over the
  // q stage where it fits), the subgroups' 16x16 f32 stages, the per-head
  // decays and the inverse norms of q and k.
  int64_t n = subgroups();
  int64_t bytes =
      2 * 2 * chunk * (p.dimK + 8) + 4 * n * kMatrix * kMatrix + 4 * 3 * chunk;
  if (chunk > p.dimK)
    bytes += 2 * chunk * (chunk + 8);
  if (width < kMatrix || bytes > target.sharedMemoryBytes)
    return false;
  int64_t rowTiles = chunk / kMatrix;
  outBlockV = width;
  outputSlots = ceilDiv(rowTiles * (outBlockV / kMatrix), n);
  scoreSlots = ceilDiv(rowTiles * rowTiles, n);
  outputSharedBytes = bytes;
  computeWordOutputs(p, target);
  return true;
}

void VulkanDeltaChunkLayout::computeWordOutputs(const DeltaProblem &p,
                                                const TargetInfo &target) {
  // A row's words in neighbouring lanes of one subgroup (its norm by xor
  // shuffles), V tiles dealt evenly to the 8 subgroups; 16-bit integers to
  // take words apart and put them together.
  int64_t n = subgroups(), rowTiles = chunk / kMatrix;
  int64_t colTiles = outBlockV / kMatrix, keyWords = p.dimK / 8;
  if (!target.hasVulkanFeature("subgroup_shuffle") ||
      !target.hasVulkanFeature("int16") || subgroupSize != 32 || n != 8 ||
      !llvm::isPowerOf2_64(keyWords) || keyWords > 32 || n % colTiles != 0 ||
      (rowTiles * colTiles) % n != 0 || p.dimV % 8 != 0)
    return;
  // The q and k stages (rows of K + 8 halves), P over q and N over k where
  // they fit, the subgroups' 16x16 f32 stages, the D table and the gates.
  int64_t kRow = 2 * (p.dimK + 8), stageBytes = 2 * chunk * kRow;
  if (chunk > p.dimK)
    stageBytes += 2 * chunk * (chunk + 8);
  if (outBlockV > p.dimK)
    stageBytes += 2 * chunk * (outBlockV + 8);
  int64_t bytes =
      stageBytes + 4 * n * kMatrix * kMatrix + 4 * chunk * kMatrix + 4 * chunk;
  if (bytes > target.sharedMemoryBytes)
    return;
  wordOutputs = true;
  outputSlots = rowTiles * colTiles / n;
  scoreSlots = ceilDiv(rowTiles * (rowTiles + 1) / 2, n);
  outputSharedBytes = bytes;
}

namespace {

/// The gates dispatch: B of every step of the chunk, per key dim (KDA) or
/// per head; one thread per column, the steps in order, eight loads first.
class GatesKernel : public Kernel {
public:
  using Kernel::Kernel;

  void build() {
    begin();
    withChunkOfSlot(WorkgroupIdOp::create(e.b, 0), [&] { gates(); });
  }

private:
  void gates() {
    bool perKey = p.decay == DeltaDecay::PerKey;
    int64_t columns = perKey ? p.dimK : 1;
    for (int64_t j0 = 0; j0 < columns; j0 += l.kThreads) {
      Value k = e.add(thread, e.index(j0));
      emitIf(e, lt(k, e.index(columns)), [&] { column(k, perKey); });
    }
  }

  void column(Value k, bool perKey) {
    constexpr int64_t kUnroll = 8;
    Value init = zeroF();
    Value step = e.index(kUnroll);
    Value end = e.index(l.chunk);
    e.forLoop(zero, end, step, {init},
              [&](Value t0, ValueRange acc) -> SmallVector<Value> {
                SmallVector<Value> steps, gates;
                for (int64_t i = 0; i < kUnroll; ++i) {
                  Value t = e.add(t0, e.index(i));
                  Value row = chunkRow(t);
                  Value a = perKey ? load(buf.decay, {batchIdx, row, head, k})
                                   : load(buf.decay, {batchIdx, row, head});
                  steps.push_back(t);
                  gates.push_back(orZero(lt(t, len), a));
                }
                Value sum = acc[0];
                for (int64_t i = 0; i < kUnroll; ++i) {
                  sum = e.fadd(sum, gates[i]);
                  if (perKey)
                    store(sum, tmp.gates, {slot, head, steps[i], k});
                  else
                    store(sum, tmp.gates, {slot, head, steps[i]});
                }
                return {sum};
              });
  }
};

SmallVector<MemRefType> temporaryTypes(const DeltaProblem &p,
                                       const VulkanDeltaChunkLayout &l,
                                       MLIRContext *context) {
  Type f32 = Float32Type::get(context);
  Type f16 = Float16Type::get(context);
  int64_t slots = numSlots(p, l);
  SmallVector<MemRefType> types = {
      MemRefType::get({slots, p.heads, l.chunk, p.dimK}, f32),
      MemRefType::get({slots, p.heads, l.chunk, p.dimK},
                      l.coopState ? f16 : f32),
      MemRefType::get({slots, p.heads, l.chunk, p.dimV}, f32),
      l.wordOutputs ? MemRefType::get({slots, p.heads, p.dimV, p.dimK}, f16)
                    : MemRefType::get({slots, p.heads, p.dimK, p.dimV},
                                      l.directOutputs ? f16 : f32)};
  if (p.decay == DeltaDecay::PerKey)
    types.push_back(MemRefType::get({slots, p.heads, l.chunk, p.dimK}, f32));
  else if (p.decay == DeltaDecay::PerHead)
    types.push_back(MemRefType::get({slots, p.heads, l.chunk}, f32));
  if (l.coopState)
    types.push_back(MemRefType::get({slots, p.heads, l.chunk, p.dimK}, f16));
  if (l.directOutputs)
    types.push_back(MemRefType::get({slots, p.heads, l.chunk, p.dimV}, f16));
  return types;
}

Temporaries remapTemporaries(ArrayRef<Value> temps) {
  Temporaries t;
  t.w = temps[0];
  t.kd = temps[1];
  t.u = temps[2];
  t.states = temps[3];
  // The cooperative state pass's f16 Kd comes with W's f16 copy after the
  // gates, its f16 states with the f16 new values after that.
  bool coopState = cast<MemRefType>(t.kd.getType()).getElementType().isF16();
  bool direct = cast<MemRefType>(t.states.getType()).getElementType().isF16();
  size_t gates = temps.size() - 4 - (coopState ? 1 : 0) - (direct ? 1 : 0);
  if (gates)
    t.gates = temps[4];
  if (coopState)
    t.w16 = temps[4 + gates];
  if (direct)
    t.n16 = temps[5 + gates];
  return t;
}

/// `buffers` (the main dispatch's) as the arguments `args` of another
/// dispatch with the same leading arguments.
DeltaBuffers remap(const DeltaBuffers &buffers, ValueRange args) {
  return remapBuffers(buffers, args,
                      {&DeltaBuffers::query, &DeltaBuffers::key,
                       &DeltaBuffers::value, &DeltaBuffers::beta,
                       &DeltaBuffers::decay, &DeltaBuffers::initialState,
                       &DeltaBuffers::cuSeqlens, &DeltaBuffers::output,
                       &DeltaBuffers::finalState});
}

} // namespace

void mlir::ejk::delta_chunk::buildDeltaChunkGates(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  GatesKernel(builder, loc, p, l, buf, tmp).build();
}

LogicalResult mlir::ejk::tileVulkanDeltaChunkParallel(
    Operation *op, const DeltaProblem &p, const VulkanDeltaChunkLayout &l,
    const DeltaBuffers &buf, DispatchRewriter &rewriter) {
  auto tiling = beginChunkTiling(
      rewriter, temporaryTypes(p, l, rewriter.dispatch().getContext()), p, l,
      buf, remap, remapTemporaries);
  if (failed(tiling))
    return failure();
  ArrayRef<MemRefType> tempTypes = tiling->tempTypes;
  const Temporaries &mainTemps = tiling->mainTemps;
  ArrayRef<Type> argTypes = tiling->argTypes;
  int64_t slots = numSlots(p, l);
  int64_t stepsHeads = p.steps() * p.heads;
  func::FuncOp gates;
  if (p.decayed()) {
    gates = rewriter.addDispatch("gates", argTypes, {slots, p.heads, 1},
                                 tiling->build(buildDeltaChunkGates));
    DispatchRewriter::setVulkanLaunch(gates, l.kThreads, 0);
    DispatchRewriter::setWork(gates, 0,
                              DispatchRewriter::bytesOf(buf.decay) +
                                  DispatchRewriter::bytesOf(mainTemps.gates));
  }
  func::FuncOp prepare =
      rewriter.addDispatch("prepare", argTypes, {slots, p.heads, 1},
                           tiling->build(buildDeltaChunkPrepare));
  DispatchRewriter::setVulkanLaunch(prepare, l.kThreads, l.prepareSharedBytes);
  // The causal half of K K^T, the substitution over K + V columns.
  DispatchRewriter::setWork(
      prepare,
      stepsHeads * ((l.chunk + 1) * p.dimK + (l.chunk - 1) * (p.dimK + p.dimV)),
      DispatchRewriter::bytesOf({buf.key, buf.value, buf.beta}) +
          DispatchRewriter::bytesOf({mainTemps.w, mainTemps.kd, mainTemps.u}));
  int64_t vBlocks = ceilDiv(p.dimV, l.blockV);
  func::FuncOp state = rewriter.addDispatch(
      "state", argTypes, {vBlocks, p.heads, std::max<int64_t>(1, p.numSeqs)},
      tiling->build(l.coopState ? buildDeltaCoopState : buildDeltaChunkState));
  DispatchRewriter::setVulkanLaunch(state, l.kThreads, l.stateSharedBytes);
  // W S and Kd^T (U - W S).
  DispatchRewriter::setWork(
      state, stepsHeads * 4 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.initialState, buf.finalState}) +
          DispatchRewriter::bytesOf(
              {mainTemps.w, mainTemps.kd, mainTemps.states}) +
          2 * DispatchRewriter::bytesOf(mainTemps.u));

  dispatchInOrder(rewriter, tempTypes, {gates, prepare, state});

  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  if (l.wordOutputs)
    buildDeltaWordOutputs(b, loc, p, l, buf, mainTemps);
  else if (l.directOutputs)
    buildDeltaDirectOutputs(b, loc, p, l, buf, mainTemps);
  else if (l.cooperative)
    buildDeltaCoopOutputs(b, loc, p, l, buf, mainTemps);
  else
    buildDeltaChunkOutputs(b, loc, p, l, buf, mainTemps);
  rewriter.finish(b);
  func::FuncOp outputs = rewriter.dispatch();
  DispatchRewriter::setGrid(outputs, {slots + (p.packed ? 1 : 0), p.heads,
                                      ceilDiv(p.dimV, l.outBlockV)});
  DispatchRewriter::setVulkanLaunch(outputs, l.kThreads, l.outputSharedBytes);
  // (q exp(B)) S, the causal halves of Q K^T and of P (U - W S).
  DispatchRewriter::setWork(
      outputs,
      stepsHeads * (2 * p.dimK * p.dimV + (l.chunk + 1) * (p.dimK + p.dimV)),
      DispatchRewriter::bytesOf({buf.query, buf.key, buf.output}) +
          DispatchRewriter::bytesOf({mainTemps.u, mainTemps.states}));
  return success();
}
