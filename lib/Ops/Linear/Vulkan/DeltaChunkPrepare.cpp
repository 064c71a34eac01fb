//===- DeltaChunkPrepare.cpp - the delta rule's per-chunk UT transform ----===//
//
// Workgroup = (chunk slot, head), 256 threads (DeltaChunk.h):
//
//   scores   thread (ti, sj) of a 16 x 16 grid: A[t, s] for t = ti + 16 a,
//            s = sj + 16 b over key tiles of 16 (raw keys; the key norms
//            from the same loads), then A = -beta_t G[t, s] / (|k_t| |k_s|)
//            strictly below the diagonal, into shared memory
//   solve    thread j: column j of [K~ | V] (K~ = k / |k| exp(B), rows
//            times beta) in registers, forward substitution
//              x_t = r_t + sum_{s < t} A[t, s] x_s
//            (unrolled: the chunk is at most 64 steps), x into W (key
//            columns) or U (value columns); the key columns also write
//            Kd = k / |k| exp(B_last - B)
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
    Value kTile = allocWorkgroup(e, C * kt);
    Value bTile = perKey ? allocWorkgroup(e, C * kt) : Value();
    betaS = allocWorkgroup(e, C);
    normS = allocWorkgroup(e, C);
    gS = allocWorkgroup(e, C);

    // The rates and the per-head B of the chunk's steps (zero past it);
    // the first tile's barrier publishes them.
    forEachShared(e, l.kThreads, thread, C, [&](Value t) {
      Value valid = lt(t, len);
      store(orZero(valid, load(buf.beta, {batchIdx, chunkRow(t), head})),
            betaS, {t});
      if (p.decay == DeltaDecay::PerHead)
        store(cumGate(t, Value()), gS, {t});
    });

    int64_t nA = l.cPer * l.cPer;
    SmallVector<Value> inits(nA + 2 * l.cPer, zeroF());
    SmallVector<Value> acc = e.forLoop(
        zero, e.index(ceilDiv(p.dimK, kt)), one, inits,
        [&](Value kb, ValueRange accIn) -> SmallVector<Value> {
          Value k0 = e.mul(kb, e.index(kt));
          forEachShared(e, l.kThreads, thread, C * kt, [&](Value i) {
            Value t = udiv(i, kt);
            Value k = e.add(k0, urem(i, kt));
            Value valid = andI(lt(t, len), lt(k, e.index(p.dimK)));
            store(orZero(valid,
                         load(buf.key, {batchIdx, chunkRow(t), kvHead,
                                        clampK(k)})),
                  kTile, {i});
            if (bTile)
              store(cumGate(t, clampK(k)), bTile, {i});
          });
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> next(accIn.begin(), accIn.end());
          for (int64_t kk = 0; kk < kt; ++kk) {
            SmallVector<Value> kr, kc, br, bc;
            for (int64_t a = 0; a < l.cPer; ++a) {
              Value idx = e.add(e.mul(row(a), e.index(kt)), e.index(kk));
              kr.push_back(memref::LoadOp::create(e.b, kTile, idx));
              if (bTile)
                br.push_back(memref::LoadOp::create(e.b, bTile, idx));
            }
            for (int64_t b = 0; b < l.cPer; ++b) {
              Value idx = e.add(e.mul(col(b), e.index(kt)), e.index(kk));
              kc.push_back(memref::LoadOp::create(e.b, kTile, idx));
              if (bTile)
                bc.push_back(memref::LoadOp::create(e.b, bTile, idx));
            }
            for (int64_t a = 0; a < l.cPer; ++a)
              for (int64_t b = 0; b < l.cPer; ++b) {
                Value ks = kc[b];
                if (bTile)
                  ks = e.fmul(ks, expNonPositive(e.fsub(br[a], bc[b])));
                next[a * l.cPer + b] =
                    math::FmaOp::create(e.b, kr[a], ks, next[a * l.cPer + b]);
              }
            if (p.l2Norm)
              for (int64_t a = 0; a < l.cPer; ++a) {
                next[nA + a] = math::FmaOp::create(e.b, kr[a], kr[a],
                                                   next[nA + a]);
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
      colNorm.push_back(p.l2Norm ? inverseNorm(acc[nA + l.cPer + a])
                                 : Value());
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
          v = e.fmul(v, expNonPositive(e.fsub(
                            bt, memref::LoadOp::create(e.b, gS, s))));
        store(orZero(lt(s, t), v), aS, {e.add(e.mul(t, e.index(C)), s)});
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

  Value row(int64_t a) { return e.add(rowThread, e.index(a * G)); }
  Value col(int64_t b) { return e.add(colThread, e.index(b * G)); }

  /// Column `j` of [K~ | V]: its right-hand side, the substitution, the
  /// stores.
  void solveColumn(Value j) {
    int64_t C = l.chunk;
    Value isKey = lt(j, e.index(p.dimK));
    SmallVector<Type> types(C, e.f32);
    SmallVector<Value> rhs = e.ifElse(
        isKey, types, [&] { return keyColumn(j); },
        [&] { return valueColumn(e.sub(j, e.index(p.dimK))); });
    SmallVector<Value> x;
    for (int64_t t = 0; t < C; ++t) {
      Value acc = rhs[t];
      for (int64_t s = 0; s < t; ++s)
        acc = math::FmaOp::create(
            e.b, memref::LoadOp::create(e.b, aS, e.index(t * C + s)), x[s],
            acc);
      x.push_back(acc);
    }
    e.ifElse(
        isKey, {},
        [&] {
          for (int64_t t = 0; t < C; ++t)
            store(x[t], tmp.w, {slot, head, e.index(t), j});
          return SmallVector<Value>();
        },
        [&] {
          Value v = e.sub(j, e.index(p.dimK));
          for (int64_t t = 0; t < C; ++t)
            store(x[t], tmp.u, {slot, head, e.index(t), v});
          return SmallVector<Value>();
        });
  }

  /// beta_t k_t[j] / |k_t| exp(B_t[j]) per chunk step (zero past the
  /// chunk); writes Kd[t, j] = k_t[j] / |k_t| exp(B_last[j] - B_t[j]).
  SmallVector<Value> keyColumn(Value j) {
    int64_t C = l.chunk;
    SmallVector<Value> raw, rhs;
    for (int64_t t = 0; t < C; ++t)
      raw.push_back(load(buf.key, {batchIdx, chunkRow(e.index(t)), kvHead, j}));
    Value last;
    if (p.decay == DeltaDecay::PerHead)
      last = memref::LoadOp::create(e.b, gS, e.sub(len, one));
    else if (p.decay == DeltaDecay::PerKey)
      last = cumGate(e.sub(len, one), j);
    for (int64_t t = 0; t < C; ++t) {
      Value ti = e.index(t);
      Value valid = lt(ti, len);
      Value k = raw[t];
      if (p.l2Norm)
        k = e.fmul(k, memref::LoadOp::create(e.b, normS, ti));
      Value kd = k;
      Value forward = k;
      if (p.decayed()) {
        Value bt = p.decay == DeltaDecay::PerHead
                       ? memref::LoadOp::create(e.b, gS, ti).getResult()
                       : cumGate(ti, j);
        forward = e.fmul(k, e.exp(bt));
        kd = e.fmul(k, e.exp(e.fsub(last, bt)));
      }
      store(orZero(valid, kd), tmp.kd, {slot, head, ti, j});
      rhs.push_back(e.fmul(memref::LoadOp::create(e.b, betaS, ti),
                           orZero(valid, forward)));
    }
    return rhs;
  }

  /// beta_t v_t[v] per chunk step (zero past the chunk).
  SmallVector<Value> valueColumn(Value v) {
    int64_t C = l.chunk;
    SmallVector<Value> raw, rhs;
    for (int64_t t = 0; t < C; ++t)
      raw.push_back(
          load(buf.value, {batchIdx, chunkRow(e.index(t)), kvHead, v}));
    for (int64_t t = 0; t < C; ++t) {
      Value ti = e.index(t);
      rhs.push_back(e.fmul(memref::LoadOp::create(e.b, betaS, ti),
                           orZero(lt(ti, len), raw[t])));
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
