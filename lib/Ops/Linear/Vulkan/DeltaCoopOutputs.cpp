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
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopMatrices.h"
#include "Linear/Vulkan/DeltaChunk.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

namespace {

class CoopOutputsKernel : public CoopMatrices<Kernel> {
public:
  using CoopMatrices::CoopMatrices;

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

  /// The inverse norm of row `t` of `buffer` (head `h`) into `norms` at
  /// `at`: the keys in order, up to 8 loads a round.
  void rowNorm(Value buffer, Value h, Value t, Value at) {
    int64_t unroll = 8;
    while (p.dimK % unroll != 0)
      unroll /= 2;
    Value r = chunkRow(t);
    SmallVector<Value> sum = e.forLoop(
        zero, e.index(p.dimK), e.index(unroll), {zeroF()},
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

  void outputs() {
    int64_t C = l.chunk, bv = l.outBlockV;
    stage = allocWorkgroupOf(e, l.coopStageHalves(), f16);
    scores = allocWorkgroupOf(e, l.coopScoreFloats(), e.f32);
    Value a16 = allocWorkgroupOf(e, C * C, f16);
    gS = allocWorkgroup(e, C);
    norms = allocWorkgroup(e, 2 * C);
    if (p.decay == DeltaDecay::PerHead)
      storeStaged(loadStaged(C,
                             [&](Value t) -> SmallVector<Value> {
                               return {cumGate(t, Value())};
                             }),
                  [&](Value t, ArrayRef<Value> v) { store(v[0], gS, {t}); });
    if (p.l2Norm) {
      emitIf(e, lt(thread, e.index(C)),
             [&] { rowNorm(buf.query, head, thread, thread); });
      Value keyRow = andI(cmp(arith::CmpIPredicate::sge, thread, e.index(C)),
                          lt(thread, e.index(2 * C)));
      emitIf(e, keyRow, [&] {
        rowNorm(buf.key, kvHead, e.sub(thread, e.index(C)), thread);
      });
    }
    gpu::BarrierOp::create(e.b);

    SmallVector<Value> o = keyPass();

    // P = scale R exp(B_t - B_s) at s <= t, f16.
    storeStaged(loadStaged(C * C,
                           [&](Value i) -> SmallVector<Value> {
                             Value t = udiv(i, C);
                             Value s = urem(i, C);
                             Value v =
                                 e.fmul(load(scores, {i}), e.constF32(p.scale));
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
              Value valid = andI(lt(s, len), lt(c, e.index(p.dimV)));
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
            Value valid = andI(lt(k, e.index(p.dimK)), lt(c, e.index(p.dimV)));
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

  Value stage, scores, gS, norms;
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaCoopOutputs(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  CoopOutputsKernel(builder, loc, p, l, buf, tmp).build();
}
