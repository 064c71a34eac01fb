//===- Kernel.cpp - gated linear recurrences (chunked) on CPUs ------------===//
//
// `ejk.gla`, `ejk.lightning_attention` and `ejk.recurrent` (Problem.h).
// One dispatch; workgroup = (head_dim_v block, head, sequence). The
// workgroup runs its sequence's chunks of C steps in order (last to first
// with reverse), with the state tile S ([head_dim_k, block_v], f32) in
// scratch. Per chunk, with B_t the cumulative key log gate (g + gk +
// gamma) of step t from the chunk's start (inclusive; B_t <= 0 and
// decreasing for gates <= 0), and D_t that of the value gate gv (0
// without it):
//
//   A[t, s]  = sum_k scale q_t[k] k_s[k] exp(B_t[k] - B_s[k])   (s <= t)
//   O[t, :]  = exp(D_t) (scale q_t * exp(B_t)) S
//              +  sum_{s<=t} A[t, s] v_s exp(D_t - D_s)
//   S        = diag(exp(B_last)) S diag(exp(D_last))
//              +  sum_s (k_s * exp(B_last - B_s))^T (v_s exp(D_last - D_s))
//
// Every exponent is <= 0 for gates <= 0 (B_t - B_s with s <= t, B_t,
// B_last - B_s), so no exp overflows however strong the decay or long the
// chunk; the masked pairs s > t may overflow, and the mask discards them.
// The scores factor the gate ratio as (q_t exp(B_t)) . (k_s exp(-B_s)), one
// plain matmul, when the chunk's decay is bounded (-B_last <= 60 in every
// key dim, so exp(-B_s) <= e^60): realistic gates (fla's logsigmoid / 16,
// about -0.05 a step) always are. A chunk of stronger decay, where that
// factoring would overflow, computes the exact ratio exp(B_t - B_s) per key
// dim and pair instead (an exp each; no exponent above 0). The value gate
// is the same on the other side: A V factors as exp(D_t) (A (v exp(-D)))
// while the block's -D_last <= 60, and takes exp(min(D_t - D_s, 0)) per
// pair and column past that (the min keeps the masked pairs, whose A is 0,
// from 0 * inf).
//
// The three matmuls (scores over k, A V and q S over steps and k, the state
// update over steps) are register blocks of 4 rows x up to 2-4 vectors
// (SsdKernel.cpp's scheme); the scores run vectorized over s from the
// transposed keys and gates.
//
//===----------------------------------------------------------------------===//

#include "Linear/Cpu/Kernel.h"
#include "Common/Arithmetic.h"
#include "Linear/Cpu/ChunkedScan.h"
#include "Linear/Cpu/Gla.h"
#include "Linear/HeadDecay.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

std::optional<int64_t> mlir::ejk::glaScratchBytes(const GlaProblem &p,
                                                  int64_t chunk, int64_t blockV,
                                                  int64_t lanes) {
  int64_t kPad = roundUp(std::max<int64_t>(1, p.dimK), lanes);
  int64_t cPad = roundUp(std::max<int64_t>(1, chunk), lanes);
  // With gv: its cumulative gates, two gated copies of the values and the
  // block's last decay.
  int64_t valueArrays = p.hasGv ? 3 : 1;
  std::optional<int64_t> elements = checkedSum(
      {checkedProduct({chunk + 1, kPad}), checkedProduct({4, chunk, kPad}),
       checkedProduct({2, kPad, cPad}),
       checkedProduct({valueArrays, chunk, blockV}),
       p.hasGv ? checkedProduct({chunk + 1, blockV}) : 0,
       p.hasGv ? std::optional<int64_t>(blockV) : 0,
       checkedProduct({chunk, cPad}), checkedProduct({kPad, blockV}), kPad});
  if (!elements)
    return std::nullopt;
  return checkedProduct({4, *elements});
}

namespace {

/// The largest chunk decay (-min_k B_last[k]) whose gate ratios are
/// factored: exp(60) ~ 1e26 keeps the gated keys and the masked scores
/// (discarded) finite for |q|, |k| < 1e5, and exp(-60) keeps the gated
/// queries normal.
constexpr float kFactorBound = 60.0f;

class GlaBodyBuilder : ChunkedScanBuilder<CpuGlaPlan, GlaBuffers> {
public:
  GlaBodyBuilder(OpBuilder &builder, Location loc, const CpuGlaPlan &plan,
                 const GlaBuffers &buffers)
      : ChunkedScanBuilder(builder, loc, plan, buffers) {}

  void build() {
    walkSequences([&] { scan(); });
  }

private:
  /// The head's constant log decay (GammaForm), a scalar.
  Value loadGamma() { return emitHeadDecay(e, p, buf.gGamma, head, seqId); }

  void scan() {
    qR = e.scratch({p.chunk, kPad});
    kR = e.scratch({p.chunk, kPad});
    kT = e.scratch({kPad, cPad});
    vS = e.scratch({p.chunk, p.blockV});
    aS = e.scratch({p.chunk, cPad});
    if (p.gated()) {
      bS = e.scratch({p.chunk + 1, kPad});
      bT = e.scratch({kPad, cPad});
      qG = e.scratch({p.chunk, kPad});
      kG = e.scratch({p.chunk, kPad});
      decayLast = e.scratch({kPad});
      if (p.hasGamma())
        gamma = e.broadcast(loadGamma());
    } else {
      qG = qR;
      kG = kR;
    }
    if (p.hasGv) {
      dS = e.scratch({p.chunk + 1, p.blockV});
      vU = e.scratch({p.chunk, p.blockV});
      vG = e.scratch({p.chunk, p.blockV});
      decayLastV = e.scratch({p.blockV});
    }
    // Columns of kT / bT past the chunk are read by the last score vector;
    // they stay zero.
    for (Value t : {kT, bT})
      if (t)
        zeroTransposed(t);
    forEachChunk([&](Value c0, Value len) {
      loadChunk(c0, len);
      if (p.gated()) {
        gateFactors(len);
        // A chunk whose decay stays within exp(-kFactorBound) in every key
        // dim factors its gate ratios: A = (q exp(B)) (k exp(-B))^T, one
        // matmul; stronger decay takes the exact ratio per element.
        Value bound = e.constF32(-kFactorBound);
        Value factor = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGE,
                                             minOverKeys(bS, len), bound);
        ifThen(e, factor, [&] {
          unGateKeys();
          scores(qG, /*exact=*/false);
        });
        ifThen(e, notOf(e, factor), [&] { scores(qR, /*exact=*/true); });
      } else {
        scores(qR, /*exact=*/false);
      }
      if (p.hasGv) {
        valueGateFactors(len);
        // The same choice for the value gate, over the block's columns.
        Value bound = e.constF32(-kFactorBound);
        Value factor = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGE,
                                             minLastValueGate(len), bound);
        ifThen(e, factor, [&] { outputs(c0, len, /*exactValues=*/false); });
        ifThen(e, notOf(e, factor),
               [&] { outputs(c0, len, /*exactValues=*/true); });
      } else {
        outputs(c0, len, /*exactValues=*/false);
      }
      updateState(len);
    });
  }

  /// Rows of q (scaled), k and v (zero past the sequence), the cumulative
  /// gates and the transposed keys and gates.
  void loadChunk(Value c0, Value len) {
    Value lastIndex = e.sub(seqLen, one);
    Value zeroVec = e.splatF32(0.0f);
    Value scale = e.splatF32(p.scale);
    if (p.gated())
      for (int64_t kv = 0; kv < kPad; kv += p.lanes)
        vector::StoreOp::create(e.b, zeroVec, bS,
                                ValueRange{zero, e.index(kv)});
    if (p.hasGv)
      for (int64_t vv = 0; vv < vVectors; ++vv)
        vector::StoreOp::create(e.b, zeroVec, dS, ValueRange{zero, vCol(vv)});
    e.forLoop(zero, e.index(p.chunk), one, [&](Value t) {
      Value valid = cmp(e, arith::CmpIPredicate::slt, t, len);
      Value row = rowOf(e.min(e.add(c0, t), lastIndex));
      Value next = e.add(t, one);
      for (int64_t kv = 0; kv < kPad; kv += p.lanes) {
        Value col = e.index(kv);
        Value q =
            e.readVector(buf.query, {batchIdx, row, head, col}, kInBounds);
        vector::StoreOp::create(e.b, e.fmul(q, scale), qR, ValueRange{t, col});
        Value k =
            e.readVector(buf.key, {batchIdx, row, kvHead, col}, kInBounds);
        vector::StoreOp::create(e.b, e.select(valid, k, zeroVec), kR,
                                ValueRange{t, col});
        if (!p.gated())
          continue;
        // a = g + gk + gamma, the terms present (gated(): at least one).
        SmallVector<Value, 3> terms;
        for (Value gate : {buf.g, buf.gk})
          if (gate)
            terms.push_back(
                e.readVector(gate, {batchIdx, row, head, col}, kInBounds));
        if (gamma)
          terms.push_back(gamma);
        Value a = terms.front();
        for (Value x : ArrayRef<Value>(terms).drop_front())
          a = e.fadd(a, x);
        Value prev =
            vector::LoadOp::create(e.b, e.vf32, bS, ValueRange{t, col});
        vector::StoreOp::create(e.b, e.fadd(prev, e.select(valid, a, zeroVec)),
                                bS, ValueRange{next, col});
      }
      for (int64_t vv = 0; vv < vVectors; ++vv) {
        Value v = e.readVector(
            buf.value, {batchIdx, row, kvHead, e.add(v0, vCol(vv))}, vInBounds);
        Value column = vCol(vv);
        vector::StoreOp::create(e.b, e.select(valid, v, zeroVec), vS,
                                ValueRange{t, column});
        if (!p.hasGv)
          continue;
        Value gv = e.readVector(
            buf.gv, {batchIdx, row, head, e.add(v0, vCol(vv))}, vInBounds);
        Value prev =
            vector::LoadOp::create(e.b, e.vf32, dS, ValueRange{t, vCol(vv)});
        Value nextColumn = vCol(vv);
        vector::StoreOp::create(e.b, e.fadd(prev, e.select(valid, gv, zeroVec)),
                                dS, ValueRange{next, nextColumn});
      }
      // Transposed keys and gates: the scores stream vectors of steps.
      e.forLoop(zero, e.index(p.dimK), one, [&](Value k) {
        memref::StoreOp::create(
            e.b, memref::LoadOp::create(e.b, kR, ValueRange{t, k}), kT,
            ValueRange{k, t});
        if (p.gated())
          memref::StoreOp::create(
              e.b, memref::LoadOp::create(e.b, bS, ValueRange{next, k}), bT,
              ValueRange{k, t});
      });
    });
  }

  /// q * exp(B_t), k * exp(B_last - B_s) and exp(B_last): every exponent
  /// <= 0 for gates <= 0.
  void gateFactors(Value len) {
    for (int64_t kv = 0; kv < kPad; kv += p.lanes) {
      Value col = e.index(kv);
      Value last =
          vector::LoadOp::create(e.b, e.vf32, bS, ValueRange{len, col});
      vector::StoreOp::create(e.b, e.exp(last), decayLast, ValueRange{col});
    }
    e.forLoop(zero, e.index(p.chunk), one, [&](Value t) {
      Value next = e.add(t, one);
      for (int64_t kv = 0; kv < kPad; kv += p.lanes) {
        Value col = e.index(kv);
        Value bt =
            vector::LoadOp::create(e.b, e.vf32, bS, ValueRange{next, col});
        Value last =
            vector::LoadOp::create(e.b, e.vf32, bS, ValueRange{len, col});
        Value q = vector::LoadOp::create(e.b, e.vf32, qR, ValueRange{t, col});
        Value k = vector::LoadOp::create(e.b, e.vf32, kR, ValueRange{t, col});
        vector::StoreOp::create(e.b, e.fmul(q, e.exp(bt)), qG,
                                ValueRange{t, col});
        vector::StoreOp::create(e.b, e.fmul(k, e.exp(e.fsub(last, bt))), kG,
                                ValueRange{t, col});
      }
    });
  }

  /// kT *= exp(-B) (transposed): the keys of the factored scores. The
  /// exponent is at most kFactorBound for the chunk's steps.
  void unGateKeys() {
    e.forLoop(zero, e.index(p.dimK), one, [&](Value k) {
      for (int64_t s = 0; s < cPad; s += p.lanes) {
        Value col = e.index(s);
        Value kv = vector::LoadOp::create(e.b, e.vf32, kT, ValueRange{k, col});
        Value bv = vector::LoadOp::create(e.b, e.vf32, bT, ValueRange{k, col});
        vector::StoreOp::create(
            e.b, e.fmul(kv, e.exp(arith::NegFOp::create(e.b, bv))), kT,
            ValueRange{k, col});
      }
    });
  }

  /// A[t, s] for s <= t (0 above the diagonal), by blocks of 4 rows, one
  /// vector of steps s at a time up to the block's diagonal: q (`qBuf`)
  /// times kT, with the exact gate ratio exp(B_t - B_s) per element when
  /// `exact`.
  void scores(Value qBuf, bool exact) {
    Value lanes = e.index(p.lanes);
    forRowBlocks(e, p.chunk, cpuBlockRows(), [&](Value r0, int64_t rows) {
      SmallVector<Value> tRows = blockRows(r0, rows);
      Value sVectors = e.div(e.add(r0, e.index(rows + p.lanes - 1)), lanes);
      e.forLoop(zero, sVectors, one, [&](Value sv) {
        Value s0 = e.mul(sv, lanes);
        SmallVector<Value> inits(rows, e.splatF32(0.0f));
        SmallVector<Value> acc = e.forLoop(
            zero, e.index(p.dimK), one, inits, [&](Value k, ValueRange acc) {
              Value ks =
                  vector::LoadOp::create(e.b, e.vf32, kT, ValueRange{k, s0});
              Value bs;
              if (exact)
                bs = vector::LoadOp::create(e.b, e.vf32, bT, ValueRange{k, s0});
              SmallVector<Value> next;
              for (int64_t r = 0; r < rows; ++r) {
                Value q = e.broadcast(
                    memref::LoadOp::create(e.b, qBuf, ValueRange{tRows[r], k})
                        .getResult());
                Value kk = ks;
                if (exact) {
                  Value bt = e.broadcast(
                      memref::LoadOp::create(
                          e.b, bS, ValueRange{e.add(tRows[r], one), k})
                          .getResult());
                  kk = e.fmul(ks, e.exp(e.fsub(bt, bs)));
                }
                next.push_back(e.fma(q, kk, acc[r]));
              }
              return next;
            });
        for (int64_t r = 0; r < rows; ++r) {
          Value rowStep = e.broadcast(e.toI32(tRows[r]));
          Value causal =
              cmp(e, arith::CmpIPredicate::sle, e.laneIndices(s0), rowStep);
          vector::StoreOp::create(e.b,
                                  e.select(causal, acc[r], e.splatF32(0.0f)),
                                  aS, ValueRange{tRows[r], s0});
        }
      });
    });
  }

  /// With gv: exp(D_last), the values gated to the chunk's end (vG, for
  /// the state update; exponents <= 0) and, for the factored outputs,
  /// v exp(-D_s) (vU; at most e^kFactorBound when that path runs).
  void valueGateFactors(Value len) {
    for (int64_t vv = 0; vv < vVectors; ++vv) {
      Value last =
          vector::LoadOp::create(e.b, e.vf32, dS, ValueRange{len, vCol(vv)});
      Value column = vCol(vv);
      vector::StoreOp::create(e.b, e.exp(last), decayLastV, ValueRange{column});
    }
    e.forLoop(zero, e.index(p.chunk), one, [&](Value t) {
      Value next = e.add(t, one);
      for (int64_t vv = 0; vv < vVectors; ++vv) {
        Value dt =
            vector::LoadOp::create(e.b, e.vf32, dS, ValueRange{next, vCol(vv)});
        Value last =
            vector::LoadOp::create(e.b, e.vf32, dS, ValueRange{len, vCol(vv)});
        Value v =
            vector::LoadOp::create(e.b, e.vf32, vS, ValueRange{t, vCol(vv)});
        Value gatedColumn = vCol(vv);
        vector::StoreOp::create(e.b, e.fmul(v, e.exp(e.fsub(last, dt))), vG,
                                ValueRange{t, gatedColumn});
        Value bound = e.splatF32(kFactorBound);
        Value bounded = arith::MinNumFOp::create(
            e.b, arith::NegFOp::create(e.b, dt), bound);
        Value unGatedColumn = vCol(vv);
        vector::StoreOp::create(e.b, e.fmul(v, e.exp(bounded)), vU,
                                ValueRange{t, unGatedColumn});
      }
    });
  }

  /// min over the block's columns of D_last: the chunk's strongest value
  /// decay, in log space. Columns past head_dim_v read gv as 0 (masked
  /// reads), so they never pull the minimum down.
  Value minLastValueGate(Value len) {
    Value acc = vector::LoadOp::create(e.b, e.vf32, dS, ValueRange{len, zero});
    for (int64_t vv = 1; vv < vVectors; ++vv)
      acc = arith::MinNumFOp::create(
          e.b, acc,
          vector::LoadOp::create(e.b, e.vf32, dS, ValueRange{len, vCol(vv)}));
    return vector::ReductionOp::create(e.b, vector::CombiningKind::MINNUMF,
                                       acc);
  }

  /// exp(D_t) for the rows and vectors of a block (gv only).
  SmallVector<Value> valueDecays(ArrayRef<Value> tRows, int64_t vv0,
                                 int64_t cols) {
    SmallVector<Value> decays;
    for (Value t : tRows)
      for (int64_t c = 0; c < cols; ++c)
        decays.push_back(e.exp(vector::LoadOp::create(
            e.b, e.vf32, dS, ValueRange{e.add(t, one), vCol(vv0 + c)})));
    return decays;
  }

  /// O = qG S + A V by blocks of rows x vectors, stored for t < len. With
  /// gv: exp(D_t) (qG S + A vU), or with `exactValues`
  /// exp(D_t) qG S + sum_s A[t, s] v_s exp(min(D_t - D_s, 0)).
  void outputs(Value c0, Value len, bool exactValues) {
    Value lastIndex = e.sub(seqLen, one);
    forRowBlocks(e, p.chunk, cpuBlockRows(), [&](Value r0, int64_t rows) {
      forVectorBlocks([&](int64_t vv0, int64_t cols) {
        SmallVector<Value> tRows = blockRows(r0, rows);
        SmallVector<Value> acc(rows * cols, e.splatF32(0.0f));
        acc = accumulateBlock(
            e, zero, e.index(p.dimK), acc, rows, cols,
            [&](Value k, int64_t r) -> Value {
              return memref::LoadOp::create(e.b, qG, ValueRange{tRows[r], k});
            },
            [&](Value k, int64_t c) -> Value {
              return vector::LoadOp::create(e.b, e.vf32, state,
                                            ValueRange{k, vCol(vv0 + c)});
            });
        Value steps = e.add(r0, e.index(rows));
        auto scoreOf = [&](Value s, int64_t r) -> Value {
          return memref::LoadOp::create(e.b, aS, ValueRange{tRows[r], s});
        };
        if (!exactValues)
          acc = accumulateBlock(e, zero, steps, acc, rows, cols, scoreOf,
                                [&](Value s, int64_t c) -> Value {
                                  return vector::LoadOp::create(
                                      e.b, e.vf32, p.hasGv ? vU : vS,
                                      ValueRange{s, vCol(vv0 + c)});
                                });
        if (p.hasGv) {
          SmallVector<Value> decays = valueDecays(tRows, vv0, cols);
          for (size_t i = 0; i < acc.size(); ++i)
            acc[i] = e.fmul(acc[i], decays[i]);
        }
        if (exactValues)
          acc = exactValueSum(steps, acc, tRows, vv0, cols, scoreOf);
        storeOutputs(c0, len, lastIndex, tRows, vv0, cols, acc);
      });
    });
  }

  /// acc[r, c] += sum_{s < steps} A[t_r, s] v_s exp(min(D_t - D_s, 0)):
  /// the value gate's exact ratios, an exp per pair and vector.
  SmallVector<Value>
  exactValueSum(Value steps, ValueRange inits, ArrayRef<Value> tRows,
                int64_t vv0, int64_t cols,
                function_ref<Value(Value, int64_t)> scoreOf) {
    int64_t rows = tRows.size();
    SmallVector<Value> dt;
    for (Value t : tRows)
      for (int64_t c = 0; c < cols; ++c)
        dt.push_back(vector::LoadOp::create(
            e.b, e.vf32, dS, ValueRange{e.add(t, one), vCol(vv0 + c)}));
    return e.forLoop(zero, steps, one, inits, [&](Value s, ValueRange acc) {
      SmallVector<Value> vs, ds;
      for (int64_t c = 0; c < cols; ++c) {
        vs.push_back(vector::LoadOp::create(e.b, e.vf32, vS,
                                            ValueRange{s, vCol(vv0 + c)}));
        ds.push_back(vector::LoadOp::create(
            e.b, e.vf32, dS, ValueRange{e.add(s, one), vCol(vv0 + c)}));
      }
      SmallVector<Value> next;
      for (int64_t r = 0; r < rows; ++r) {
        Value a = e.broadcast(scoreOf(s, r));
        for (int64_t c = 0; c < cols; ++c) {
          Value exponentCap = e.splatF32(0.0f);
          Value ratio = e.exp(arith::MinNumFOp::create(
              e.b, e.fsub(dt[r * cols + c], ds[c]), exponentCap));
          next.push_back(e.fma(a, e.fmul(vs[c], ratio), acc[r * cols + c]));
        }
      }
      return next;
    });
  }

  /// S = diag(exp(B_last)) S diag(exp(D_last)) + kG^T vG over the chunk's
  /// valid steps (vG = V without gv).
  void updateState(Value len) {
    forRowBlocks(e, p.dimK, cpuBlockRows(), [&](Value r0, int64_t rows) {
      forVectorBlocks([&](int64_t vv0, int64_t cols) {
        SmallVector<Value> kRows, acc;
        for (int64_t r = 0; r < rows; ++r) {
          kRows.push_back(e.add(r0, e.index(r)));
          Value decay;
          if (p.gated())
            decay = e.broadcast(
                memref::LoadOp::create(e.b, decayLast, ValueRange{kRows[r]})
                    .getResult());
          for (int64_t c = 0; c < cols; ++c) {
            Value s = vector::LoadOp::create(
                e.b, e.vf32, state, ValueRange{kRows[r], vCol(vv0 + c)});
            if (decay)
              s = e.fmul(decay, s);
            if (p.hasGv)
              s = e.fmul(s, vector::LoadOp::create(e.b, e.vf32, decayLastV,
                                                   ValueRange{vCol(vv0 + c)}));
            acc.push_back(s);
          }
        }
        acc = accumulateBlock(
            e, zero, len, acc, rows, cols,
            [&](Value s, int64_t r) -> Value {
              return memref::LoadOp::create(e.b, kG, ValueRange{s, kRows[r]});
            },
            [&](Value s, int64_t c) -> Value {
              return vector::LoadOp::create(e.b, e.vf32, p.hasGv ? vG : vS,
                                            ValueRange{s, vCol(vv0 + c)});
            });
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            vector::StoreOp::create(e.b, acc[r * cols + c], state,
                                    ValueRange{kRows[r], vCol(vv0 + c)});
      });
    });
  }

  Value gamma;
  Value qR, kR, kT, vS, aS, bS, bT, qG, kG, decayLast;
  /// With gv: cumulative value gates, v exp(-D), v exp(D_last - D),
  /// exp(D_last).
  Value dS, vU, vG, decayLastV;
};

} // namespace

void mlir::ejk::buildCpuGlaBody(OpBuilder &builder, Location loc,
                                const CpuGlaPlan &plan,
                                const GlaBuffers &buffers) {
  GlaBodyBuilder(builder, loc, plan, buffers).build();
}

LogicalResult CpuGla::tile(Operation *op, ConfigAttr attr,
                           DispatchRewriter &rewriter) {
  GlaConfig config = *GlaConfig::read(attr, llvm::nulls());
  CpuGlaPlan plan;
  static_cast<GlaProblem &>(plan) = readGlaProblem(op);
  plan.chunk = config.chunkSize;
  plan.blockV = config.blockV;
  plan.lanes = rewriter.target().f32Lanes();

  GlaBuffers buf = findGlaBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  // replaceBody erases the op: read its location first.
  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildCpuGlaBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setWork(dispatch, glaFlops(plan, plan.chunk),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}
