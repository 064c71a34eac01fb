//===- DeltaCoopOutputs.cpp - the delta rule's outputs on cooperative
// matrices ---===//
//
// `cooperative = 1` of the chunk-parallel delta rule (DeltaChunk.h):
// workgroup = (chunk slot [+ filler], head, V block of up to 128 columns),
// 256 threads in subgroups, as the SIMT outputs (DeltaChunkOutputs.cpp),
// with the three products on 16x16x16 f16 matrices and f32 accumulators:
//
//   the inverse norms of the chunk's q and k rows (l2 norm; one thread a
//   row), f32, and the per-head B of each step
//   per key tile of 32 (16 if short of memory), staged as f16:
//     qn = q / |q|   qo = scale qn exp(B_t)   kn = k / |k|
//     and the rows of S (the state before the chunk) of the V block
//   (every factor <= 1: the exponent B_t <= 0; the normalized values lie
//   in [-1, 1], where f16 keeps 11 bits);
//     R = qn kn^T (score tiles)     O = qo S (output tiles)
//   then P[t, s] = scale R[t, s] exp(B_t - B_s) (s <= t, exponent <= 0),
//   applied in f32 and stored f16 as the A operand of O += P N, with N = U -
//   W S the chunk's new values (f32 temporaries) staged f16 over the key
//   stage; O leaves through each subgroup's 16x16 f32 stage.
//
// The subgroups take the O tiles (chunk row tile x value tile) and the
// score tiles round-robin (CoopMatrices.h). Without the l2 norm q and k
// are staged as they are: f16 inputs exactly, bf16 rounded to f16's 11
// bits (values past f16's range, |x| > 65504, would overflow:
// docs/ops/delta.md). Per-key decays (KDA) stay on SIMT (the rule says so).
//
// `cooperative = 2`'s outputs (DirectOutputsKernel; fla's chunk_fwd_o
// layout), where their stages fit: the same workgroups with the V block
// a divisor of head_dim_v; the chunk's q and k rows normalized into f16
// stages once (rows of K + 8 halves), then each subgroup's O tiles (qn S,
// S's tiles read as f16 matrices straight from the states the cooperative
// state pass wrote in f16) and score tiles (qn kn^T) over every key tile,
// with no barrier between; P = scale R exp(B_t - B_s) (s <= t) as f16
// over the q stage (where the chunk is no longer than head_dim_k, else
// beside it); O's rows times scale exp(B_t) through the subgroup's stage;
// O += P N with N's tiles from the f16 new values.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopMatrices.h"
#include "Linear/Vulkan/DeltaChunk.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

namespace {

/// What both forms of the outputs share: the chunk's cumulative gates and
/// the inverse norms of rows of q and k.
class OutputsBase : public CoopMatrices<Kernel> {
public:
  using CoopMatrices::CoopMatrices;

protected:
  /// The inverse norm of row `t` of `buffer` (head `h`) into `norms` at
  /// `at`: the keys in order, up to 8 loads a round.
  void rowNorm(Value buffer, Value h, Value t, Value at) {
    int64_t unroll = 8;
    while (p.dimK % unroll != 0)
      unroll /= 2;
    Value r = chunkRow(t);
    Value init = zeroF();
    Value step = e.index(unroll);
    Value end = e.index(p.dimK);
    SmallVector<Value> sum = e.forLoop(
        zero, end, step, {init},
        [&](Value k0, ValueRange acc) -> SmallVector<Value> {
          SmallVector<Value> xs;
          for (int64_t i = 0; i < unroll; ++i)
            xs.push_back(load(buffer, {batchIdx, r, h, e.add(k0, e.index(i))}));
          Value s = acc[0];
          for (Value x : xs)
            s = math::FmaOp::create(e.b, x, x, s);
          return {s};
        });
    store(inverseNorm(sum[0]), norms, {at});
  }

  /// The inverse norms of the chunk's q rows (threads 0..C-1, at 0..C-1)
  /// and k rows (threads C..2C-1, at C..2C-1), one thread a row.
  void rowNorms() {
    int64_t C = l.chunk;
    emitIf(e, lt(thread, e.index(C)),
           [&] { rowNorm(buf.query, head, thread, thread); });
    Value below = lt(thread, e.index(2 * C));
    Value above = cmp(arith::CmpIPredicate::sge, thread, e.index(C));
    Value keyRow = andI(above, below);
    emitIf(e, keyRow, [&] {
      rowNorm(buf.key, kvHead, e.sub(thread, e.index(C)), thread);
    });
  }

  /// The chunk's cumulative gates (per-head decay) into `gS` and the
  /// inverse norms of its q and k rows (l2 norm) into `norms`, then a
  /// barrier.
  void stageGatesAndNorms() {
    int64_t C = l.chunk;
    gS = allocWorkgroup(e, C);
    norms = allocWorkgroup(e, 2 * C);
    if (p.decay == DeltaDecay::PerHead)
      storeStaged(loadStaged(C,
                             [&](Value t) -> SmallVector<Value> {
                               return {cumGate(t, Value())};
                             }),
                  [&](Value t, ArrayRef<Value> v) { store(v[0], gS, {t}); });
    if (p.l2Norm)
      rowNorms();
    gpu::BarrierOp::create(e.b);
  }

  Value norms, gS;
};

class CoopOutputsKernel : public OutputsBase {
public:
  using OutputsBase::OutputsBase;

  void build() {
    beginCoop();
    withOutputChunk([&] { outputs(); });
  }

private:
  int64_t rowTiles() const { return l.chunk / kT; }
  int64_t colTiles() const { return l.outBlockV / kT; }
  int64_t outputTiles() const { return rowTiles() * colTiles(); }
  int64_t scoreTiles() const { return rowTiles() * rowTiles(); }

  void storeHalf(Value value, Value memref, Value index) {
    store(e.fromF32(value, f16), memref, {index});
  }

  void outputs() {
    int64_t C = l.chunk, bv = l.outBlockV;
    stage = allocWorkgroupOf(e, l.coopStageHalves(), f16);
    scores = allocWorkgroupOf(e, l.coopScoreFloats(), e.f32);
    Value a16 = allocWorkgroupOf(e, C * C, f16);
    stageGatesAndNorms();

    SmallVector<Value> o = keyPass();

    // P = scale R exp(B_t - B_s) at s <= t, f16.
    storeStaged(loadStaged(C * C,
                           [&](Value i) -> SmallVector<Value> {
                             Value t = udiv(i, C);
                             Value s = urem(i, C);
                             Value scale = e.constF32(p.scale);
                             Value v = e.fmul(load(scores, {i}), scale);
                             if (p.decay == DeltaDecay::PerHead) {
                               Value bt = load(gS, {t});
                               Value bs = load(gS, {s});
                               v = e.fmul(v, expNonPositive(e.fsub(bt, bs)));
                             }
                             Value keep = cmp(arith::CmpIPredicate::sle, s, t);
                             return {orZero(keep, v)};
                           }),
                [&](Value i, ArrayRef<Value> v) { storeHalf(v[0], a16, i); });
    // The chunk's new values N = U - W S over the key stage.
    storeStaged(
        loadStaged(
            C * bv,
            [&](Value i) -> SmallVector<Value> {
              Value s = udiv(i, bv);
              Value c = e.add(v0, urem(i, bv));
              Value inColumns = lt(c, e.index(p.dimV));
              Value inChunk = lt(s, len);
              Value valid = andI(inChunk, inColumns);
              return {orZero(valid, load(tmp.u, {slot, head, s, clampV(c)}))};
            }),
        [&](Value i, ArrayRef<Value> v) { storeHalf(v[0], stage, i); });
    gpu::BarrierOp::create(e.b);

    // O += P N.
    for (int64_t j = 0; j < rowTiles(); ++j)
      mmaTiles(o, outputTiles(), colTiles(),
               {a16, j * kT, kT * C, C, /*transpose=*/false},
               {stage, j * kT * bv, kT, bv, /*transpose=*/false});
    gpu::BarrierOp::create(e.b);
    writeOutputTiles(o, outputTiles(), colTiles(), scores);
  }

  /// One pass over key tiles: the subgroup's O tiles (qo S) and score
  /// tiles (qn kn^T); the scores are written to `scores` (f32) at the end.
  /// Returns the O accumulators.
  SmallVector<Value> keyPass() {
    int64_t C = l.chunk, kt = l.coopKeyTile, bv = l.outBlockV;
    int64_t qsAt = 0, ksAt = C * kt, qoAt = 2 * C * kt, sAt = 3 * C * kt;
    SmallVector<Value> inits;
    for (int64_t m = 0; m < l.outputSlots + l.scoreSlots; ++m)
      inits.push_back(zeroMatrix());

    SmallVector<Value> acc = forKeyTiles(
        kt, inits, [&](Value k0, ValueRange accIn) -> SmallVector<Value> {
          Staged keys = loadStaged(C * kt, [&](Value i) -> SmallVector<Value> {
            Value t, k, valid;
            std::tie(t, k, valid) = keyTileElement(i, k0, kt);
            Value r = chunkRow(t);
            Value q = load(buf.query, {batchIdx, r, head, clampK(k)});
            Value key = load(buf.key, {batchIdx, r, kvHead, clampK(k)});
            if (p.l2Norm) {
              Value qNorm = load(norms, {t});
              Value kNorm = load(norms, {e.add(t, e.index(C))});
              q = e.fmul(q, qNorm);
              key = e.fmul(key, kNorm);
            }
            Value qo = e.fmul(q, e.constF32(p.scale));
            if (p.decay == DeltaDecay::PerHead) {
              Value bt = load(gS, {t});
              qo = e.fmul(qo, expNonPositive(bt));
            }
            return {orZero(valid, q), orZero(valid, key), orZero(valid, qo)};
          });
          Staged rows = loadStaged(kt * bv, [&](Value i) -> SmallVector<Value> {
            Value k = e.add(k0, udiv(i, bv));
            Value c = e.add(v0, urem(i, bv));
            Value inColumns = lt(c, e.index(p.dimV));
            Value inKeys = lt(k, e.index(p.dimK));
            Value valid = andI(inKeys, inColumns);
            return {orZero(
                valid, load(tmp.states, {slot, head, clampK(k), clampV(c)}))};
          });
          storeStaged(keys, [&](Value i, ArrayRef<Value> v) {
            storeHalf(v[0], stage, e.add(e.index(qsAt), i));
            storeHalf(v[1], stage, e.add(e.index(ksAt), i));
            storeHalf(v[2], stage, e.add(e.index(qoAt), i));
          });
          storeStaged(rows, [&](Value i, ArrayRef<Value> v) {
            storeHalf(v[0], stage, e.add(e.index(sAt), i));
          });
          gpu::BarrierOp::create(e.b);

          SmallVector<Value> next(accIn.begin(), accIn.end());
          MutableArrayRef<Value> accs(next);
          for (int64_t sub = 0; sub < kt; sub += kT) {
            mmaTiles(accs.take_front(l.outputSlots), outputTiles(), colTiles(),
                     {stage, qoAt + sub, kT * kt, kt, /*transpose=*/false},
                     {stage, sAt + sub * bv, kT, bv, /*transpose=*/false});
            // Columns j of the scores: the key stage read column-major.
            mmaTiles(accs.drop_front(l.outputSlots), scoreTiles(), rowTiles(),
                     {stage, qsAt + sub, kT * kt, kt, /*transpose=*/false},
                     {stage, ksAt + sub, kT * kt, kt, /*transpose=*/true});
          }
          gpu::BarrierOp::create(e.b);
          return next;
        });

    storeTiles(ArrayRef<Value>(acc).drop_front(l.outputSlots), scoreTiles(),
               rowTiles(), scores, C);
    gpu::BarrierOp::create(e.b);
    return SmallVector<Value>(acc.begin(), acc.begin() + l.outputSlots);
  }

  Value stage, scores;
};

/// `cooperative = 2`'s outputs (fla's chunk_fwd_o layout): the chunk's q
/// and k normalized into f16 stages once, S and N read as f16 matrices
/// straight from the temporaries the cooperative state pass wrote.
class DirectOutputsKernel : public OutputsBase {
public:
  using OutputsBase::OutputsBase;

  void build() {
    beginCoop();
    // The word views at the function's top level, where the Vulkan
    // preparation pass finds them.
    sWords = wordView(e, tmp.states, kWord);
    nWords = wordView(e, tmp.n16, kWord);
    withOutputChunk([&] { outputs(); });
  }

private:
  static constexpr int64_t kWord = 8; // f16 elements per 16-byte word

  int64_t rowTiles() const { return l.chunk / kT; }
  int64_t colTiles() const { return l.outBlockV / kT; }
  int64_t keyTiles() const { return p.dimK / kT; }
  int64_t outputTiles() const { return rowTiles() * colTiles(); }
  int64_t scoreTiles() const { return rowTiles() * rowTiles(); }

  void outputs() {
    int64_t C = l.chunk, K = p.dimK, pitch = K + 8, pPitch = C + 8;
    qS = allocWorkgroupOf(e, C * pitch, f16);
    kS = allocWorkgroupOf(e, C * pitch, f16);
    // P over the q stage once the key products are done, where it fits.
    pS = C <= K ? qS : allocWorkgroupOf(e, C * pPitch, f16);
    stage = allocWorkgroupOf(e, l.subgroups() * kT * kT, e.f32);
    stageGatesAndNorms();

    // The chunk's q and k rows, normalized, as f16 (zero past the chunk).
    storeStaged(
        loadStaged(C * K,
                   [&](Value i) -> SmallVector<Value> {
                     Value t = udiv(i, K);
                     Value k = urem(i, K);
                     Value r = chunkRow(t);
                     Value q = load(buf.query, {batchIdx, r, head, k});
                     Value key = load(buf.key, {batchIdx, r, kvHead, k});
                     if (p.l2Norm) {
                       q = e.fmul(q, load(norms, {t}));
                       key = e.fmul(key, load(norms, {e.add(t, e.index(C))}));
                     }
                     Value valid = lt(t, len);
                     return {orZero(valid, q), orZero(valid, key)};
                   }),
        [&](Value i, ArrayRef<Value> v) {
          Value k = urem(i, K);
          Value rowPitch = e.index(pitch);
          Value t = udiv(i, K);
          Value at = e.add(e.mul(t, rowPitch), k);
          store(e.fromF32(v[0], f16), qS, {at});
          store(e.fromF32(v[1], f16), kS, {at});
        });
    gpu::BarrierOp::create(e.b);

    // O = qn S and R = qn kn^T over the key tiles; S's tiles straight from
    // the f16 states of the chunk.
    Value stateSize = e.index(K * p.dimV);
    Value slotHead = e.add(e.mul(slot, e.index(p.heads)), head);
    Value sBase = e.mul(slotHead, stateSize);
    SmallVector<Value> o, r;
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tile = tileOf(m, outputTiles());
      Value i = udiv(tile, colTiles());
      Value j = urem(tile, colTiles());
      Value col = e.add(v0, e.mul(j, e.index(kT)));
      Value acc = zeroMatrix();
      for (int64_t kk = 0; kk < keyTiles(); ++kk) {
        Value a = loadMatrix(e, aType, qS, tileAt(i, kT * pitch, kk * kT),
                             pitch, /*transpose=*/false);
        Value sm = loadMatrix(
            e, bType, sWords,
            e.add(sBase, e.add(e.index(kk * kT * p.dimV), col)), p.dimV,
            /*transpose=*/false);
        acc = mma(a, sm, acc);
      }
      o.push_back(acc);
    }
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      Value tile = tileOf(m, scoreTiles());
      Value i = udiv(tile, rowTiles());
      Value s = urem(tile, rowTiles());
      Value acc = zeroMatrix();
      for (int64_t kk = 0; kk < keyTiles(); ++kk) {
        Value a = loadMatrix(e, aType, qS, tileAt(i, kT * pitch, kk * kT),
                             pitch, /*transpose=*/false);
        Value b = loadMatrix(e, bType, kS, tileAt(s, kT * pitch, kk * kT),
                             pitch, /*transpose=*/true);
        acc = mma(a, b, acc);
      }
      r.push_back(acc);
    }
    gpu::BarrierOp::create(e.b);

    // P[t, s] = scale R exp(B_t - B_s) at s <= t, f16 over the q stage;
    // O's rows times scale exp(B_t).
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      Value tile = tileOf(m, scoreTiles());
      Value i = udiv(tile, rowTiles());
      Value s0 = urem(tile, rowTiles());
      auto write = [&] {
        writeMatrix(
            r[m], stage,
            [&](Value row, Value c, Value value) {
              Value t = e.add(e.mul(i, e.index(kT)), row);
              Value s = e.add(e.mul(s0, e.index(kT)), c);
              Value v = e.fmul(value, e.constF32(p.scale));
              if (p.decay == DeltaDecay::PerHead) {
                Value bs = load(gS, {s});
                Value bt = load(gS, {t});
                v = e.fmul(v, expNonPositive(e.fsub(bt, bs)));
              }
              v = orZero(cmp(arith::CmpIPredicate::sle, s, t), v);
              Value at = e.add(e.mul(t, e.index(pPitch)), s);
              Value half = e.fromF32(v, f16);
              store(half, pS, {at});
            },
            /*withinSubgroup=*/true);
      };
      if ((m + 1) * l.subgroups() <= scoreTiles())
        write();
      else
        emitIf(e, ownsTile(m, scoreTiles()), write);
    }
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tile = tileOf(m, outputTiles());
      Value i = udiv(tile, colTiles());
      o[m] = scaleRows(o[m], [&](Value row) {
        Value t = e.add(e.mul(i, e.index(kT)), row);
        Value f = e.constF32(p.scale);
        if (p.decay == DeltaDecay::PerHead)
          f = e.fmul(f, expNonPositive(load(gS, {t})));
        return f;
      });
    }
    gpu::BarrierOp::create(e.b);

    // O += P N; N's tiles straight from the f16 new values of the chunk.
    Value valuesSize = e.index(C * p.dimV);
    Value slotHeadN = e.add(e.mul(slot, e.index(p.heads)), head);
    Value nBase = e.mul(slotHeadN, valuesSize);
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tile = tileOf(m, outputTiles());
      Value i = udiv(tile, colTiles());
      Value j = urem(tile, colTiles());
      Value col = e.add(v0, e.mul(j, e.index(kT)));
      for (int64_t st = 0; st < rowTiles(); ++st) {
        Value a = loadMatrix(e, aType, pS, tileAt(i, kT * pPitch, st * kT),
                             pPitch, /*transpose=*/false);
        Value nm = loadMatrix(
            e, bType, nWords,
            e.add(nBase, e.add(e.index(st * kT * p.dimV), col)), p.dimV,
            /*transpose=*/false);
        o[m] = mma(a, nm, o[m]);
      }
    }
    writeOutputTiles(o, outputTiles(), colTiles(), stage);
  }

  /// `tile` `stride` + `offset`, one op per statement (in the order GCC
  /// built them: the IR must not follow the C++ compiler's argument
  /// order).
  Value tileAt(Value tile, int64_t stride, int64_t offset) {
    Value off = e.index(offset);
    Value base = e.mul(tile, e.index(stride));
    return e.add(base, off);
  }

  /// `acc` with row r of its 16x16 tile times `factor(r)`, through the
  /// subgroup's part of the stage.
  Value scaleRows(Value acc, function_ref<Value(Value)> factor) {
    Value base = e.mul(subgroup, e.index(kT * kT));
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, acc, stage, ValueRange{base},
                                          e.b.getIndexAttr(kT), UnitAttr());
    subgroupBarrier();
    for (int64_t i = 0; i < kT * kT / l.subgroupSize; ++i) {
      Value idx = e.add(base, e.add(lane, e.index(i * l.subgroupSize)));
      Value row = udiv(urem(idx, kT * kT), kT);
      Value value = memref::LoadOp::create(e.b, stage, idx);
      store(e.fmul(value, factor(row)), stage, {idx});
    }
    subgroupBarrier();
    Value scaled = gpu::SubgroupMmaLoadMatrixOp::create(
        e.b, cType, stage, ValueRange{base}, e.b.getIndexAttr(kT), UnitAttr());
    subgroupBarrier();
    return scaled;
  }

  Value sWords, nWords, qS, kS, pS, stage;
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaCoopOutputs(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  CoopOutputsKernel(builder, loc, p, l, buf, tmp).build();
}

void mlir::ejk::delta_chunk::buildDeltaDirectOutputs(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  DirectOutputsKernel(builder, loc, p, l, buf, tmp).build();
}
