//===- ChunkOutputs.cpp - the chunk-parallel outputs ===//
//
// Workgroup = (chunk slot [+ filler], head, V block): the gated scores of
// the chunk and (q exp(B)) S_{c-1} in one pass over key tiles (the next
// tile's loads carried in registers), then O += A V (ChunkParallel.h).
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/ChunkKernel.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::chunk_parallel;

namespace {

class OutputsKernel : public ChunkKernel {
public:
  using ChunkKernel::ChunkKernel;

  void build() {
    begin();
    withOutputChunk([&] { outputs(); });
  }

private:
  void outputs() {
    int64_t C = l.chunk, kt = l.keyTile, pitch = l.keyPitch();
    int64_t st = VulkanGlaChunkLayout::kStepTile;
    Value scores = allocWorkgroup(e, C * C);
    Value qTile = allocWorkgroup(e, C * pitch);
    Value kTile = allocWorkgroup(e, C * pitch);
    // Rows of S (per key tile), then of V (per step tile).
    Value rowTile = allocWorkgroup(e, std::max(st, kt) * l.blockV);
    // B of the staged steps, for the exact scores.
    Value cumTile;
    if (mode != GateMode::None)
      cumTile = allocWorkgroup(e, C * pitch);

    // The chunk's strongest decay picks factored or exact scores (the
    // same for the whole workgroup).
    Value factor;
    if (mode == GateMode::PerStep)
      factor = lastGateWithinBound(kFactorBound);
    else if (mode == GateMode::Constant) {
      Value bound = e.constF32(-kFactorBound);
      Value last = constantCum(e.sub(len, one));
      factor =
          arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGE, last, bound);
    }

    // One pass over key tiles: the scores A and (q exp(B)) S together.
    int64_t nA = l.cPer * l.cPer, nO = l.cPer * l.vPer;
    auto keyLoop = [&](bool exact) -> SmallVector<Value> {
      SmallVector<Value> inits(nA + nO, e.constF32(0.0f));
      int64_t keyTiles = ceilDiv(p.dimK, kt);
      // With whole rounds, the next tile's loads are issued before this
      // tile's products and carried in registers (their latency hides
      // behind the FMAs); otherwise each tile is staged, then computed.
      bool prefetch = canPrefetch();
      int64_t numRegs = 0;
      if (prefetch) {
        SmallVector<Value> first = loadTileRegisters(zero, exact);
        numRegs = first.size();
        llvm::append_range(inits, first);
      }
      SmallVector<Value> acc = e.forLoop(
          zero, e.index(keyTiles), one, inits,
          [&](Value kb, ValueRange accIn) -> SmallVector<Value> {
            Value k0 = e.mul(kb, e.index(kt));
            SmallVector<Value> ahead;
            if (prefetch) {
              storeTileRegisters(accIn.take_back(numRegs), qTile, kTile,
                                 cumTile, rowTile, exact);
              gpu::BarrierOp::create(e.b);
              Value tileSize = e.index(kt);
              Value lastTile = e.index(keyTiles - 1);
              Value nextK0 = e.mul(e.min(e.add(kb, one), lastTile), tileSize);
              ahead = loadTileRegisters(nextK0, exact);
            } else {
              stageKeyTiles(qTile, kTile, cumTile, k0, exact);
              stageStateRows(rowTile, k0);
              gpu::BarrierOp::create(e.b);
            }
            SmallVector<Value> next(accIn.begin(), accIn.begin() + nA + nO);
            for (int64_t k = 0; k < kt; ++k) {
              SmallVector<Value> qs, ks, qb, kb2, ss;
              for (int64_t a = 0; a < l.cPer; ++a) {
                Value key = e.index(k);
                Value rowPitch = e.index(pitch);
                Value idx = e.add(e.mul(outRow(a), rowPitch), key);
                qs.push_back(memref::LoadOp::create(e.b, qTile, idx));
                if (exact)
                  qb.push_back(memref::LoadOp::create(e.b, cumTile, idx));
              }
              for (int64_t b = 0; b < l.cPer; ++b) {
                Value key = e.index(k);
                Value rowPitch = e.index(pitch);
                Value idx = e.add(e.mul(scoreCol(b), rowPitch), key);
                ks.push_back(memref::LoadOp::create(e.b, kTile, idx));
                if (exact)
                  kb2.push_back(memref::LoadOp::create(e.b, cumTile, idx));
              }
              for (int64_t j = 0; j < l.vPer; ++j) {
                Value col = outCol(j);
                Value at = e.add(e.index(k * l.blockV), col);
                ss.push_back(memref::LoadOp::create(e.b, rowTile, at));
              }
              for (int64_t a = 0; a < l.cPer; ++a) {
                for (int64_t b = 0; b < l.cPer; ++b) {
                  Value kk = ks[b];
                  if (exact) {
                    Value zeroF = e.constF32(0.0f);
                    Value gap = e.fsub(qb[a], kb2[b]);
                    kk = e.fmul(
                        kk, e.exp(arith::MinNumFOp::create(e.b, gap, zeroF)));
                  }
                  next[a * l.cPer + b] =
                      math::FmaOp::create(e.b, qs[a], kk, next[a * l.cPer + b]);
                }
                // The inter-chunk part takes q exp(B_t): staged so when
                // factored, one exp a row and key when exact.
                Value qg = exact ? e.fmul(qs[a], e.exp(qb[a])) : qs[a];
                for (int64_t j = 0; j < l.vPer; ++j)
                  next[nA + a * l.vPer + j] = math::FmaOp::create(
                      e.b, qg, ss[j], next[nA + a * l.vPer + j]);
              }
            }
            gpu::BarrierOp::create(e.b);
            llvm::append_range(next, ahead);
            return next;
          });
      for (int64_t a = 0; a < l.cPer; ++a)
        for (int64_t b = 0; b < l.cPer; ++b) {
          Value t = outRow(a), sIdx = scoreCol(b);
          Value causal = cmp(arith::CmpIPredicate::sle, sIdx, t);
          Value at = e.add(e.mul(t, e.index(C)), sIdx);
          Value zeroF = e.constF32(0.0f);
          Value score = e.select(causal, acc[a * l.cPer + b], zeroF);
          memref::StoreOp::create(e.b, score, scores, at);
        }
      return SmallVector<Value>(acc.begin() + nA, acc.begin() + nA + nO);
    };
    SmallVector<Value> o;
    if (!factor) {
      o = keyLoop(false);
    } else {
      auto ifOp = scf::IfOp::create(e.b, SmallVector<Type>(nO, e.f32), factor,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(e.b, keyLoop(false));
      e.b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(e.b, keyLoop(true));
      e.b.setInsertionPointAfter(ifOp);
      o.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    }
    gpu::BarrierOp::create(e.b);

    // O += A V over tiles of 16 steps.
    Value tileSteps = e.index(st);
    Value numTiles = e.div(e.add(len, e.index(st - 1)), tileSteps);
    o = e.forLoop(zero, numTiles, one, o,
                  [&](Value ti, ValueRange acc) -> SmallVector<Value> {
                    Value s0 = e.mul(ti, e.index(st));
                    stageValues(rowTile, s0, st);
                    gpu::BarrierOp::create(e.b);
                    SmallVector<Value> next(acc.begin(), acc.end());
                    for (int64_t s = 0; s < st; ++s) {
                      SmallVector<Value> as, vs;
                      for (int64_t a = 0; a < l.cPer; ++a) {
                        Value step = e.add(s0, e.index(s));
                        Value chunkSteps = e.index(C);
                        Value rowAt = e.mul(outRow(a), chunkSteps);
                        Value at = e.add(rowAt, step);
                        as.push_back(memref::LoadOp::create(e.b, scores, at));
                      }
                      for (int64_t j = 0; j < l.vPer; ++j) {
                        Value col = outCol(j);
                        Value at = e.add(e.index(s * l.blockV), col);
                        vs.push_back(memref::LoadOp::create(e.b, rowTile, at));
                      }
                      for (int64_t a = 0; a < l.cPer; ++a)
                        for (int64_t j = 0; j < l.vPer; ++j)
                          next[a * l.vPer + j] = math::FmaOp::create(
                              e.b, as[a], vs[j], next[a * l.vPer + j]);
                    }
                    gpu::BarrierOp::create(e.b);
                    return next;
                  });

    for (int64_t a = 0; a < l.cPer; ++a)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value t = outRow(a), col = e.add(v0, outCol(j));
        Value inColumns = cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV));
        Value inChunk = cmp(arith::CmpIPredicate::slt, t, len);
        Value inside = arith::AndIOp::create(e.b, inChunk, inColumns);
        emitIf(e, inside, [&] {
          Value row = rowOf(e.add(c0, t));
          Value out = e.fromF32(o[a * l.vPer + j], outputType());
          memref::StoreOp::create(e.b, out, buf.output,
                                  ValueRange{batchIdx, row, head, col});
        });
      }
  }

  /// Rows [k0, k0 + key tile) of the state before the chunk, the block's
  /// columns (zero past head_dim_k and head_dim_v), into `tile`.
  void stageStateRows(Value tile, Value k0) {
    forEachShared(e, l.kThreads, thread, l.keyTile * l.blockV, [&](Value i) {
      memref::StoreOp::create(e.b, loadStateElement(i, k0), tile, i);
    });
  }

  /// Keys [k0, k0 + key tile) of the chunk's steps: q (scaled) and k, gated by
  /// exp(B) and exp(-B) (factored) or raw with B beside them (exact); zero
  /// past the chunk and head_dim_k.
  void stageKeyTiles(Value qTile, Value kTile, Value cumTile, Value k0,
                     bool exact) {
    forEachShared(e, l.kThreads, thread, l.chunk * l.keyTile, [&](Value i) {
      storeKeyElement(i, loadKeyElement(i, k0, exact), qTile, kTile, cumTile,
                      exact);
    });
  }

  /// Element `i` of a key tile from k0: q (scaled) and k, gated by exp(B)
  /// and exp(-B) (factored) or raw with B (exact); zero past the chunk and
  /// head_dim_k.
  SmallVector<Value> loadKeyElement(Value i, Value k0, bool exact) {
    int64_t kt = l.keyTile;
    Value t = arith::DivUIOp::create(e.b, i, e.index(kt));
    Value k = e.add(k0, arith::RemUIOp::create(e.b, i, e.index(kt)));
    Value inKeys = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
    Value inChunk = cmp(arith::CmpIPredicate::slt, t, len);
    Value valid = arith::AndIOp::create(e.b, inChunk, inKeys);
    Value kc = e.min(k, e.index(p.dimK - 1));
    Value row = chunkRow(t);
    Value scale = e.constF32(p.scale);
    Value q = e.fmul(load(buf.query, {batchIdx, row, head, kc}), scale);
    Value key = load(buf.key, {batchIdx, row, kvHead, kc});
    Value zeroF = e.constF32(0.0f);
    SmallVector<Value> out;
    Value b;
    if (mode != GateMode::None) {
      b = cumGate(t, kc);
      if (!exact) {
        q = e.fmul(q, e.exp(b));
        key = e.fmul(key, e.exp(arith::NegFOp::create(e.b, b)));
      }
    }
    out.push_back(e.select(valid, q, zeroF));
    out.push_back(e.select(valid, key, zeroF));
    if (exact && b)
      out.push_back(b);
    return out;
  }

  /// Element `i` (step i / keyTile, key i % keyTile) at its padded place:
  /// i + i / keyTile with rows of keyPitch().
  void storeKeyElement(Value i, ArrayRef<Value> vals, Value qTile, Value kTile,
                       Value cumTile, bool exact) {
    Value at = e.add(i, arith::DivUIOp::create(e.b, i, e.index(l.keyTile)));
    memref::StoreOp::create(e.b, vals[0], qTile, at);
    memref::StoreOp::create(e.b, vals[1], kTile, at);
    if (vals.size() > 2)
      memref::StoreOp::create(e.b, vals[2], cumTile, at);
  }

  /// Element `i` of the state rows from k0 (stageStateRows).
  Value loadStateElement(Value i, Value k0) {
    Value k = e.add(k0, arith::DivUIOp::create(e.b, i, e.index(l.blockV)));
    Value col = e.add(v0, arith::RemUIOp::create(e.b, i, e.index(l.blockV)));
    Value inColumns = cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV));
    Value inKeys = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
    Value valid = arith::AndIOp::create(e.b, inKeys, inColumns);
    Value s = load(tmp.states, {slot(), head, e.min(k, e.index(p.dimK - 1)),
                                e.min(col, e.index(p.dimV - 1))});
    return e.select(valid, s, e.constF32(0.0f));
  }

  /// Whether a key tile and its state rows split into whole rounds of the
  /// workgroup's threads (then the next tile's loads can be held in
  /// registers while the current one is computed).
  bool canPrefetch() const {
    return (l.chunk * l.keyTile) % l.kThreads == 0 &&
           (l.keyTile * l.blockV) % l.kThreads == 0;
  }

  /// This thread's share of the key tile and state rows from k0, in
  /// registers.
  SmallVector<Value> loadTileRegisters(Value k0, bool exact) {
    SmallVector<Value> regs;
    for (int64_t r = 0; r < l.chunk * l.keyTile / l.kThreads; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      llvm::append_range(regs, loadKeyElement(i, k0, exact));
    }
    for (int64_t r = 0; r < l.keyTile * l.blockV / l.kThreads; ++r)
      regs.push_back(
          loadStateElement(e.add(thread, e.index(r * l.kThreads)), k0));
    return regs;
  }

  void storeTileRegisters(ValueRange regs, Value qTile, Value kTile,
                          Value cumTile, Value rowTile, bool exact) {
    int64_t perKey = exact && mode != GateMode::None ? 3 : 2;
    int64_t keyRounds = l.chunk * l.keyTile / l.kThreads;
    for (int64_t r = 0; r < keyRounds; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      SmallVector<Value> vals(regs.begin() + r * perKey,
                              regs.begin() + (r + 1) * perKey);
      storeKeyElement(i, vals, qTile, kTile, cumTile, exact);
    }
    for (int64_t r = 0; r < l.keyTile * l.blockV / l.kThreads; ++r)
      memref::StoreOp::create(e.b, regs[keyRounds * perKey + r], rowTile,
                              e.add(thread, e.index(r * l.kThreads)));
  }
};

} // namespace

void mlir::ejk::chunk_parallel::buildChunkOutputs(OpBuilder &builder,
                                                  Location loc,
                                                  const GlaProblem &p,
                                                  const VulkanGlaChunkLayout &l,
                                                  const GlaBuffers &buf,
                                                  const Temporaries &tmp) {
  OutputsKernel(builder, loc, p, l, buf, tmp).build();
}
