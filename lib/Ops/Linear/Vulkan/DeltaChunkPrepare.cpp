//===- DeltaChunkPrepare.cpp - the delta rule's per-chunk UT transform ----===//
//
// Workgroup = (chunk slot, head), 256 threads (DeltaChunk.h):
//
//   scores   thread (ti, sj) of a 16 x 16 grid: A[t, s] for t = ti + 16 a,
//            s = sj + 16 b over key tiles of 16 (raw keys; the key norms
//            from the same loads), then A = -beta_t G[t, s] / (|k_t| |k_s|)
//            strictly below the diagonal, into shared memory
//   solve    thread j: column j of [K~ | V] (K~ = k / |k| exp(B), rows
//            times beta), forward substitution
//              x_t = r_t + sum_{s < t} A[t, s] x_s
//            by blocks of 16 rows (the block in registers, the earlier
//            blocks read back from W or U), x into W (key columns) or U
//            (value columns); the key columns also write Kd = k / |k|
//            exp(B_last - B) (in f16 for the cooperative state pass, which
//            also takes an f16 copy of W)
//
// A column of the solve depends on nothing but its own column and A, so
// the threads need no barrier between the chunk's steps. Steps past the
// chunk have zero keys, values and rates: their rows of A, W, U and Kd are
// zero.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/DeltaChunk.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

namespace {

class PrepareKernel : public Kernel {
public:
  using Kernel::Kernel;

  void build() {
    begin();
    withChunkOfSlot(WorkgroupIdOp::create(e.b, 0), [&] { prepare(); });
  }

private:
  void prepare() {
    int64_t C = l.chunk, kt = VulkanDeltaChunkLayout::kTile;
    bool perKey = p.decay == DeltaDecay::PerKey;
    aS = allocWorkgroup(e, C * C);
    int64_t pitch = VulkanDeltaChunkLayout::kTilePitch;
    Value kTile = allocWorkgroup(e, C * pitch);
    Value bTile = perKey ? allocWorkgroup(e, C * pitch) : Value();
    betaS = allocWorkgroup(e, C);
    normS = allocWorkgroup(e, C);
    gS = allocWorkgroup(e, C);

    // The rates and the per-head B of the chunk's steps (zero past it);
    // the first tile's barrier publishes them.
    Staged steps = loadStaged(C, [&](Value t) -> SmallVector<Value> {
      Value beta = load(buf.beta, {batchIdx, chunkRow(t), head});
      SmallVector<Value> out = {orZero(lt(t, len), beta)};
      if (p.decay == DeltaDecay::PerHead)
        out.push_back(cumGate(t, Value()));
      return out;
    });
    storeStaged(steps, [&](Value t, ArrayRef<Value> v) {
      store(v[0], betaS, {t});
      if (v.size() > 1)
        store(v[1], gS, {t});
    });

    int64_t nA = l.cPer * l.cPer;
    SmallVector<Value> inits(nA + 2 * l.cPer, zeroF());
    SmallVector<Value> acc = forKeyTiles(
        kt, inits, [&](Value k0, ValueRange accIn) -> SmallVector<Value> {
          Staged keys = loadStaged(C * kt, [&](Value i) -> SmallVector<Value> {
            Value t, k, valid;
            std::tie(t, k, valid) = keyTileElement(i, k0, kt);
            SmallVector<Value> out = {orZero(
                valid,
                load(buf.key, {batchIdx, chunkRow(t), kvHead, clampK(k)}))};
            if (bTile)
              out.push_back(cumGate(t, clampK(k)));
            return out;
          });
          storeStaged(keys, [&](Value i, ArrayRef<Value> v) {
            Value at = keyTileSlot(i);
            store(v[0], kTile, {at});
            if (bTile)
              store(v[1], bTile, {at});
          });
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> next(accIn.begin(), accIn.end());
          for (int64_t kk = 0; kk < kt; ++kk) {
            SmallVector<Value> kr, kc, br, bc;
            loadTileColumn(kTile, bTile, /*byColumn=*/false, pitch, kk, kr, br);
            loadTileColumn(kTile, bTile, /*byColumn=*/true, pitch, kk, kc, bc);
            // Column blocks past the row block lie above the diagonal
            // (s >= 16 b > 16 a + 15 >= t): never computed.
            for (int64_t a = 0; a < l.cPer; ++a)
              for (int64_t b = 0; b <= a; ++b) {
                Value ks = kc[b];
                if (bTile)
                  ks = e.fmul(ks, expNonPositive(e.fsub(br[a], bc[b])));
                next[a * l.cPer + b] =
                    math::FmaOp::create(e.b, kr[a], ks, next[a * l.cPer + b]);
              }
            if (p.l2Norm)
              for (int64_t a = 0; a < l.cPer; ++a) {
                next[nA + a] =
                    math::FmaOp::create(e.b, kr[a], kr[a], next[nA + a]);
                next[nA + l.cPer + a] = math::FmaOp::create(
                    e.b, kc[a], kc[a], next[nA + l.cPer + a]);
              }
          }
          gpu::BarrierOp::create(e.b);
          return next;
        });

    // A = -beta_t G / norms, strictly lower; the row norms for the solve.
    SmallVector<Value> rowNorm, colNorm;
    for (int64_t a = 0; a < l.cPer; ++a) {
      rowNorm.push_back(p.l2Norm ? inverseNorm(acc[nA + a]) : Value());
      colNorm.push_back(p.l2Norm ? inverseNorm(acc[nA + l.cPer + a]) : Value());
    }
    for (int64_t a = 0; a < l.cPer; ++a) {
      Value t = row(a);
      Value scale = arith::NegFOp::create(
          e.b, memref::LoadOp::create(e.b, betaS, t).getResult());
      if (p.l2Norm)
        scale = e.fmul(scale, rowNorm[a]);
      Value bt;
      if (p.decay == DeltaDecay::PerHead)
        bt = memref::LoadOp::create(e.b, gS, t);
      for (int64_t b = 0; b < l.cPer; ++b) {
        Value s = col(b);
        Value v = e.fmul(acc[a * l.cPer + b], scale);
        if (p.l2Norm)
          v = e.fmul(v, colNorm[b]);
        if (bt)
          v = e.fmul(v, expNonPositive(
                            e.fsub(bt, memref::LoadOp::create(e.b, gS, s))));
        Value at = e.add(e.mul(t, e.index(C)), s);
        store(orZero(lt(s, t), v), aS, {at});
      }
      if (p.l2Norm)
        emitIf(e, cmp(arith::CmpIPredicate::eq, colThread, zero),
               [&] { store(rowNorm[a], normS, {t}); });
    }
    gpu::BarrierOp::create(e.b);

    int64_t columns = p.dimK + p.dimV;
    for (int64_t j0 = 0; j0 < columns; j0 += l.kThreads) {
      Value j = e.add(thread, e.index(j0));
      if (j0 + l.kThreads <= columns)
        solveColumn(j);
      else
        emitIf(e, lt(j, e.index(columns)), [&] { solveColumn(j); });
    }
  }

  /// Column `j` of [K~ | V] by blocks of 16 rows: a block's right-hand
  /// side, minus A times the earlier blocks (read back from the thread's own
  /// column of W or U), then the block's own triangle unrolled in
  /// registers, stored. (A fully unrolled chunk would keep the whole column
  /// in registers but makes shaders that drivers compile slowly.)
  void solveColumn(Value j) {
    int64_t C = l.chunk, bs = VulkanDeltaChunkLayout::kTile;
    Value isKey = lt(j, e.index(p.dimK));
    Value vCol = e.max(e.sub(j, e.index(p.dimK)), zero);
    Value last;
    if (p.decay == DeltaDecay::PerHead)
      last = memref::LoadOp::create(e.b, gS, e.sub(len, one));
    SmallVector<Type> types(bs, e.f32);
    e.forLoop(zero, e.index(C / bs), one, [&](Value bi) {
      Value r0 = e.mul(bi, e.index(bs));
      SmallVector<Value> x = e.ifElse(
          isKey, types, [&] { return keyRows(j, r0, last); },
          [&] { return valueRows(vCol, r0); });
      // Minus A[block, earlier block] x(earlier block).
      x = e.forLoop(
          zero, bi, one, x,
          [&](Value bj, ValueRange acc) -> SmallVector<Value> {
            Value s0 = e.mul(bj, e.index(bs));
            SmallVector<Value> earlier = e.ifElse(
                isKey, types, [&] { return readRows(tmp.w, s0, j); },
                [&] { return readRows(tmp.u, s0, vCol); });
            SmallVector<Value> next(acc.begin(), acc.end());
            for (int64_t r = 0; r < bs; ++r) {
              Value chunkSteps = e.index(C);
              Value rowBase = e.mul(e.add(r0, e.index(r)), chunkSteps);
              for (int64_t c = 0; c < bs; ++c)
                next[r] = math::FmaOp::create(
                    e.b,
                    memref::LoadOp::create(
                        e.b, aS, e.add(rowBase, e.add(s0, e.index(c)))),
                    earlier[c], next[r]);
            }
            return next;
          });
      // The block's own triangle.
      for (int64_t r = 1; r < bs; ++r) {
        Value chunkSteps = e.index(C);
        Value rowBase = e.mul(e.add(r0, e.index(r)), chunkSteps);
        for (int64_t c = 0; c < r; ++c)
          x[r] = math::FmaOp::create(
              e.b,
              memref::LoadOp::create(e.b, aS,
                                     e.add(rowBase, e.add(r0, e.index(c)))),
              x[c], x[r]);
      }
      e.ifElse(
          isKey, {},
          [&] {
            for (int64_t r = 0; r < bs; ++r) {
              Value t = e.add(r0, e.index(r));
              store(x[r], tmp.w, {slot, head, t, j});
              if (tmp.w16)
                store(e.fromF32(x[r], e.b.getF16Type()), tmp.w16,
                      {slot, head, t, j});
            }
            return SmallVector<Value>();
          },
          [&] {
            for (int64_t r = 0; r < bs; ++r)
              store(x[r], tmp.u, {slot, head, e.add(r0, e.index(r)), vCol});
            return SmallVector<Value>();
          });
    });
  }

  /// Rows [s0, s0 + 16) of column `c` of `temp` (W or U).
  SmallVector<Value> readRows(Value temp, Value s0, Value c) {
    SmallVector<Value> rows;
    for (int64_t r = 0; r < VulkanDeltaChunkLayout::kTile; ++r)
      rows.push_back(memref::LoadOp::create(
          e.b, temp, ValueRange{slot, head, e.add(s0, e.index(r)), c}));
    return rows;
  }

  /// beta_t k_t[j] / |k_t| exp(B_t[j]) for chunk steps [r0, r0 + 16) (zero
  /// past the chunk); writes Kd[t, j] = k_t[j] / |k_t| exp(B_last[j] -
  /// B_t[j]). `last` is B_last per head.
  SmallVector<Value> keyRows(Value j, Value r0, Value last) {
    int64_t bs = VulkanDeltaChunkLayout::kTile;
    SmallVector<Value> raw, rhs;
    for (int64_t r = 0; r < bs; ++r)
      raw.push_back(load(
          buf.key, {batchIdx, chunkRow(e.add(r0, e.index(r))), kvHead, j}));
    if (p.decay == DeltaDecay::PerKey)
      last = cumGate(e.sub(len, one), j);
    for (int64_t r = 0; r < bs; ++r) {
      Value t = e.add(r0, e.index(r));
      Value valid = lt(t, len);
      Value k = raw[r];
      if (p.l2Norm)
        k = e.fmul(k, memref::LoadOp::create(e.b, normS, t));
      Value kd = k;
      Value forward = k;
      if (p.decayed()) {
        Value bt = p.decay == DeltaDecay::PerHead
                       ? memref::LoadOp::create(e.b, gS, t).getResult()
                       : cumGate(t, j);
        forward = e.fmul(k, e.exp(bt));
        kd = e.fmul(k, e.exp(e.fsub(last, bt)));
      }
      kd = orZero(valid, kd);
      Type kdType = cast<MemRefType>(tmp.kd.getType()).getElementType();
      if (!kdType.isF32())
        kd = e.fromF32(kd, kdType);
      store(kd, tmp.kd, {slot, head, t, j});
      Value gated = orZero(valid, forward);
      rhs.push_back(e.fmul(memref::LoadOp::create(e.b, betaS, t), gated));
    }
    return rhs;
  }

  /// beta_t v_t[v] for chunk steps [r0, r0 + 16) (zero past the chunk).
  SmallVector<Value> valueRows(Value v, Value r0) {
    int64_t bs = VulkanDeltaChunkLayout::kTile;
    Value vc = clampV(v);
    SmallVector<Value> raw, rhs;
    for (int64_t r = 0; r < bs; ++r)
      raw.push_back(load(
          buf.value, {batchIdx, chunkRow(e.add(r0, e.index(r))), kvHead, vc}));
    for (int64_t r = 0; r < bs; ++r) {
      Value t = e.add(r0, e.index(r));
      Value gated = orZero(lt(t, len), raw[r]);
      rhs.push_back(e.fmul(memref::LoadOp::create(e.b, betaS, t), gated));
    }
    return rhs;
  }

  Value aS, betaS, normS, gS;
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaChunkPrepare(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  PrepareKernel(builder, loc, p, l, buf, tmp).build();
}
