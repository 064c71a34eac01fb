//===- DeltaKernel.cpp - the (gated) delta rule (recurrent) on Vulkan -----===//
//
// One dispatch; workgroup = (head_dim_v block, head, sequence); gla's thread
// layout (Kernel.h): thread t owns column t / TK of the block and the keys
// t % TK, t % TK + TK, ... of it, its entries S[k, v] of the f32 state in
// registers. The workgroup walks its sequence's chunks of C steps in order
// (last to first with reverse); per chunk:
//
//   stage    (whole workgroup, coalesced along the head dims)
//            raw q and k, exp(decay) per key   [C, kPad]
//            v                                 [C, block_v]
//            beta, exp(decay) per head         [C]
//   barrier
//   scan     each thread, over the chunk's steps, its entries in registers:
//              S  = exp(a_t) * S
//              r  = sum over the TK lanes of k_t * S    (shuffle xor; with
//                   the l2 norm, |k_t|^2 and |q_t|^2 in the same rounds)
//              d  = beta_t (v_t - r / |k_t|)
//              S += (k_t / |k_t|) d
//              o_t = scale / |q_t| * sum over the TK lanes of q_t * S
//            lane 0 of the column writes o_t to shared memory
//   barrier
//   output   (whole workgroup) o stored, coalesced along head_dim_v
//
// The norms are taken where the products are (the lanes hold each step's
// keys and queries anyway), so the stage needs no reduction of its own and
// no third barrier. The recurrence is the op's own, one step at a time:
// every decay exp(a) is in (0, 1] for a <= 0, so nothing overflows however
// strong the decay.
//
// The walk this kernel shares with the other recurrent kernel (workgroups,
// packed sequences, stages, chunk loop, output, states) is InOrderScan.h.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/DeltaKernel.h"
#include "Attention/Vulkan/Scores.h"
#include "Linear/Sequences.h"
#include "Linear/Vulkan/Delta.h"
#include "Linear/Vulkan/DeltaChunk.h"
#include "Linear/Vulkan/InOrderScan.h"
#include "Linear/Vulkan/SlotKernel.h"
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

/// ejKernel's l2-norm epsilon: x / sqrt(sum x^2 + 1e-6).
constexpr float kNormEpsilon = 1e-6f;

class VulkanDeltaBuilder
    : public InOrderScanBuilder<VulkanDeltaBuilder, VulkanDeltaPlan,
                                DeltaBuffers> {
public:
  using InOrderScanBuilder::InOrderScanBuilder;

private:
  friend InOrderScanBuilder;

  bool keyDecayStaged() const { return p.decay == DeltaDecay::PerKey; }

  /// beta and exp(decay) per step.
  void allocExtraStages(int64_t /*keyElems*/, int64_t /*valueElems*/) {
    betaS = allocWorkgroup(e, l.chunk);
    if (p.decay == DeltaDecay::PerHead)
      headDecayS = allocWorkgroup(e, l.chunk);
  }

  /// The chunk's raw queries and keys and per-key decays (zero past
  /// head_dim_k), values, rates and per-head decays; steps past the
  /// sequence read its last step (never used).
  void stage(Value c0) {
    Value lastIndex = e.sub(seqLen, one);
    auto rowAt = [&](Value t) { return rowOf(e.min(e.add(c0, t), lastIndex)); };
    int64_t kPad = l.kPad();
    forEachShared(e, l.threads, thread, l.chunk * kPad, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(kPad));
      Value k = arith::RemUIOp::create(e.b, i, e.index(kPad));
      Value row = rowAt(t);
      Value kc = e.min(k, e.index(p.dimK - 1));
      Value valid;
      if (kPad > p.dimK)
        valid = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
      auto masked = [&](Value x) {
        return valid ? e.select(valid, x, e.constF32(0.0f)) : x;
      };
      Value q = e.toF32(load(buf.query, {batchIdx, row, head, kc}));
      store(masked(q), qS, {i});
      Value key = e.toF32(load(buf.key, {batchIdx, row, kvHead, kc}));
      store(masked(key), kS, {i});
      if (decayS) {
        Value a = e.toF32(load(buf.decay, {batchIdx, row, head, kc}));
        store(e.exp(a), decayS, {i});
      }
    });
    forEachShared(e, l.threads, thread, l.chunk * l.blockV, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockV));
      Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockV));
      Value lastCol = e.index(p.dimV - 1);
      Value col = e.min(e.add(v0, c), lastCol);
      Value v = e.toF32(load(buf.value, {batchIdx, rowAt(t), kvHead, col}));
      store(v, vS, {i});
    });
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value row = rowAt(t);
      store(e.toF32(load(buf.beta, {batchIdx, row, head})), betaS, {t});
      if (headDecayS)
        store(e.exp(e.toF32(load(buf.decay, {batchIdx, row, head}))),
              headDecayS, {t});
    });
  }

  /// 1 / sqrt(sum + eps) of a lane-reduced sum of squares, times `scale`.
  Value inverseNorm(Value sumSquares, float scale) {
    Value norm =
        math::SqrtOp::create(e.b, e.fadd(sumSquares, e.constF32(kNormEpsilon)));
    return e.fdiv(e.constF32(scale), norm);
  }

  Value reduce(Value partial) {
    return reduceAcrossLanes(e, partial, /*isMax=*/false, l.threadsPerColumn,
                             l.subgroupSize);
  }

  /// The recurrence over the chunk's `len` steps (the same for every
  /// thread, so that the shuffles see whole subgroups).
  SmallVector<Value> recur(Value len, ValueRange state) {
    int64_t kPad = l.kPad();
    return e.forLoop(zero, len, one, state, [&](Value t, ValueRange s) {
      Value vt = load(vS, {e.add(e.mul(t, e.index(l.blockV)), myLocal)});
      Value beta = load(betaS, {t});
      Value headDecay;
      if (headDecayS)
        headDecay = load(headDecayS, {t});
      Value rowBase = e.mul(t, e.index(kPad));
      Value zeroF = e.constF32(0.0f);
      Value recalled = zeroF, keySquares = zeroF, querySquares = zeroF;
      SmallVector<Value> decayed, keys, queries;
      for (int64_t j = 0; j < l.keysPerThread; ++j) {
        Value idx = e.add(rowBase, myKeys[j]);
        keys.push_back(load(kS, {idx}));
        queries.push_back(load(qS, {idx}));
        Value decay = decayS ? load(decayS, {idx}) : headDecay;
        decayed.push_back(decay ? e.fmul(decay, s[j]) : s[j]);
        recalled = math::FmaOp::create(e.b, keys[j], decayed[j], recalled);
        if (p.l2Norm) {
          keySquares = math::FmaOp::create(e.b, keys[j], keys[j], keySquares);
          querySquares =
              math::FmaOp::create(e.b, queries[j], queries[j], querySquares);
        }
      }
      recalled = reduce(recalled);
      Value keyFactor, queryFactor = e.constF32(p.scale);
      if (p.l2Norm) {
        keyFactor = inverseNorm(reduce(keySquares), 1.0f);
        queryFactor = inverseNorm(reduce(querySquares), p.scale);
        recalled = e.fmul(recalled, keyFactor);
      }
      // d / |k|: the update adds the normalized key times d.
      Value delta = e.fmul(beta, e.fsub(vt, recalled));
      if (keyFactor)
        delta = e.fmul(delta, keyFactor);
      Value partial = zeroF;
      SmallVector<Value> next;
      for (int64_t j = 0; j < l.keysPerThread; ++j) {
        Value sn = math::FmaOp::create(e.b, keys[j], delta, decayed[j]);
        partial = math::FmaOp::create(e.b, queries[j], sn, partial);
        next.push_back(sn);
      }
      Value o = e.fmul(reduce(partial), queryFactor);
      emitIf(e, isLane0, [&] {
        store(o, oS, {e.add(e.mul(t, e.index(l.blockV)), myLocal)});
      });
      return next;
    });
  }

  Value betaS, headDecayS;
};

} // namespace

void mlir::ejk::buildVulkanDeltaBody(OpBuilder &builder, Location loc,
                                     const VulkanDeltaPlan &plan,
                                     const DeltaBuffers &buffers) {
  VulkanDeltaBuilder(builder, loc, plan, buffers).build();
}

LogicalResult VulkanDelta::tile(DeltaAttentionOp op, ConfigAttr attr,
                                DispatchRewriter &rewriter) {
  DeltaBuffers buf = findDeltaBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  GlaConfig config = *GlaConfig::read(attr, llvm::nulls());
  if (config.chunkParallel) {
    DeltaProblem p = readDeltaProblem(op);
    std::optional<VulkanDeltaChunkLayout> layout =
        VulkanDeltaChunkLayout::compute(p, config.chunkSize, config.blockV,
                                        config.cooperative, rewriter.target(),
                                        llvm::nulls());
    if (!layout)
      return op.emitOpError("has no Vulkan layout for its config");
    return tileVulkanDeltaChunkParallel(op, p, *layout, buf, rewriter);
  }
  VulkanDeltaPlan plan;
  static_cast<DeltaProblem &>(plan) = readDeltaProblem(op);
  std::optional<VulkanGlaLayout> layout = computeVulkanDeltaLayout(
      plan, config.chunkSize, config.blockV, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  plan.layout = *layout;

  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildVulkanDeltaBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  DispatchRewriter::setWork(dispatch, plan.flops(),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}
