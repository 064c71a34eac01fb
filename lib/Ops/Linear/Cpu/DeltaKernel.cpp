//===- DeltaKernel.cpp - the (gated) delta rule (chunked) on CPUs ---------===//
//
// One dispatch; workgroup = (head_dim_v block, head, sequence). The
// workgroup runs its sequence's chunks of C steps in order (last to first
// with reverse), with the state tile S ([head_dim_k, block_v], f32) in
// scratch. Within a chunk, with q and k l2-normalized (q also scaled), b_t
// the rate and B_t the cumulative log decay of step t from the chunk's
// start (inclusive; B_t <= 0 and decreasing for decays <= 0), unrolling the
// recurrence from the chunk's starting state S gives the new values
// u_t = b_t (v_t - k_t (diag(exp(a_t)) S_{t-1})) as the solution of a unit
// lower-triangular system (the UT transform of the WY representation):
//
//   G[t, s] = sum_k k_t[k] k_s[k] exp(B_t[k] - B_s[k])          (s < t)
//   (I + diag(b) G) U = diag(b) (V - K~ S),  K~ = K * exp(B)
//   P[t, s] = sum_k q_t[k] k_s[k] exp(B_t[k] - B_s[k])          (s <= t)
//   O       = (Q * exp(B)) S + P U
//   S       = diag(exp(B_last)) S + (K * exp(B_last - B))^T U
//
// U = T diag(b) (V - K~ S) with T = (I + diag(b) G)^-1, i.e. the WY form's
// U - W S; the kernel never forms T, W or U separately: it solves for the
// new values by forward substitution, which costs C^2/2 x block_v instead of
// T's C^3/6 plus W's and U's products (the state it needs is already
// there: the CPU walks the chunks in order anyway).
//
// Every exponent is <= 0 for decays <= 0 (B_t - B_s with s <= t, B_t,
// B_last - B_s), so no exp overflows however strong the decay or long the
// chunk. A per-head decay (Gated DeltaNet) is one scalar per step: the
// scores are plain dot products times exp(B_t - B_s) per pair. A per-key
// decay (KDA) takes gla's scheme (Kernel.cpp): the ratio factored as
// (x_t exp(B_t)) . (k_s exp(-B_s)), one plain matmul, while the chunk's
// decay stays within e^-60 in every key dim, the exact ratio per element
// beyond (masked pairs s > t may overflow there; the mask discards them).
//
// The products over key dims and steps (K~ S, the solve's off-diagonal
// blocks, O, the state update) are register blocks of 4 rows x up to 2-4
// vectors (CpuBlocking.h); the two score matrices share one pass over the
// transposed keys.
//
//===----------------------------------------------------------------------===//

#include "Linear/Cpu/DeltaKernel.h"
#include "Common/Arithmetic.h"
#include "Linear/Cpu/ChunkedScan.h"
#include "Linear/Cpu/Delta.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

std::optional<int64_t> mlir::ejk::deltaScratchBytes(const DeltaProblem &p,
                                                    int64_t chunk,
                                                    int64_t blockV,
                                                    int64_t lanes) {
  int64_t kPad = roundUp(std::max<int64_t>(1, p.dimK), lanes);
  int64_t cPad = roundUp(std::max<int64_t>(1, chunk), lanes);
  int64_t rowArrays = p.decayed() ? 5 : 2;
  bool perHead = p.decay == DeltaDecay::PerHead;
  bool perKey = p.decay == DeltaDecay::PerKey;
  // State; q, k (and decayed q, k, k); kT; new values; P and N; rates;
  // per head: cumulative decays, exp(B_last); per key: cumulative decays,
  // transposed, exp(B_last).
  std::optional<int64_t> elements = checkedSum(
      {checkedProduct({kPad, blockV}), checkedProduct({rowArrays, chunk, kPad}),
       checkedProduct({kPad, cPad}), checkedProduct({chunk, blockV}),
       checkedProduct({2, chunk, cPad}), cPad, perHead ? cPad + kPad : 0,
       perKey ? checkedSum({checkedProduct({chunk + 1, kPad}),
                            checkedProduct({kPad, cPad}), kPad})
              : std::optional<int64_t>(0)});
  if (!elements)
    return std::nullopt;
  return checkedProduct({4, *elements});
}

namespace {

/// The largest chunk decay (-min_k B_last[k]) whose per-key ratios are
/// factored (Kernel.cpp's bound: exp(60) keeps the un-decayed keys finite,
/// exp(-60) the decayed rows normal).
constexpr float kFactorBound = 60.0f;

/// ejKernel's l2-norm epsilon: x / sqrt(sum x^2 + 1e-6).
constexpr float kNormEpsilon = 1e-6f;

class DeltaBodyBuilder : ChunkedScanBuilder<CpuDeltaPlan, DeltaBuffers> {
public:
  DeltaBodyBuilder(OpBuilder &builder, Location loc, const CpuDeltaPlan &plan,
                   const DeltaBuffers &buffers)
      : ChunkedScanBuilder(builder, loc, plan, buffers) {}

  void build() {
    walkSequences([&] { scan(); });
  }

private:
  void scan() {
    qR = e.scratch({p.chunk, kPad});
    kR = e.scratch({p.chunk, kPad});
    kT = e.scratch({kPad, cPad});
    uS = e.scratch({p.chunk, p.blockV});
    aP = e.scratch({p.chunk, cPad});
    aN = e.scratch({p.chunk, cPad});
    betaS = e.scratch({cPad});
    if (p.decayed()) {
      qG = e.scratch({p.chunk, kPad});
      kG = e.scratch({p.chunk, kPad});
      kL = e.scratch({p.chunk, kPad});
      decayLast = e.scratch({kPad});
    } else {
      qG = qR;
      kG = kL = kR;
    }
    if (p.decay == DeltaDecay::PerHead)
      gS = e.scratch({cPad});
    if (p.decay == DeltaDecay::PerKey) {
      bS = e.scratch({p.chunk + 1, kPad});
      bT = e.scratch({kPad, cPad});
    }
    // Columns of kT / bT past the chunk, and gS's tail, are read by the
    // last score vector (and discarded by the mask): keep them finite.
    for (Value t : {kT, bT})
      if (t)
        zeroTransposed(t);
    if (gS)
      for (int64_t s = 0; s < cPad; s += p.lanes) {
        Value column = e.index(s);
        storeVec(e.splatF32(0.0f), gS, {column});
      }
    forEachChunk([&](Value c0, Value len) {
      loadChunk(c0, len);
      if (p.decayed())
        decayFactors(len);
      if (p.decay == DeltaDecay::PerKey) {
        Value bound = e.constF32(-kFactorBound);
        Value factor = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGE,
                                             minOverKeys(bS, len), bound);
        ifThen(e, factor, [&] {
          unDecayKeys();
          scores(qG, kG, /*exact=*/false);
        });
        ifThen(e, notOf(e, factor), [&] { scores(qR, kR, /*exact=*/true); });
      } else {
        scores(qR, kR, /*exact=*/false);
      }
      corrections();
      solve();
      outputs(c0, len);
      updateState(len);
    });
  }

  /// The vectors of one row of `source` ([B, T, H, K]) at `row`, head
  /// `h`: l2-normalized when the op says so, times `scale`.
  SmallVector<Value> loadKeyRow(Value source, Value row, Value h, float scale) {
    SmallVector<Value> xs;
    Value sum = e.splatF32(0.0f);
    for (int64_t kv = 0; kv < kPad; kv += p.lanes) {
      xs.push_back(
          e.readVector(source, {batchIdx, row, h, e.index(kv)}, kInBounds));
      if (p.l2Norm)
        sum = e.fma(xs.back(), xs.back(), sum);
    }
    Value factor = e.splatF32(scale);
    if (p.l2Norm) {
      Value total =
          vector::ReductionOp::create(e.b, vector::CombiningKind::ADD, sum);
      Value norm =
          math::SqrtOp::create(e.b, e.fadd(total, e.constF32(kNormEpsilon)));
      factor = e.broadcast(e.fdiv(e.constF32(scale), norm));
    }
    if (p.l2Norm || scale != 1.0f)
      for (Value &x : xs)
        x = e.fmul(x, factor);
    return xs;
  }

  /// Rows of q (normalized, scaled), k and v (zero past the sequence), the
  /// rates, the cumulative decays and the transposed keys (and decays).
  void loadChunk(Value c0, Value len) {
    Value lastIndex = e.sub(seqLen, one);
    Value zeroVec = e.splatF32(0.0f);
    Value zeroF = e.constF32(0.0f);
    if (bS)
      for (int64_t kv = 0; kv < kPad; kv += p.lanes)
        storeVec(zeroVec, bS, {zero, e.index(kv)});
    SmallVector<Value> inits;
    if (gS)
      inits.push_back(zeroF);
    e.forLoop(
        zero, e.index(p.chunk), one, inits,
        [&](Value t, ValueRange carried) -> SmallVector<Value> {
          Value valid = cmp(e, arith::CmpIPredicate::slt, t, len);
          Value row = rowOf(e.min(e.add(c0, t), lastIndex));
          Value next = e.add(t, one);
          SmallVector<Value> qs = loadKeyRow(buf.query, row, head, p.scale);
          SmallVector<Value> ks = loadKeyRow(buf.key, row, kvHead, 1.0f);
          for (int64_t i = 0, n = qs.size(); i < n; ++i) {
            Value col = e.index(i * p.lanes);
            storeVec(qs[i], qR, {t, col});
            storeVec(e.select(valid, ks[i], zeroVec), kR, {t, col});
            if (!bS)
              continue;
            Value a =
                e.readVector(buf.decay, {batchIdx, row, head, col}, kInBounds);
            Value added = e.select(valid, a, zeroVec);
            storeVec(e.fadd(loadVec(bS, {t, col}), added), bS, {next, col});
          }
          for (int64_t vv = 0; vv < vVectors; ++vv) {
            Value v = e.readVector(buf.value,
                                   {batchIdx, row, kvHead, e.add(v0, vCol(vv))},
                                   vInBounds);
            Value column = vCol(vv);
            storeVec(e.select(valid, v, zeroVec), uS, {t, column});
          }
          Value beta = e.toF32(load(buf.beta, {batchIdx, row, head}));
          memref::StoreOp::create(e.b, e.select(valid, beta, zeroF), betaS,
                                  ValueRange{t});
          SmallVector<Value> out;
          if (gS) {
            Value a = e.toF32(load(buf.decay, {batchIdx, row, head}));
            Value cumulative = e.fadd(carried[0], e.select(valid, a, zeroF));
            memref::StoreOp::create(e.b, cumulative, gS, ValueRange{t});
            out.push_back(cumulative);
          }
          // Transposed keys (and decays): the scores stream vectors of
          // steps.
          e.forLoop(zero, e.index(p.dimK), one, [&](Value k) {
            memref::StoreOp::create(e.b, load(kR, {t, k}), kT,
                                    ValueRange{k, t});
            if (bT)
              memref::StoreOp::create(e.b, load(bS, {next, k}), bT,
                                      ValueRange{k, t});
          });
          return out;
        });
  }

  /// q exp(B_t), k exp(B_t), k exp(B_last - B_t) and exp(B_last): every
  /// exponent <= 0 for decays <= 0.
  void decayFactors(Value len) {
    Value gLast;
    if (gS) {
      gLast = load(gS, {e.sub(len, one)});
      Value d = e.broadcast(e.exp(gLast));
      for (int64_t kv = 0; kv < kPad; kv += p.lanes)
        storeVec(d, decayLast, {e.index(kv)});
    } else {
      for (int64_t kv = 0; kv < kPad; kv += p.lanes) {
        Value column = e.index(kv);
        storeVec(e.exp(loadVec(bS, {len, e.index(kv)})), decayLast, {column});
      }
    }
    e.forLoop(zero, e.index(p.chunk), one, [&](Value t) {
      Value next = e.add(t, one);
      Value toT, toLast;
      if (gS) {
        Value gt = load(gS, {t});
        toT = e.broadcast(e.exp(gt));
        toLast = e.broadcast(e.exp(e.fsub(gLast, gt)));
      }
      for (int64_t kv = 0; kv < kPad; kv += p.lanes) {
        Value col = e.index(kv);
        if (bS) {
          Value bt = loadVec(bS, {next, col});
          toT = e.exp(bt);
          toLast = e.exp(e.fsub(loadVec(bS, {len, col}), bt));
        }
        Value k = loadVec(kR, {t, col});
        storeVec(e.fmul(loadVec(qR, {t, col}), toT), qG, {t, col});
        storeVec(e.fmul(k, toT), kG, {t, col});
        storeVec(e.fmul(k, toLast), kL, {t, col});
      }
    });
  }

  /// kT *= exp(-B) (transposed): the keys of the factored scores. The
  /// exponent is at most kFactorBound for the chunk's steps.
  void unDecayKeys() {
    e.forLoop(zero, e.index(p.dimK), one, [&](Value k) {
      for (int64_t s = 0; s < cPad; s += p.lanes) {
        Value col = e.index(s);
        Value bv = loadVec(bT, {k, col});
        Value unGate = e.exp(arith::NegFOp::create(e.b, bv));
        storeVec(e.fmul(loadVec(kT, {k, col}), unGate), kT, {k, col});
      }
    });
  }

  /// P[t, s] (s <= t) and N[t, s] = -b_t G[t, s] (s < t), 0 above the
  /// diagonal, by blocks of 4 rows, one vector of steps s at a time up to
  /// the block's diagonal: `qRows` and `kRows` times kT, with the exact
  /// per-key decay ratio exp(B_t - B_s) when `exact`, and the per-head one
  /// after the sum.
  void scores(Value qRows, Value kRows, bool exact) {
    Value lanes = e.index(p.lanes);
    forRowBlocks(e, p.chunk, cpuBlockRows(), [&](Value r0, int64_t rows) {
      SmallVector<Value> tRows = blockRows(r0, rows);
      Value sVectors = e.div(e.add(r0, e.index(rows + p.lanes - 1)), lanes);
      e.forLoop(zero, sVectors, one, [&](Value sv) {
        Value s0 = e.mul(sv, lanes);
        SmallVector<Value> inits(2 * rows, e.splatF32(0.0f));
        SmallVector<Value> acc = e.forLoop(
            zero, e.index(p.dimK), one, inits, [&](Value k, ValueRange acc) {
              Value ks = loadVec(kT, {k, s0});
              Value bs;
              if (exact)
                bs = loadVec(bT, {k, s0});
              SmallVector<Value> next(2 * rows);
              for (int64_t r = 0; r < rows; ++r) {
                Value kk = ks;
                if (exact) {
                  Value bt = e.broadcast(load(bS, {e.add(tRows[r], one), k}));
                  kk = e.fmul(ks, e.exp(e.fsub(bt, bs)));
                }
                next[r] =
                    e.fma(e.broadcast(load(qRows, {tRows[r], k})), kk, acc[r]);
                next[rows + r] = e.fma(e.broadcast(load(kRows, {tRows[r], k})),
                                       kk, acc[rows + r]);
              }
              return next;
            });
        Value steps = e.laneIndices(s0);
        Value zeroVec = e.splatF32(0.0f);
        for (int64_t r = 0; r < rows; ++r) {
          Value pScore = acc[r], g = acc[rows + r];
          if (gS) {
            Value stepGates = loadVec(gS, {s0});
            Value exponent =
                e.fsub(e.broadcast(load(gS, {tRows[r]})), stepGates);
            Value ratio =
                e.exp(arith::MinNumFOp::create(e.b, exponent, zeroVec));
            pScore = e.fmul(pScore, ratio);
            g = e.fmul(g, ratio);
          }
          Value t = e.broadcast(e.toI32(tRows[r]));
          Value negBeta = e.broadcast(
              arith::NegFOp::create(e.b, load(betaS, {tRows[r]})).getResult());
          storeVec(e.select(cmp(e, arith::CmpIPredicate::sle, steps, t), pScore,
                            zeroVec),
                   aP, {tRows[r], s0});
          Value scaled = e.fmul(g, negBeta);
          storeVec(e.select(cmp(e, arith::CmpIPredicate::slt, steps, t), scaled,
                            zeroVec),
                   aN, {tRows[r], s0});
        }
      });
    });
  }

  /// The right-hand side of the solve, in place of the values:
  /// uS = diag(b) (V - K~ S).
  void corrections() {
    forRowBlocks(e, p.chunk, cpuBlockRows(), [&](Value r0, int64_t rows) {
      forVectorBlocks([&](int64_t vv0, int64_t cols) {
        SmallVector<Value> tRows = blockRows(r0, rows);
        SmallVector<Value> acc(rows * cols, e.splatF32(0.0f));
        acc = accumulateBlock(
            e, zero, e.index(p.dimK), acc, rows, cols,
            [&](Value k, int64_t r) {
              return load(kG, {tRows[r], k});
            },
            [&](Value k, int64_t c) {
              return loadVec(state, {k, vCol(vv0 + c)});
            });
        for (int64_t r = 0; r < rows; ++r) {
          Value beta = e.broadcast(load(betaS, {tRows[r]}));
          for (int64_t c = 0; c < cols; ++c) {
            Value v = loadVec(uS, {tRows[r], vCol(vv0 + c)});
            Value column = vCol(vv0 + c);
            storeVec(e.fmul(beta, e.fsub(v, acc[r * cols + c])), uS,
                     {tRows[r], column});
          }
        }
      });
    });
  }

  /// Forward substitution in place: u_t = rhs_t + sum_{s<t} N[t, s] u_s, a
  /// block of 4 rows at a time (the rows before it as one register-blocked
  /// product, then the block's own lower triangle).
  void solve() {
    forRowBlocks(e, p.chunk, cpuBlockRows(), [&](Value r0, int64_t rows) {
      forVectorBlocks([&](int64_t vv0, int64_t cols) {
        SmallVector<Value> tRows, acc;
        for (int64_t r = 0; r < rows; ++r) {
          tRows.push_back(e.add(r0, e.index(r)));
          for (int64_t c = 0; c < cols; ++c)
            acc.push_back(loadVec(uS, {tRows[r], vCol(vv0 + c)}));
        }
        acc = accumulateBlock(
            e, zero, r0, acc, rows, cols,
            [&](Value s, int64_t r) {
              return load(aN, {tRows[r], s});
            },
            [&](Value s, int64_t c) {
              return loadVec(uS, {s, vCol(vv0 + c)});
            });
        for (int64_t r = 1; r < rows; ++r)
          for (int64_t prev = 0; prev < r; ++prev) {
            Value n = e.broadcast(load(aN, {tRows[r], tRows[prev]}));
            for (int64_t c = 0; c < cols; ++c)
              acc[r * cols + c] =
                  e.fma(n, acc[prev * cols + c], acc[r * cols + c]);
          }
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            storeVec(acc[r * cols + c], uS, {tRows[r], vCol(vv0 + c)});
      });
    });
  }

  /// O = qG S + P U by blocks of rows x vectors, stored for t < len.
  void outputs(Value c0, Value len) {
    Value lastIndex = e.sub(seqLen, one);
    forRowBlocks(e, p.chunk, cpuBlockRows(), [&](Value r0, int64_t rows) {
      forVectorBlocks([&](int64_t vv0, int64_t cols) {
        SmallVector<Value> tRows = blockRows(r0, rows);
        SmallVector<Value> acc(rows * cols, e.splatF32(0.0f));
        acc = accumulateBlock(
            e, zero, e.index(p.dimK), acc, rows, cols,
            [&](Value k, int64_t r) {
              return load(qG, {tRows[r], k});
            },
            [&](Value k, int64_t c) {
              return loadVec(state, {k, vCol(vv0 + c)});
            });
        acc = accumulateBlock(
            e, zero, e.add(r0, e.index(rows)), acc, rows, cols,
            [&](Value s, int64_t r) {
              return load(aP, {tRows[r], s});
            },
            [&](Value s, int64_t c) {
              return loadVec(uS, {s, vCol(vv0 + c)});
            });
        storeOutputs(c0, len, lastIndex, tRows, vv0, cols, acc);
      });
    });
  }

  /// S = diag(exp(B_last)) S + kL^T U over the chunk's valid steps.
  void updateState(Value len) {
    forRowBlocks(e, p.dimK, cpuBlockRows(), [&](Value r0, int64_t rows) {
      forVectorBlocks([&](int64_t vv0, int64_t cols) {
        SmallVector<Value> kRows, acc;
        for (int64_t r = 0; r < rows; ++r) {
          kRows.push_back(e.add(r0, e.index(r)));
          Value decay;
          if (p.decayed())
            decay = e.broadcast(load(decayLast, {kRows[r]}));
          for (int64_t c = 0; c < cols; ++c) {
            Value s = loadVec(state, {kRows[r], vCol(vv0 + c)});
            acc.push_back(decay ? e.fmul(decay, s) : s);
          }
        }
        acc = accumulateBlock(
            e, zero, len, acc, rows, cols,
            [&](Value s, int64_t r) {
              return load(kL, {s, kRows[r]});
            },
            [&](Value s, int64_t c) {
              return loadVec(uS, {s, vCol(vv0 + c)});
            });
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            storeVec(acc[r * cols + c], state, {kRows[r], vCol(vv0 + c)});
      });
    });
  }

  Value qR, kR, kT, uS, aP, aN, betaS, qG, kG, kL, decayLast, gS, bS, bT;
};

} // namespace

void mlir::ejk::buildCpuDeltaBody(OpBuilder &builder, Location loc,
                                  const CpuDeltaPlan &plan,
                                  const DeltaBuffers &buffers) {
  DeltaBodyBuilder(builder, loc, plan, buffers).build();
}

LogicalResult CpuDelta::tile(DeltaAttentionOp op, ConfigAttr attr,
                             DispatchRewriter &rewriter) {
  GlaConfig config = *GlaConfig::read(attr, llvm::nulls());
  CpuDeltaPlan plan;
  static_cast<DeltaProblem &>(plan) = readDeltaProblem(op);
  plan.chunk = config.chunkSize;
  plan.blockV = config.blockV;
  plan.lanes = rewriter.target().f32Lanes();

  DeltaBuffers buf = findDeltaBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildCpuDeltaBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setWork(dispatch, deltaFlops(plan, plan.chunk),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}
