//===- DeltaChunkOutputs.cpp - the chunk-parallel delta rule's outputs ----===//
//
// Workgroup = (chunk slot [+ filler], head, V block of up to 128 columns),
// 256 threads as a 16 x 16 grid (DeltaChunk.h). Thread (ti, sj) owns rows
// t = ti + 16 a of the scores (columns s = sj + 16 b) and of the outputs
// (columns sj + 16 j):
//
//   one pass over key tiles of 16: the raw scores q_t . k_s (per-key
//   ratios exp(B_t - B_s) per key), the norms of q_t and k_s from the same
//   loads, and q_t (exp(B_t) per key) . S[:, v] with S the state before
//   the chunk
//   P[t, s] = scale / (|q_t| |k_s|) raw[t, s] (exp(B_t - B_s) per head),
//   s <= t, into shared memory; O = scale / |q_t| (q S) (exp(B_t) per
//   head), then O += P N over step tiles of the new values N
//
// Blocks of the scores above the diagonal (a thread's column block past its
// row block, a row block before a step tile) are never computed. The key
// tiles' loads run one tile ahead: the next tile's go out once the current
// one is staged and wait behind its products (the loop carries them).
// Staged q and k rows are kTilePitch (17) floats apart, so the 16 threads
// reading k_s for 16 different s hit 16 banks.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/DeltaChunk.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

namespace {

class OutputsKernel : public Kernel {
public:
  using Kernel::Kernel;

  void build() {
    begin();
    withOutputChunk([&] { outputs(); });
  }

private:
  void outputs() {
    int64_t C = l.chunk, kt = VulkanDeltaChunkLayout::kTile;
    int64_t bv = l.outBlockV;
    bool perKey = p.decay == DeltaDecay::PerKey;
    Value scores = allocWorkgroup(e, C * C);
    int64_t pitch = VulkanDeltaChunkLayout::kTilePitch;
    Value qTile = allocWorkgroup(e, C * pitch);
    Value kTile = allocWorkgroup(e, C * pitch);
    Value bTile = perKey ? allocWorkgroup(e, C * pitch) : Value();
    Value rowTile = allocWorkgroup(e, kt * bv);
    Value gS = allocWorkgroup(e, C);
    if (p.decay == DeltaDecay::PerHead)
      storeStaged(loadStaged(C,
                             [&](Value t) -> SmallVector<Value> {
                               return {cumGate(t, Value())};
                             }),
                  [&](Value t, ArrayRef<Value> v) { store(v[0], gS, {t}); });

    int64_t nA = l.cPer * l.cPer, nO = l.cPer * l.outVPer;
    int64_t nAcc = nA + nO + 2 * l.cPer;
    // The loads of key tile k0: q, k (and B) [chunk, kt], then the state's
    // rows [kt, bv].
    auto loadKeyTile = [&](Value k0) -> std::pair<Staged, Staged> {
      Staged keys = loadStaged(C * kt, [&](Value i) -> SmallVector<Value> {
        Value t, k, valid;
        std::tie(t, k, valid) = keyTileElement(i, k0, kt);
        Value r = chunkRow(t);
        SmallVector<Value> out = {
            orZero(valid, load(buf.query, {batchIdx, r, head, clampK(k)})),
            orZero(valid, load(buf.key, {batchIdx, r, kvHead, clampK(k)}))};
        if (bTile)
          out.push_back(cumGate(t, clampK(k)));
        return out;
      });
      Staged rows = loadStaged(kt * bv, [&](Value i) -> SmallVector<Value> {
        Value k = e.add(k0, udiv(i, bv));
        Value c = e.add(v0, urem(i, bv));
        Value inColumns = lt(c, e.index(p.dimV));
        Value inKeys = lt(k, e.index(p.dimK));
        Value valid = andI(inKeys, inColumns);
        return {
            orZero(valid, memref::LoadOp::create(
                              e.b, tmp.states,
                              ValueRange{slot, head, clampK(k), clampV(c)}))};
      });
      return {keys, rows};
    };
    // The loop carries the accumulators and the next key tile's loads
    // (issued once the tile before is staged, so that they wait behind its
    // products): the first tile's are loaded here.
    std::pair<Staged, Staged> first = loadKeyTile(zero);
    const Staged &keys0 = first.first, &rows0 = first.second;
    SmallVector<Value> inits(nAcc, zeroF());
    appendStaged(keys0, inits);
    appendStaged(rows0, inits);
    Value lastTile = e.index((ceilDiv(p.dimK, kt) - 1) * kt);
    SmallVector<Value> acc = forKeyTiles(
        kt, inits, [&](Value k0, ValueRange in) -> SmallVector<Value> {
          ValueRange accIn = in.take_front(nAcc);
          Staged keys = restaged(keys0, in.drop_front(nAcc));
          Staged rows =
              restaged(rows0, in.drop_front(nAcc + stagedCount(keys0)));
          storeStaged(keys, [&](Value i, ArrayRef<Value> v) {
            Value at = keyTileSlot(i);
            store(v[0], qTile, {at});
            store(v[1], kTile, {at});
            if (bTile)
              store(v[2], bTile, {at});
          });
          storeStaged(rows, [&](Value i, ArrayRef<Value> v) {
            store(v[0], rowTile, {i});
          });
          gpu::BarrierOp::create(e.b);
          auto [nextKeys, nextRows] =
              loadKeyTile(e.min(e.add(k0, e.index(kt)), lastTile));
          SmallVector<Value> next(accIn.begin(), accIn.end());
          for (int64_t kk = 0; kk < kt; ++kk) {
            SmallVector<Value> qs, ks, qb, kb2, ss;
            loadTileColumn(qTile, bTile, /*byColumn=*/false, pitch, kk, qs, qb);
            loadTileColumn(kTile, bTile, /*byColumn=*/true, pitch, kk, ks, kb2);
            for (int64_t j = 0; j < l.outVPer; ++j) {
              Value c = col(j);
              Value at = e.add(e.index(kk * bv), c);
              ss.push_back(memref::LoadOp::create(e.b, rowTile, at));
            }
            for (int64_t a = 0; a < l.cPer; ++a) {
              // Column blocks past the row block lie above the diagonal.
              for (int64_t b = 0; b <= a; ++b) {
                Value kv = ks[b];
                if (bTile)
                  kv = e.fmul(kv, expNonPositive(e.fsub(qb[a], kb2[b])));
                next[a * l.cPer + b] =
                    math::FmaOp::create(e.b, qs[a], kv, next[a * l.cPer + b]);
              }
              Value qg = bTile ? e.fmul(qs[a], e.exp(qb[a])) : qs[a];
              for (int64_t j = 0; j < l.outVPer; ++j)
                next[nA + a * l.outVPer + j] = math::FmaOp::create(
                    e.b, qg, ss[j], next[nA + a * l.outVPer + j]);
            }
            if (p.l2Norm)
              for (int64_t a = 0; a < l.cPer; ++a) {
                int64_t sq = nA + nO;
                next[sq + a] =
                    math::FmaOp::create(e.b, qs[a], qs[a], next[sq + a]);
                next[sq + l.cPer + a] = math::FmaOp::create(
                    e.b, ks[a], ks[a], next[sq + l.cPer + a]);
              }
          }
          gpu::BarrierOp::create(e.b);
          appendStaged(nextKeys, next);
          appendStaged(nextRows, next);
          return next;
        });
    acc.resize(nAcc);

    // The scores and the inter-chunk part, normalized and scaled.
    SmallVector<Value> o(acc.begin() + nA, acc.begin() + nA + nO);
    SmallVector<Value> colNorm;
    for (int64_t b = 0; b < l.cPer; ++b)
      colNorm.push_back(p.l2Norm ? inverseNorm(acc[nA + nO + l.cPer + b])
                                 : Value());
    for (int64_t a = 0; a < l.cPer; ++a) {
      Value t = row(a);
      Value factor = e.constF32(p.scale);
      if (p.l2Norm)
        factor = e.fmul(factor, inverseNorm(acc[nA + nO + a]));
      Value bt;
      if (p.decay == DeltaDecay::PerHead)
        bt = memref::LoadOp::create(e.b, gS, t);
      Value rowFactor = bt ? e.fmul(factor, e.exp(bt)) : factor;
      for (int64_t j = 0; j < l.outVPer; ++j)
        o[a * l.outVPer + j] = e.fmul(o[a * l.outVPer + j], rowFactor);
      for (int64_t b = 0; b < l.cPer; ++b) {
        Value s = col(b);
        Value v = e.fmul(acc[a * l.cPer + b], factor);
        if (p.l2Norm)
          v = e.fmul(v, colNorm[b]);
        if (bt)
          v = e.fmul(v, expNonPositive(
                            e.fsub(bt, memref::LoadOp::create(e.b, gS, s))));
        Value at = e.add(e.mul(t, e.index(C)), s);
        Value causal = cmp(arith::CmpIPredicate::sle, s, t);
        store(orZero(causal, v), scores, {at});
      }
    }
    gpu::BarrierOp::create(e.b);

    // O += P N over tiles of 16 steps (unrolled: the row blocks before a
    // step tile lie above the diagonal and skip it).
    for (int64_t sb = 0; sb < l.cPer; ++sb) {
      int64_t s0 = sb * kt;
      storeStaged(
          loadStaged(kt * bv,
                     [&](Value i) -> SmallVector<Value> {
                       Value step = udiv(i, bv);
                       Value s = e.add(e.index(s0), step);
                       Value c = e.add(v0, urem(i, bv));
                       Value u = memref::LoadOp::create(
                           e.b, tmp.u, ValueRange{slot, head, s, clampV(c)});
                       Value inColumns = lt(c, e.index(p.dimV));
                       Value inChunk = lt(s, len);
                       return {orZero(andI(inChunk, inColumns), u)};
                     }),
          [&](Value i, ArrayRef<Value> v) { store(v[0], rowTile, {i}); });
      gpu::BarrierOp::create(e.b);
      for (int64_t s = 0; s < kt; ++s) {
        SmallVector<Value> ps, vs;
        for (int64_t a = sb; a < l.cPer; ++a) {
          Value step = e.index(s0 + s);
          Value chunkSteps = e.index(C);
          Value at = e.add(e.mul(row(a), chunkSteps), step);
          ps.push_back(memref::LoadOp::create(e.b, scores, at));
        }
        for (int64_t j = 0; j < l.outVPer; ++j) {
          Value c = col(j);
          Value at = e.add(e.index(s * bv), c);
          vs.push_back(memref::LoadOp::create(e.b, rowTile, at));
        }
        for (int64_t a = sb; a < l.cPer; ++a)
          for (int64_t j = 0; j < l.outVPer; ++j)
            o[a * l.outVPer + j] = math::FmaOp::create(e.b, ps[a - sb], vs[j],
                                                       o[a * l.outVPer + j]);
      }
      gpu::BarrierOp::create(e.b);
    }

    for (int64_t a = 0; a < l.cPer; ++a)
      for (int64_t j = 0; j < l.outVPer; ++j) {
        Value t = row(a), c = e.add(v0, col(j));
        Value inColumns = lt(c, e.index(p.dimV));
        Value inChunk = lt(t, len);
        emitIf(e, andI(inChunk, inColumns), [&] {
          Value r = rowOf(e.add(c0, t));
          Value out = e.fromF32(o[a * l.outVPer + j], outputType());
          store(out, buf.output, {batchIdx, r, head, c});
        });
      }
  }
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaChunkOutputs(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  OutputsKernel(builder, loc, p, l, buf, tmp).build();
}
