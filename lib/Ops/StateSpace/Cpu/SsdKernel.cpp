//===- SsdKernel.cpp - Mamba-2 SSD (chunked state-space duality) on CPUs --===//
//===//
//
// Two dispatches per op:
//
// 1. scores (workgroup = chunk, group, batch): CB[t, s] = C_t . B_s for the
//    chunk's steps, shared by the heads of the group.
// 2. scan (workgroup = head_dim block, head, batch), the chunks in order,
//    with the state St = S^T ([d_state, block_p], f32) in scratch:
//      dt_t = softplus(dt + bias), a_t = cumsum(dt_t * A[h]) in the chunk
//      M[t, s] = CB[t, s] * exp(a_t - a_s) * dt_s for s <= t, else 0
//      Y[t, :] = exp(a_t) * C_t St  +  sum_{s<=t} M[t, s] X[s, :]
//      y = (Y + D x) * silu(z)
//      St = exp(a_last) St + sum_s B_s^T (exp(a_last - a_s) dt_s X[s, :])
//    Y and the state update are register-blocked matmuls: 4 rows x up to 4
//    vectors of accumulators, streaming contiguous rows of St / X and
//    broadcasting scalars of C, M and B.
//
//===----------------------------------------------------------------------===//

#include "Common/CpuBlocking.h"
#include "Common/CpuEmitter.h"
#include "StateSpace/Cpu/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class SsdBodyBuilder {
public:
  SsdBodyBuilder(OpBuilder &builder, Location loc, const CpuSsdPlan &plan,
                 const SsdBuffers &buffers)
      : e(builder, loc, plan.lanes), p(plan), buf(buffers) {
    vectors = p.blockP / p.lanes;
    pInBounds = p.headDim % p.blockP == 0;
    qPad = p.paddedChunk();
  }

  void build() {
    pBlock = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    batch = WorkgroupIdOp::create(e.b, 2);
    zero = e.index(0);
    one = e.index(1);
    p0 = e.mul(pBlock, e.index(p.blockP));
    group = e.div(head, e.index(p.headsPerGroup()));
    aHead = memref::LoadOp::create(e.b, buf.a, ValueRange{head});
    if (buf.dtBias)
      biasHead = memref::LoadOp::create(e.b, buf.dtBias, ValueRange{head});
    if (buf.d)
      skipHead = e.broadcast(
          memref::LoadOp::create(e.b, buf.d, ValueRange{head}).getResult());

    stateT = e.scratch({p.state, p.blockP});
    xS = e.scratch({p.chunk, p.blockP});
    xwS = e.scratch({p.chunk, p.blockP});
    mS = e.scratch({p.chunk, qPad});
    dtS = e.scratch({qPad});
    aS = e.scratch({qPad});
    wS = e.scratch({qPad});
    eaS = e.scratch({qPad});

    loadState();
    e.forLoop(zero, e.index(p.numChunks()), one, [&](Value chunk) {
      Value c0 = e.mul(chunk, e.index(p.chunk));
      Value rowsLeft = e.sub(e.index(p.seq), c0);
      Value len = e.min(e.index(p.chunk), rowsLeft);
      Value aLast = decays(c0, len);
      loadInputs(c0, len);
      weightScores(chunk);
      outputs(c0, len);
      updateState(c0, len, aLast);
    });
    if (buf.finalState)
      storeState();
  }

private:
  /// Row `c0 + t` clamped into the sequence (rows past it are computed on
  /// a copy of the last one and never stored or weighted).
  Value seqRow(Value c0, Value t) {
    Value lastRow = e.index(p.seq - 1);
    return e.min(e.add(c0, t), lastRow);
  }
  Value headDimCol(Value col) {
    Value lastColumn = e.index(p.headDim - 1);
    return e.min(e.add(p0, col), lastColumn);
  }

  /// St[n, p] = initial_state[b, h, p0 + p, n] or 0.
  void loadState() {
    e.forLoop(zero, e.index(p.state), one, [&](Value n) {
      e.forLoop(zero, e.index(p.blockP), one, [&](Value c) {
        Value s = buf.initialState
                      ? memref::LoadOp::create(
                            e.b, buf.initialState,
                            ValueRange{batch, head, headDimCol(c), n})
                            .getResult()
                      : e.constF32(0.0f);
        memref::StoreOp::create(e.b, s, stateT, ValueRange{n, c});
      });
    });
  }

  /// final_state[b, h, p0 + p, n] = St[n, p] for the columns owned.
  void storeState() {
    Value columnsLeft = e.sub(e.index(p.headDim), p0);
    Value owned = e.min(e.index(p.blockP), columnsLeft);
    e.forLoop(zero, owned, one, [&](Value c) {
      e.forLoop(zero, e.index(p.state), one, [&](Value n) {
        Value column = e.add(p0, c);
        memref::StoreOp::create(
            e.b, memref::LoadOp::create(e.b, stateT, ValueRange{n, c}),
            buf.finalState, ValueRange{batch, head, column, n});
      });
    });
  }

  /// dt_t, the cumulative a_t, w_t = exp(a_last - a_t) dt_t and exp(a_t).
  /// Steps past the sequence get dt = 0. Returns a_last.
  Value decays(Value c0, Value len) {
    // dt for `lanes` steps at a time: the strided scalars gathered into a
    // vector, so that bias and softplus run vectorized.
    Value lanes = e.index(p.lanes);
    Value lenI32 = e.broadcast(e.toI32(len));
    e.forLoop(zero, e.index(qPad), lanes, [&](Value t0) {
      SmallVector<Value> raw;
      for (int64_t l = 0; l < p.lanes; ++l)
        raw.push_back(e.toF32(memref::LoadOp::create(
            e.b, buf.dt,
            ValueRange{batch, seqRow(c0, e.add(t0, e.index(l))), head})));
      Value dt = vector::FromElementsOp::create(e.b, e.vf32, raw);
      if (biasHead)
        dt = e.fadd(dt, e.broadcast(biasHead));
      if (p.softplus) {
        Value big = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, dt,
                                          e.splatF32(20.0f));
        dt = e.select(big, dt, math::Log1pOp::create(e.b, e.exp(dt)));
      }
      Value valid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                          e.laneIndices(t0), lenI32);
      vector::StoreOp::create(e.b, e.select(valid, dt, e.splatF32(0.0f)), dtS,
                              ValueRange{t0});
    });
    Value zeroF = e.constF32(0.0f);
    Value aLast = e.forLoop(
        zero, e.index(qPad), one, {zeroF}, [&](Value t, ValueRange acc) {
          Value dt = memref::LoadOp::create(e.b, dtS, ValueRange{t});
          Value a = e.fadd(acc[0], e.fmul(dt, aHead));
          memref::StoreOp::create(e.b, a, aS, ValueRange{t});
          return SmallVector<Value>{a};
        })[0];
    Value last = e.broadcast(aLast);
    for (int64_t v = 0; v < qPad; v += p.lanes) {
      Value at =
          vector::LoadOp::create(e.b, e.vf32, aS, ValueRange{e.index(v)});
      Value dt =
          vector::LoadOp::create(e.b, e.vf32, dtS, ValueRange{e.index(v)});
      Value weightColumn = e.index(v);
      vector::StoreOp::create(e.b, e.fmul(e.exp(e.fsub(last, at)), dt), wS,
                              ValueRange{weightColumn});
      Value decayColumn = e.index(v);
      vector::StoreOp::create(e.b, e.exp(at), eaS, ValueRange{decayColumn});
    }
    return aLast;
  }

  /// X (widened, zero past the sequence) and X scaled by w.
  void loadInputs(Value c0, Value len) {
    e.forLoop(zero, e.index(p.chunk), one, [&](Value s) {
      Value valid =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, s, len);
      Value w = e.broadcast(
          memref::LoadOp::create(e.b, wS, ValueRange{s}).getResult());
      Value zeroVec = e.splatF32(0.0f);
      for (int64_t v = 0; v < vectors; ++v) {
        Value col = e.index(v * p.lanes);
        Value x = e.readVector(
            buf.x, {batch, seqRow(c0, s), head, e.add(p0, col)}, pInBounds);
        x = e.select(valid, x, zeroVec);
        vector::StoreOp::create(e.b, x, xS, ValueRange{s, col});
        vector::StoreOp::create(e.b, e.fmul(x, w), xwS, ValueRange{s, col});
      }
      // The next chunk's rows of x (and z) are a page apart each: fetch
      // them now so that their latency overlaps this chunk's matmuls.
      Value next = seqRow(c0, e.add(s, e.index(p.chunk)));
      for (int64_t v = 0; v < vectors; ++v) {
        Value col = headDimCol(e.index(v * p.lanes));
        for (Value buffer : {buf.x, buf.z})
          if (buffer)
            memref::PrefetchOp::create(e.b, buffer,
                                       ValueRange{batch, next, head, col},
                                       /*isWrite=*/false, /*localityHint=*/3,
                                       /*isDataCache=*/true);
      }
    });
  }

  /// M[t, s] = CB[t, s] exp(a_t - a_s) dt_s, zero for s > t; filled up to
  /// the last column any row block containing t reads.
  void weightScores(Value chunk) {
    Value lanes = e.index(p.lanes);
    e.forLoop(zero, e.index(p.chunk), one, [&](Value t) {
      Value at = e.broadcast(
          memref::LoadOp::create(e.b, aS, ValueRange{t}).getResult());
      Value blocksThroughRow =
          e.add(e.div(e.add(t, e.index(cpuBlockRows() - 1)), lanes), one);
      Value hi = e.min(e.index(qPad / p.lanes), blocksThroughRow);
      Value tI32 = e.broadcast(e.toI32(t));
      e.forLoop(zero, hi, one, [&](Value sv) {
        Value s0 = e.mul(sv, lanes);
        Value cb = vector::LoadOp::create(
            e.b, e.vf32, buf.scores, ValueRange{batch, group, chunk, t, s0});
        Value as = vector::LoadOp::create(e.b, e.vf32, aS, ValueRange{s0});
        Value dt = vector::LoadOp::create(e.b, e.vf32, dtS, ValueRange{s0});
        Value m = e.fmul(e.fmul(cb, e.exp(e.fsub(at, as))), dt);
        Value causal = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle,
                                             e.laneIndices(s0), tI32);
        vector::StoreOp::create(e.b, e.select(causal, m, e.splatF32(0.0f)), mS,
                                ValueRange{t, s0});
      });
    });
  }

  /// Y = exp(a_t) C_t St + M X, then D skip, gate and store, by register
  /// blocks of rows x vectors.
  void outputs(Value c0, Value len) {
    forRowBlocks(e, p.chunk, cpuBlockRows(), [&](Value r0, int64_t rows) {
      for (int64_t v0 = 0; v0 < vectors; v0 += cpuBlockCols(p.lanes)) {
        int64_t cols = std::min(cpuBlockCols(p.lanes), vectors - v0);
        auto colOf = [&](int64_t c) { return e.index((v0 + c) * p.lanes); };
        SmallVector<Value> tRows, cRows;
        for (int64_t r = 0; r < rows; ++r) {
          tRows.push_back(e.add(r0, e.index(r)));
          cRows.push_back(seqRow(c0, tRows[r]));
        }
        SmallVector<Value> acc(rows * cols, e.splatF32(0.0f));
        // The state carried in: C_t St.
        acc = accumulateBlock(
            e, zero, e.index(p.state), acc, rows, cols,
            [&](Value n, int64_t r) {
              return e.toF32(memref::LoadOp::create(
                  e.b, buf.c, ValueRange{batch, cRows[r], group, n}));
            },
            [&](Value n, int64_t c) -> Value {
              return vector::LoadOp::create(e.b, e.vf32, stateT,
                                            ValueRange{n, colOf(c)});
            });
        for (int64_t r = 0; r < rows; ++r) {
          Value scale =
              e.broadcast(memref::LoadOp::create(e.b, eaS, ValueRange{tRows[r]})
                              .getResult());
          for (int64_t c = 0; c < cols; ++c)
            acc[r * cols + c] = e.fmul(acc[r * cols + c], scale);
        }
        // The chunk itself: M X over s < r0 + rows (M is 0 past t).
        acc = accumulateBlock(
            e, zero, e.add(r0, e.index(rows)), acc, rows, cols,
            [&](Value s, int64_t r) -> Value {
              return memref::LoadOp::create(e.b, mS, ValueRange{tRows[r], s});
            },
            [&](Value s, int64_t c) -> Value {
              return vector::LoadOp::create(e.b, e.vf32, xS,
                                            ValueRange{s, colOf(c)});
            });
        for (int64_t r = 0; r < rows; ++r) {
          Value valid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                              tRows[r], len);
          ifThen(e, valid, [&] {
            for (int64_t c = 0; c < cols; ++c)
              storeOutput(acc[r * cols + c], c0, tRows[r], colOf(c));
          });
        }
      }
    });
  }

  /// y = (acc + D x) * silu(z) at (c0 + t, p0 + col).
  void storeOutput(Value y, Value c0, Value t, Value col) {
    Value row = e.add(c0, t);
    if (skipHead) {
      Value x = vector::LoadOp::create(e.b, e.vf32, xS, ValueRange{t, col});
      y = e.fma(skipHead, x, y);
    }
    SmallVector<Value> at = {batch, row, head, e.add(p0, col)};
    if (buf.z) {
      Value z = e.readVector(buf.z, at, pInBounds);
      Value expNegZ = e.exp(arith::NegFOp::create(e.b, z));
      Value denominator = e.fadd(e.splatF32(1.0f), expNegZ);
      Value sigmoid = e.fdiv(e.splatF32(1.0f), denominator);
      y = e.fmul(y, e.fmul(z, sigmoid));
    }
    e.writeVector(y, buf.y, at, pInBounds);
  }

  /// St = exp(a_last) St + B^T Xw over the chunk's valid steps, by tiles of
  /// block_n state rows.
  void updateState(Value c0, Value len, Value aLast) {
    Value decay = e.broadcast(e.exp(aLast));
    Value blockN = e.index(p.blockN);
    e.forLoop(zero, e.index(p.state), blockN, [&](Value n0) {
      forRowBlocks(e, p.blockN, cpuBlockRows(), [&](Value r0, int64_t rows) {
        for (int64_t v0 = 0; v0 < vectors; v0 += cpuBlockCols(p.lanes)) {
          int64_t cols = std::min(cpuBlockCols(p.lanes), vectors - v0);
          auto colOf = [&](int64_t c) { return e.index((v0 + c) * p.lanes); };
          SmallVector<Value> nRows, acc;
          for (int64_t r = 0; r < rows; ++r) {
            nRows.push_back(e.add(n0, e.add(r0, e.index(r))));
            for (int64_t c = 0; c < cols; ++c)
              acc.push_back(e.fmul(decay, vector::LoadOp::create(
                                              e.b, e.vf32, stateT,
                                              ValueRange{nRows[r], colOf(c)})));
          }
          acc = accumulateBlock(
              e, zero, len, acc, rows, cols,
              [&](Value s, int64_t r) {
                return e.toF32(memref::LoadOp::create(
                    e.b, buf.b,
                    ValueRange{batch, e.add(c0, s), group, nRows[r]}));
              },
              [&](Value s, int64_t c) -> Value {
                return vector::LoadOp::create(e.b, e.vf32, xwS,
                                              ValueRange{s, colOf(c)});
              });
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c)
              vector::StoreOp::create(e.b, acc[r * cols + c], stateT,
                                      ValueRange{nRows[r], colOf(c)});
        }
      });
    });
  }

  Emitter e;
  const CpuSsdPlan &p;
  const SsdBuffers &buf;
  int64_t vectors, qPad;
  bool pInBounds;
  Value pBlock, head, batch, zero, one, p0, group, aHead, biasHead, skipHead;
  Value stateT, xS, xwS, mS, dtS, aS, wS, eaS;
};

} // namespace

void mlir::ejk::buildCpuSsdScoresBody(OpBuilder &builder, Location loc,
                                      const CpuSsdPlan &p, Value bBuffer,
                                      Value cBuffer, Value scores) {
  Emitter e(builder, loc, p.lanes);
  Value chunk = WorkgroupIdOp::create(e.b, 0);
  Value group = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  int64_t qPad = p.paddedChunk();
  Value c0 = e.mul(chunk, e.index(p.chunk));
  Value lastRow = e.index(p.seq - 1);

  // B^T of the chunk, zero past the chunk, so that C_t B^T streams
  // contiguous vectors of s.
  Value bT = e.scratch({p.state, qPad});
  e.forLoop(zero, e.index(qPad), one, [&](Value s) {
    Value row = e.min(e.add(c0, s), lastRow);
    Value valid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, s,
                                        e.index(p.chunk));
    e.forLoop(zero, e.index(p.state), one, [&](Value n) {
      Value v = e.toF32(memref::LoadOp::create(
          e.b, bBuffer, ValueRange{batch, row, group, n}));
      memref::StoreOp::create(e.b, e.select(valid, v, e.constF32(0.0f)), bT,
                              ValueRange{n, s});
    });
  });

  int64_t sVectors = qPad / p.lanes;
  forRowBlocks(e, p.chunk, cpuBlockRows(), [&](Value r0, int64_t rows) {
    for (int64_t v0 = 0; v0 < sVectors; v0 += cpuBlockCols(p.lanes)) {
      int64_t cols = std::min(cpuBlockCols(p.lanes), sVectors - v0);
      SmallVector<Value> tRows, cRows;
      for (int64_t r = 0; r < rows; ++r) {
        tRows.push_back(e.add(r0, e.index(r)));
        cRows.push_back(e.min(e.add(c0, tRows[r]), lastRow));
      }
      SmallVector<Value> acc(rows * cols, e.splatF32(0.0f));
      acc = accumulateBlock(
          e, zero, e.index(p.state), acc, rows, cols,
          [&](Value n, int64_t r) {
            return e.toF32(memref::LoadOp::create(
                e.b, cBuffer, ValueRange{batch, cRows[r], group, n}));
          },
          [&](Value n, int64_t c) -> Value {
            return vector::LoadOp::create(
                e.b, e.vf32, bT, ValueRange{n, e.index((v0 + c) * p.lanes)});
          });
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          vector::StoreOp::create(e.b, acc[r * cols + c], scores,
                                  ValueRange{batch, group, chunk, tRows[r],
                                             e.index((v0 + c) * p.lanes)});
    }
  });
}

void mlir::ejk::buildCpuSsdBody(OpBuilder &builder, Location loc,
                                const CpuSsdPlan &plan,
                                const SsdBuffers &buffers) {
  SsdBodyBuilder(builder, loc, plan, buffers).build();
}
