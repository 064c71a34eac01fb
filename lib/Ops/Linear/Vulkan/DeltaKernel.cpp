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
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/DeltaKernel.h"
#include "Attention/Vulkan/Scores.h"
#include "Linear/Sequences.h"
#include "Linear/Vulkan/Delta.h"
#include "Linear/Vulkan/DeltaChunk.h"
#include "Linear/Vulkan/SlotKernel.h"
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

/// ejKernel's l2-norm epsilon: x / sqrt(sum x^2 + 1e-6).
constexpr float kNormEpsilon = 1e-6f;

class VulkanDeltaBuilder {
public:
  VulkanDeltaBuilder(OpBuilder &builder, Location loc,
                     const VulkanDeltaPlan &plan, const DeltaBuffers &buffers)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers) {}

  void build() {
    Value vBlock = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    seqId = WorkgroupIdOp::create(e.b, 2);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    zero = e.index(0);
    one = e.index(1);
    v0 = e.mul(vBlock, e.index(l.blockV));
    kvHead = e.div(head, e.index(p.headsPerKv()));
    if (!p.packed) {
      batchIdx = seqId;
      start = zero;
      end = e.index(p.seq);
      scan();
      return;
    }
    batchIdx = zero;
    Value filler = cmp(arith::CmpIPredicate::eq, seqId, e.index(p.numSeqs));
    emitIf(e, filler, [&] {
      emitZeroUncovered(e, p, buf, zero, thread, l.threads, batchIdx, head, v0,
                        l.blockV);
    });
    emitIf(
        e,
        arith::XOrIOp::create(
            e.b, filler, arith::ConstantOp::create(e.b, e.b.getBoolAttr(true))),
        [&] {
          start = cuEntry(seqId);
          end = e.max(cuEntry(e.add(seqId, one)), start);
          scan();
        });
  }

private:
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(e.b, pred, x, y);
  }
  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(e.b, memref, indices);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(e.b, value, memref, indices);
  }

  /// clamp(cu_seqlens[i], 0, seq).
  Value cuEntry(Value i) {
    return emitSequenceEdge(e, buf.cuSeqlens, i, p.seq);
  }

  Type outputType() {
    return cast<MemRefType>(buf.output.getType()).getElementType();
  }

  /// The step of index `i` (in scan order) of the sequence.
  Value rowOf(Value i) {
    return p.reverse ? e.sub(e.sub(end, one), i) : e.add(start, i);
  }

  void scan() {
    seqLen = e.sub(end, start);
    Value tk = e.index(l.threadsPerColumn);
    Value lane = arith::RemUIOp::create(e.b, thread, tk);
    myLocal = arith::DivUIOp::create(e.b, thread, tk);
    myColumn = e.add(v0, myLocal);
    isLane0 = cmp(arith::CmpIPredicate::eq, lane, zero);

    int64_t keyElems = l.chunk * l.kPad();
    int64_t valueElems = l.chunk * l.blockV;
    qS = allocWorkgroup(e, keyElems);
    kS = allocWorkgroup(e, keyElems);
    if (p.decay == DeltaDecay::PerKey)
      decayS = allocWorkgroup(e, keyElems);
    vS = allocWorkgroup(e, valueElems);
    oS = allocWorkgroup(e, valueElems);
    betaS = allocWorkgroup(e, l.chunk);
    if (p.decay == DeltaDecay::PerHead)
      headDecayS = allocWorkgroup(e, l.chunk);

    // This thread's keys (clamped), whether each is a real key (null when
    // always), and its entries of the initial state.
    SmallVector<Value> s;
    Value column = e.min(myColumn, e.index(p.dimV - 1));
    for (int64_t j = 0; j < l.keysPerThread; ++j) {
      Value k = e.add(lane, e.index(j * l.threadsPerColumn));
      myKeys.push_back(k);
      keyValid.push_back(
          (j + 1) * l.threadsPerColumn <= p.dimK
              ? Value()
              : cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK)));
      Value s0 = e.constF32(0.0f);
      if (buf.initialState) {
        s0 = load(buf.initialState,
                  {seqId, head, e.min(k, e.index(p.dimK - 1)), column});
        if (keyValid[j])
          s0 = e.select(keyValid[j], s0, e.constF32(0.0f));
      }
      s.push_back(s0);
    }

    Value chunk = e.index(l.chunk);
    Value numChunks = e.div(e.add(seqLen, e.index(l.chunk - 1)), chunk);
    s = e.forLoop(zero, numChunks, one, s, [&](Value ci, ValueRange state) {
      Value c0 = e.mul(ci, chunk);
      Value len = e.min(chunk, e.sub(seqLen, c0));
      stage(c0);
      gpu::BarrierOp::create(e.b);
      SmallVector<Value> next = recur(len, state);
      gpu::BarrierOp::create(e.b);
      output(c0, len);
      return next;
    });
    if (buf.finalState)
      storeFinalState(s);
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

  /// The chunk's outputs for its steps and the block's columns inside the
  /// problem.
  void output(Value c0, Value len) {
    forEachShared(e, l.threads, thread, l.chunk * l.blockV, [&](Value i) {
      BlockElement x = blockElement(e, i, l.blockV, v0, len, p.dimV);
      emitIf(e, x.inside, [&] {
        Value row = rowOf(e.add(c0, x.t));
        Value out = e.fromF32(load(oS, {i}), outputType());
        store(out, buf.output, {batchIdx, row, head, x.col});
      });
    });
  }

  void storeFinalState(ArrayRef<Value> s) {
    Value owned = cmp(arith::CmpIPredicate::slt, myColumn, e.index(p.dimV));
    emitIf(e, owned, [&] {
      for (int64_t j = 0; j < l.keysPerThread; ++j) {
        auto storeEntry = [&] {
          store(s[j], buf.finalState, {seqId, head, myKeys[j], myColumn});
        };
        if (keyValid[j])
          emitIf(e, keyValid[j], storeEntry);
        else
          storeEntry();
      }
    });
  }

  Emitter e;
  const VulkanDeltaPlan &p;
  const VulkanGlaLayout &l;
  const DeltaBuffers &buf;
  Value head, seqId, thread, zero, one, v0, kvHead, batchIdx, start, end,
      seqLen;
  Value myLocal, myColumn, isLane0;
  Value qS, kS, decayS, vS, oS, betaS, headDecayS;
  /// Per state entry of this thread: its key index (unclamped), whether it
  /// is a real key (null when always).
  SmallVector<Value> myKeys, keyValid;
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
