//===- CoopOutputs.cpp - the chunk-parallel outputs on cooperative matrices
//===//
//
// Workgroup = (chunk slot [+ filler], head, V block), as the SIMT outputs
// (ChunkOutputs.cpp): O = A V + (q exp(B)) S_{c-1}, with the products on
// 16x16x16 f16 matrices and f32 accumulators. Per key tile of 32 (or 16)
// keys the workgroup stages, as f16 (gates applied in f32 first):
//
//   per-step gates, factored (the chunk's -min_k B_last <= 16), with
//   r = B_last / 2 per key:
//     qs = scale q exp(B_t - r)    ks = k exp(r - B_s)    S' = exp(r) S
//     (every factor within e^8 of 1; qs is also the A operand of q S,
//     since (q exp(B_t - r)) (exp(r) S) = (q exp(B_t)) S); r and exp(r)
//     per key are staged once, before the key tiles
//   per-step gates, past the bound: qs = scale q exp(B_t), S' = S; the
//     scores are then taken exactly after the key loop (SIMT,
//     exp(min(B_t - B_s, 0)) per key and pair, from the buffers)
//   a constant decay (g_gamma, slopes): qs = scale q, ks = k and
//     qo = scale q exp(gamma (t + 1)) for q S; the scores are multiplied by
//     exp(gamma (t - s)) when they are masked (exact for any gamma)
//   no decay: qs = scale q, ks = k
//
// The subgroups take the O tiles (chunk row tile x value tile) and the
// score tiles (chunk row tile x chunk column tile) round-robin
// (CoopKernel.h). Then the scores go through workgroup memory (f32),
// masked to s <= t, as the f16 A operand of A V; the chunk's values are
// staged f16 over the key stage; O leaves through each subgroup's 16x16 f32
// stage.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopKernel.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::chunk_parallel;

namespace {

class CoopOutputsKernel : public CoopKernel {
public:
  using CoopKernel::CoopKernel;

  void build() {
    beginCoop();
    withOutputChunk([&] { outputs(); });
  }

private:
  int64_t rowTiles() const { return l.chunk / kT; }
  int64_t colTiles() const { return l.blockV / kT; }
  int64_t outputTiles() const { return rowTiles() * colTiles(); }
  int64_t scoreTiles() const { return rowTiles() * rowTiles(); }

  void outputs() {
    int64_t C = l.chunk;
    bool constant = mode == GateMode::Constant;
    stage = allocWorkgroupOf(e, l.coopStageHalves(constant), f16);
    scores = allocWorkgroupOf(e, l.coopScoreFloats(), e.f32);
    Value a16 = allocWorkgroupOf(e, C * C, f16);

    SmallVector<Value> o;
    if (mode == GateMode::PerStep) {
      Value factor = lastGateWithinBound(kCoopFactorBound);
      o = e.ifElse(
          factor, SmallVector<Type>(l.outputSlots, cType),
          [&] { return keyPass(/*coopScores=*/true); },
          [&] {
            SmallVector<Value> acc = keyPass(/*coopScores=*/false);
            exactScores();
            return acc;
          });
    } else {
      o = keyPass(/*coopScores=*/true);
    }
    gpu::BarrierOp::create(e.b);

    // A = the scores at s <= t (times exp(gamma (t - s)) for a constant
    // decay), f16.
    spread(
        C * C, /*batched=*/true,
        [&](Value i) -> SmallVector<Value> {
          Value t = arith::DivUIOp::create(e.b, i, e.index(C));
          Value s = arith::RemUIOp::create(e.b, i, e.index(C));
          Value a = memref::LoadOp::create(e.b, scores, i);
          if (constant) {
            Value gap = e.toI32(e.max(e.sub(t, s), zero));
            a = e.fmul(
                a,
                e.exp(e.fmul(gamma, arith::SIToFPOp::create(e.b, e.f32, gap))));
          }
          Value keep = cmp(arith::CmpIPredicate::sle, s, t);
          return {e.select(keep, a, e.constF32(0.0f))};
        },
        [&](Value i, ArrayRef<Value> a) { storeAs(a[0], a16, i); });
    stageValues(stage, zero, C, /*batched=*/true);
    gpu::BarrierOp::create(e.b);

    // O += A V.
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tile = tileOf(m, outputTiles());
      Value i = arith::DivUIOp::create(e.b, tile, e.index(colTiles()));
      Value vt = arith::RemUIOp::create(e.b, tile, e.index(colTiles()));
      for (int64_t j = 0; j < rowTiles(); ++j) {
        Value stepAt = e.index(j * kT);
        Value aAt = e.add(e.mul(i, e.index(kT * C)), stepAt);
        Value a = loadMatrix(e, aType, a16, aAt, C, /*transpose=*/false);
        Value colAt = e.mul(vt, e.index(kT));
        Value vAt = e.add(e.index(j * kT * l.blockV), colAt);
        Value v = loadMatrix(e, bType, stage, vAt, l.blockV,
                             /*transpose=*/false);
        o[m] = mma(a, v, o[m]);
      }
    }
    gpu::BarrierOp::create(e.b);

    writeOutputTiles(o, outputTiles(), colTiles(), scores);
  }

  /// One pass over key tiles: the subgroup's O tiles from the q S products
  /// and, with `coopScores`, its score tiles (written to `scores` at the
  /// end). Returns the O accumulators.
  SmallVector<Value> keyPass(bool coopScores) {
    int64_t C = l.chunk, kt = l.coopKeyTile;
    bool constant = mode == GateMode::Constant;
    // Per-step gates take the half-decay reference when factored.
    bool halfRef = mode == GateMode::PerStep && coopScores;
    int64_t qsAt = 0, ksAt = C * kt, qoAt = constant ? 2 * C * kt : 0;
    int64_t sAt = (constant ? 3 : 2) * C * kt;
    SmallVector<Value> inits;
    for (int64_t m = 0; m < l.outputSlots; ++m)
      inits.push_back(zeroMatrix());
    if (coopScores)
      for (int64_t m = 0; m < l.scoreSlots; ++m)
        inits.push_back(zeroMatrix());
    // With the half-decay reference, r = B_last / 2 and exp(r) per key go
    // to the scores' stage first (free until the key pass ends): the stages
    // below read them there instead of B_last from the temporary (and one
    // exp) per element.
    Value halfRefs;
    if (halfRef) {
      halfRefs = scores;
      forEachShared(e, l.kThreads, thread, p.dimK, [&](Value k) {
        // One op per statement where two would be built in one call: the
        // compilers evaluate arguments in different orders (this is the
        // order GCC built them in).
        Value half = e.constF32(0.5f);
        Value r = e.fmul(cumGate(e.sub(len, one), k), half);
        memref::StoreOp::create(e.b, r, halfRefs, k);
        Value expAt = e.add(k, e.index(p.dimK));
        memref::StoreOp::create(e.b, e.exp(r), halfRefs, expAt);
      });
      gpu::BarrierOp::create(e.b);
    }
    auto halfLast = [&](Value k) {
      return memref::LoadOp::create(e.b, halfRefs, k).getResult();
    };
    auto expHalfLast = [&](Value k) {
      return memref::LoadOp::create(e.b, halfRefs, e.add(k, e.index(p.dimK)))
          .getResult();
    };

    SmallVector<Value> acc = e.forLoop(
        zero, e.index(ceilDiv(p.dimK, kt)), one, inits,
        [&](Value kb, ValueRange accIn) -> SmallVector<Value> {
          Value k0 = e.mul(kb, e.index(kt));
          // Batched (CoopKernel::spread): the stage's loads overlap.
          spread(
              C * kt, /*batched=*/true,
              [&](Value i) -> SmallVector<Value> {
                Value t = arith::DivUIOp::create(e.b, i, e.index(kt));
                Value k =
                    e.add(k0, arith::RemUIOp::create(e.b, i, e.index(kt)));
                Value inKeys =
                    cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
                Value inChunk = cmp(arith::CmpIPredicate::slt, t, len);
                Value valid = arith::AndIOp::create(e.b, inChunk, inKeys);
                Value kc = e.min(k, e.index(p.dimK - 1));
                Value row = chunkRow(t);
                Value scale = e.constF32(p.scale);
                Value q =
                    e.fmul(load(buf.query, {batchIdx, row, head, kc}), scale);
                Value key = load(buf.key, {batchIdx, row, kvHead, kc});
                Value qo;
                if (mode == GateMode::PerStep) {
                  Value b = cumGate(t, kc);
                  if (halfRef) {
                    Value r = halfLast(kc);
                    q = e.fmul(q, e.exp(e.fsub(b, r)));
                    key = e.fmul(key, e.exp(e.fsub(r, b)));
                  } else {
                    q = e.fmul(q, e.exp(b));
                  }
                } else if (constant) {
                  qo = e.fmul(q, e.exp(constantCum(t)));
                }
                Value zeroF = e.constF32(0.0f);
                SmallVector<Value> out = {e.select(valid, q, zeroF),
                                          e.select(valid, key, zeroF)};
                if (qo)
                  out.push_back(e.select(valid, qo, zeroF));
                return out;
              },
              [&](Value i, ArrayRef<Value> v) {
                storeAs(v[0], stage, e.add(e.index(qsAt), i));
                if (coopScores)
                  storeAs(v[1], stage, e.add(e.index(ksAt), i));
                if (v.size() > 2)
                  storeAs(v[2], stage, e.add(e.index(qoAt), i));
              });
          spread(
              kt * l.blockV, /*batched=*/true,
              [&](Value i) -> SmallVector<Value> {
                Value k = e.add(
                    k0, arith::DivUIOp::create(e.b, i, e.index(l.blockV)));
                Value col = e.add(
                    v0, arith::RemUIOp::create(e.b, i, e.index(l.blockV)));
                Value inColumns =
                    cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV));
                Value inKeys =
                    cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
                Value valid = arith::AndIOp::create(e.b, inKeys, inColumns);
                Value kc = e.min(k, e.index(p.dimK - 1));
                Value s = load(tmp.states, {slot(), head, kc,
                                            e.min(col, e.index(p.dimV - 1))});
                if (halfRef)
                  s = e.fmul(s, expHalfLast(kc));
                return {e.select(valid, s, e.constF32(0.0f))};
              },
              [&](Value i, ArrayRef<Value> v) {
                storeAs(v[0], stage, e.add(e.index(sAt), i));
              });
          gpu::BarrierOp::create(e.b);

          SmallVector<Value> next(accIn.begin(), accIn.end());
          for (int64_t sub = 0; sub < kt; sub += kT) {
            MutableArrayRef<Value> accs(next);
            mmaTiles(accs.take_front(l.outputSlots), outputTiles(), colTiles(),
                     {stage, qoAt + sub, kT * kt, kt, /*transpose=*/false},
                     {stage, sAt + sub * l.blockV, kT, l.blockV,
                      /*transpose=*/false});
            if (!coopScores)
              continue;
            // Columns j of the scores: the key stage read column-major.
            mmaTiles(accs.slice(l.outputSlots, l.scoreSlots), scoreTiles(),
                     rowTiles(),
                     {stage, qsAt + sub, kT * kt, kt, /*transpose=*/false},
                     {stage, ksAt + sub, kT * kt, kt, /*transpose=*/true});
          }
          gpu::BarrierOp::create(e.b);
          return next;
        });

    if (coopScores)
      storeTiles(ArrayRef<Value>(acc).slice(l.outputSlots, l.scoreSlots),
                 scoreTiles(), rowTiles(), scores, C);
    return SmallVector<Value>(acc.begin(), acc.begin() + l.outputSlots);
  }

  /// The scores past the factored bound, exactly: thread (ti, si) of the
  /// 16 x 16 grid takes rows ti + 16 a and columns si + 16 b, summing
  /// scale q k exp(min(B_t - B_s, 0)) over the keys from the buffers (the
  /// slow path of chunks of very strong decay).
  void exactScores() {
    int64_t per = l.chunk / VulkanGlaChunkLayout::kGrid;
    SmallVector<Value> inits(per * per, e.constF32(0.0f));
    SmallVector<Value> acc = e.forLoop(
        zero, e.index(p.dimK), one, inits,
        [&](Value k, ValueRange accIn) -> SmallVector<Value> {
          SmallVector<Value> qs, qb, ks, kb;
          for (int64_t a = 0; a < per; ++a) {
            Value t = outRow(a);
            Value scale = e.constF32(p.scale);
            qs.push_back(e.fmul(
                load(buf.query, {batchIdx, chunkRow(t), head, k}), scale));
            qb.push_back(cumGate(t, k));
          }
          for (int64_t b = 0; b < per; ++b) {
            Value s = scoreCol(b);
            ks.push_back(load(buf.key, {batchIdx, chunkRow(s), kvHead, k}));
            kb.push_back(cumGate(s, k));
          }
          SmallVector<Value> next(accIn.begin(), accIn.end());
          for (int64_t a = 0; a < per; ++a)
            for (int64_t b = 0; b < per; ++b) {
              Value zeroF = e.constF32(0.0f);
              Value gap = e.fsub(qb[a], kb[b]);
              Value decay = e.exp(arith::MinNumFOp::create(e.b, gap, zeroF));
              next[a * per + b] = math::FmaOp::create(
                  e.b, qs[a], e.fmul(ks[b], decay), next[a * per + b]);
            }
          return next;
        });
    for (int64_t a = 0; a < per; ++a)
      for (int64_t b = 0; b < per; ++b) {
        Value col = scoreCol(b);
        Value chunkSteps = e.index(l.chunk);
        Value at = e.add(e.mul(outRow(a), chunkSteps), col);
        memref::StoreOp::create(e.b, acc[a * per + b], scores, at);
      }
  }

  Value stage, scores;
};

} // namespace

void mlir::ejk::chunk_parallel::buildCoopOutputs(OpBuilder &builder,
                                                 Location loc,
                                                 const GlaProblem &p,
                                                 const VulkanGlaChunkLayout &l,
                                                 const GlaBuffers &buf,
                                                 const Temporaries &tmp) {
  CoopOutputsKernel(builder, loc, p, l, buf, tmp).build();
}
