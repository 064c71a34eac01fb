//===- SsdKernel.cpp - Mamba-2 SSD (chunked) for Vulkan, f32 --------------===//
//
// Two dispatches per op:
//
// 1. scores (workgroup = chunk, group, batch): CB[t, s] = C_t . B_s for the
//    chunk's steps, once per group (shared by its heads and head_dim
//    blocks), on the `cb` register tile over n-chunks of staged C and B.
// 2. scan (workgroup = head_dim block of `block_p` columns, head, batch
//    row): the chunks in order, the state St = S^T ([d_state, block_p],
//    f32) in shared memory; register tiles `y` and `state` as in
//    StateSpace/Vulkan/Layout.h. Per chunk of Q steps:
//
//   stage    dt_t = softplus(dt + bias) (0 past the sequence), X  [Q, P_b]
//   barrier
//   decays   a_t = cumsum(dt A[h]), w_s = exp(a_last - a_s) dt_s, exp(a_t)
//   barrier
//   M[t, s] = CB[t, s] exp(a_t - a_s) dt_s for s <= t, else 0   (shared)
//   for each n-chunk of block_n states:
//     stage  C and B columns [Q, block_n]
//     barrier
//     y += C St[n-chunk]   (registers)
//     barrier
//     St[n-chunk] = exp(a_last) St + B^T (w X)
//     barrier
//   Y = exp(a_t) (C St) + M X  over s < the tile's last row; + D x;
//     * silu(z); stored
//   barrier
//
// Split scan (`split_l`): a workgroup owns the chunks of one split (grid
// y = head + heads * split). A first dispatch runs every split but the last
// from St = 0 without C, M and the outputs and stores its end state and
// A * sum(dt); the scan's workgroup of split s starts from
//   St = initial_state;  for k < s: St = exp(A sum dt_k) St + St_end_k
// and the last split stores final_state.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "StateSpace/Vulkan/Kernels.h"
#include "StateSpace/Vulkan/SsdSteps.h"
#include "StateSpace/Vulkan/ThreadTile.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class VulkanSsdBuilder {
public:
  VulkanSsdBuilder(OpBuilder &builder, Location loc, const VulkanSsdPlan &plan,
                   const SsdBuffers &buffers, const SsdSplitBuffers &split,
                   bool statesOnly)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers),
        splitBuf(split), statesOnly(statesOnly) {}

  void build() {
    Value pBlock = WorkgroupIdOp::create(e.b, 0);
    Value y = WorkgroupIdOp::create(e.b, 1);
    head = arith::RemUIOp::create(e.b, y, e.index(p.heads));
    split = arith::DivUIOp::create(e.b, y, e.index(p.heads));
    batch = WorkgroupIdOp::create(e.b, 2);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    zero = e.index(0);
    one = e.index(1);
    p0 = e.mul(pBlock, e.index(l.blockP));
    group = e.div(head, e.index(p.headsPerGroup()));
    aHead = memref::LoadOp::create(e.b, buf.a, head);
    if (buf.dtBias)
      biasHead = memref::LoadOp::create(e.b, buf.dtBias, head);
    if (buf.d)
      skipHead = memref::LoadOp::create(e.b, buf.d, head);

    int64_t q = l.chunk;
    stateS = allocWorkgroup(e, p.state * l.blockP);
    xS = allocWorkgroup(e, q * l.blockP);
    if (!statesOnly) {
      mS = allocWorkgroup(e, q * l.mStride());
      cS = allocWorkgroup(e, q * l.bcStride());
    }
    bS = allocWorkgroup(e, q * l.bcStride());
    dtS = allocWorkgroup(e, q);
    aS = allocWorkgroup(e, q);
    wS = allocWorkgroup(e, q);
    eaS = allocWorkgroup(e, q);

    yTile.emplace(e, l.y, thread);
    stTile.emplace(e, l.state, thread);

    loadState();
    Value first = e.mul(split, e.index(l.splitChunks));
    Value last =
        e.min(e.add(first, e.index(l.splitChunks)), e.index(p.numChunks()));
    // The split's log decay, A * sum(dt), for the end-state pass.
    Value logDecay = e.forLoop(
        first, last, one, {e.constF32(0.0f)},
        [&](Value chunk, ValueRange sum) -> SmallVector<Value> {
          Value c0 = e.mul(chunk, e.index(q));
          // Whole chunks give the step loops a constant trip count, which
          // the device compiler can unroll.
          Value len = p.seq % q == 0
                          ? e.index(q)
                          : e.min(e.index(q), e.sub(e.index(p.seq), c0));
          stageChunk(c0, len);
          gpu::BarrierOp::create(e.b);
          Value aLast = decays();
          gpu::BarrierOp::create(e.b);
          if (statesOnly) {
            e.forLoop(zero, e.index(p.state), e.index(l.blockN),
                      [&](Value n0) { stateChunk(c0, len, n0, aLast, {}); });
            return {e.fadd(sum[0], aLast)};
          }
          weightScores(chunk);
          SmallVector<Value> inits(l.y.accumulators(), e.constF32(0.0f));
          SmallVector<Value> acc =
              e.forLoop(zero, e.index(p.state), e.index(l.blockN), inits,
                        [&](Value n0, ValueRange acc) {
                          return stateChunk(c0, len, n0, aLast, acc);
                        });
          outputs(c0, len, acc);
          gpu::BarrierOp::create(e.b);
          return {sum[0]};
        })[0];
    if (statesOnly) {
      storeSplitEnd(logDecay, pBlock);
      return;
    }
    if (!buf.finalState)
      return;
    if (!l.isSplit()) {
      storeState();
      return;
    }
    emitIf(e,
           arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, split,
                                 e.index(l.numSplits - 1)),
           [&] { storeState(); });
  }

private:
  Value clampRow(Value row) { return e.min(row, e.index(p.seq - 1)); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, x, y);
  }
  Value load(Value buffer, Value index) {
    return memref::LoadOp::create(e.b, buffer, index);
  }
  /// Row-major index `row * stride + col` of a staged tile.
  Value at(Value row, int64_t stride, Value col) {
    return e.add(e.mul(row, e.index(stride)), col);
  }

  /// St[n, c] = initial_state[b, h, p0 + c, n] or 0 (n fastest, as the
  /// state is laid out in memory); on a split scan, then the end states of
  /// the earlier splits carried in order, each decayed over its split.
  void loadState() {
    forEachShared(e, l.threads, thread, l.blockP * p.state, [&](Value i) {
      Value c = arith::DivUIOp::create(e.b, i, e.index(p.state));
      Value n = arith::RemUIOp::create(e.b, i, e.index(p.state));
      Value col = e.min(e.add(p0, c), e.index(p.headDim - 1));
      Value s = e.constF32(0.0f);
      if (buf.initialState && !statesOnly)
        s = memref::LoadOp::create(e.b, buf.initialState,
                                   ValueRange{batch, head, col, n});
      if (l.isSplit() && !statesOnly)
        s = e.forLoop(zero, split, one, {s}, [&](Value k, ValueRange v) {
          Value decay = e.exp(memref::LoadOp::create(
              e.b, splitBuf.logDecays, ValueRange{batch, k, head}));
          Value end = memref::LoadOp::create(
              e.b, splitBuf.endStates, ValueRange{batch, k, head, col, n});
          return SmallVector<Value>{math::FmaOp::create(e.b, decay, v[0], end)};
        })[0];
      memref::StoreOp::create(e.b, s, stateS, at(n, l.blockP, c));
    });
  }

  /// The end-state pass's results: St and (one thread of the first
  /// head_dim block) the split's log decay.
  void storeSplitEnd(Value logDecay, Value pBlock) {
    forEachShared(e, l.threads, thread, l.blockP * p.state, [&](Value i) {
      Value c = arith::DivUIOp::create(e.b, i, e.index(p.state));
      Value n = arith::RemUIOp::create(e.b, i, e.index(p.state));
      Value col = e.add(p0, c);
      emitIf(e, lt(col, e.index(p.headDim)), [&] {
        memref::StoreOp::create(e.b, load(stateS, at(n, l.blockP, c)),
                                splitBuf.endStates,
                                ValueRange{batch, split, head, col, n});
      });
    });
    Value writer = arith::AndIOp::create(
        e.b, arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, thread, zero),
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, pBlock, zero));
    emitIf(e, writer, [&] {
      memref::StoreOp::create(e.b, logDecay, splitBuf.logDecays,
                              ValueRange{batch, split, head});
    });
  }

  void storeState() {
    forEachShared(e, l.threads, thread, l.blockP * p.state, [&](Value i) {
      Value c = arith::DivUIOp::create(e.b, i, e.index(p.state));
      Value n = arith::RemUIOp::create(e.b, i, e.index(p.state));
      Value col = e.add(p0, c);
      emitIf(e, lt(col, e.index(p.headDim)), [&] {
        memref::StoreOp::create(e.b, load(stateS, at(n, l.blockP, c)),
                                buf.finalState,
                                ValueRange{batch, head, col, n});
      });
    });
  }

  /// dt (0 past the sequence) and X (0 past the sequence and head_dim).
  void stageChunk(Value c0, Value len) {
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value dt = ssdStepSize(
          e,
          e.toF32(memref::LoadOp::create(
              e.b, buf.dt, ValueRange{batch, clampRow(e.add(c0, t)), head})),
          biasHead, p.softplus);
      memref::StoreOp::create(e.b, e.select(lt(t, len), dt, e.constF32(0.0f)),
                              dtS, t);
    });
    forEachShared(e, l.threads, thread, l.chunk * l.blockP, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockP));
      Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockP));
      Value col = e.add(p0, c);
      Value valid =
          arith::AndIOp::create(e.b, lt(t, len), lt(col, e.index(p.headDim)));
      Value x = e.toF32(memref::LoadOp::create(
          e.b, buf.x,
          ValueRange{batch, clampRow(e.add(c0, t)), head,
                     e.min(col, e.index(p.headDim - 1))}));
      memref::StoreOp::create(e.b, e.select(valid, x, e.constF32(0.0f)), xS, i);
    });
  }

  /// a_t = sum_{s <= t} dt_s A, w_t = exp(a_last - a_t) dt_t and exp(a_t)
  /// to shared memory; returns a_last = a_{Q-1} (dt is 0 past the
  /// sequence), read back by every thread after a barrier rather than
  /// summed again.
  Value decays() {
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value a = e.forLoop(zero, e.add(t, one), one, {e.constF32(0.0f)},
                          [&](Value s, ValueRange sum) {
                            Value v = e.fmul(load(dtS, s), aHead);
                            return SmallVector<Value>{e.fadd(sum[0], v)};
                          })[0];
      memref::StoreOp::create(e.b, a, aS, t);
    });
    gpu::BarrierOp::create(e.b);
    Value aLast = load(aS, e.index(l.chunk - 1));
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value a = load(aS, t);
      memref::StoreOp::create(
          e.b, e.fmul(e.exp(e.fsub(aLast, a)), load(dtS, t)), wS, t);
      memref::StoreOp::create(e.b, e.exp(a), eaS, t);
    });
    return aLast;
  }

  /// One n-chunk [n0, n0 + block_n): stage its C and B columns, accumulate
  /// C St, then update the state rows. Returns the accumulators.
  SmallVector<Value> stateChunk(Value c0, Value len, Value n0, Value aLast,
                                ValueRange acc) {
    int64_t stride = l.bcStride();
    forEachShared(e, l.threads, thread, l.chunk * l.blockN, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockN));
      Value j = arith::RemUIOp::create(e.b, i, e.index(l.blockN));
      Value row = clampRow(e.add(c0, t));
      Value n = e.add(n0, j);
      for (auto [source, stage] : {std::pair(buf.c, cS), std::pair(buf.b, bS)})
        if (stage)
          memref::StoreOp::create(
              e.b,
              e.toF32(memref::LoadOp::create(e.b, source,
                                             ValueRange{batch, row, group, n})),
              stage, at(t, stride, j));
    });
    gpu::BarrierOp::create(e.b);
    if (statesOnly) {
      updateState(len, n0, aLast);
      gpu::BarrierOp::create(e.b);
      return {};
    }

    const ThreadTile &y = *yTile;
    int64_t yCols = l.y.colsPerThread;
    SmallVector<Value> next = e.forLoop(
        zero, e.index(l.blockN), one, acc, [&](Value j, ValueRange a) {
          SmallVector<Value> out(a.begin(), a.end()), sv;
          for (Value c : y.cols)
            sv.push_back(load(stateS, at(e.add(n0, j), l.blockP, c)));
          for (auto [i, t] : llvm::enumerate(y.rows)) {
            Value cv = load(cS, at(t, stride, j));
            for (int64_t k = 0; k < yCols; ++k)
              out[i * yCols + k] =
                  math::FmaOp::create(e.b, cv, sv[k], out[i * yCols + k]);
          }
          return out;
        });
    gpu::BarrierOp::create(e.b);
    updateState(len, n0, aLast);
    gpu::BarrierOp::create(e.b);
    return next;
  }

  /// St[n0 + r, c] = exp(a_last) St + sum_{s < len} B[s, r] w_s X[s, c].
  void updateState(Value len, Value n0, Value aLast) {
    const ThreadTile &st = *stTile;
    int64_t cols = l.state.colsPerThread;
    Value decay = e.exp(aLast);
    SmallVector<Value> inits;
    for (Value r : st.rows)
      for (Value c : st.cols)
        inits.push_back(
            e.fmul(decay, load(stateS, at(e.add(n0, r), l.blockP, c))));
    SmallVector<Value> acc =
        e.forLoop(zero, len, one, inits, [&](Value s, ValueRange a) {
          Value w = load(wS, s);
          SmallVector<Value> xv, out(a.begin(), a.end());
          for (Value c : st.cols)
            xv.push_back(load(xS, at(s, l.blockP, c)));
          for (auto [i, r] : llvm::enumerate(st.rows)) {
            Value bw = e.fmul(load(bS, at(s, l.bcStride(), r)), w);
            for (int64_t k = 0; k < cols; ++k)
              out[i * cols + k] =
                  math::FmaOp::create(e.b, bw, xv[k], out[i * cols + k]);
          }
          return out;
        });
    for (auto [i, r] : llvm::enumerate(st.rows))
      for (auto [k, c] : llvm::enumerate(st.cols)) {
        auto store = [&, i = i, k = k, r = r, c = c] {
          memref::StoreOp::create(e.b, acc[i * cols + k], stateS,
                                  at(e.add(n0, r), l.blockP, c));
        };
        if (Value inside = st.inside(e, i, k))
          emitIf(e, inside, store);
        else
          store();
      }
  }

  /// M[t, s] = CB[t, s] exp(a_t - a_s) dt_s for s <= t, else 0, from the
  /// pre-pass's scores of this chunk.
  void weightScores(Value chunk) {
    forEachShared(e, l.threads, thread, l.chunk * l.chunk, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.chunk));
      Value s = arith::RemUIOp::create(e.b, i, e.index(l.chunk));
      Value cb = memref::LoadOp::create(e.b, buf.scores,
                                        ValueRange{batch, group, chunk, t, s});
      Value m = e.fmul(e.fmul(cb, e.exp(e.fsub(load(aS, t), load(aS, s)))),
                       load(dtS, s));
      Value causal =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, s, t);
      memref::StoreOp::create(e.b, e.select(causal, m, e.constF32(0.0f)), mS,
                              at(t, l.mStride(), s));
    });
  }

  /// Y = exp(a_t) (C St) + M X, then the D skip, the gate and the store.
  void outputs(Value c0, Value len, ArrayRef<Value> yAcc) {
    const ThreadTile &y = *yTile;
    int64_t rows = l.y.rowsPerThread, cols = l.y.colsPerThread;
    SmallVector<Value> inits;
    for (auto [i, t] : llvm::enumerate(y.rows)) {
      Value scale = load(eaS, t);
      for (int64_t k = 0; k < cols; ++k)
        inits.push_back(e.fmul(yAcc[i * cols + k], scale));
    }
    // M is 0 above the diagonal: stop after this thread's last row.
    Value end = e.min(e.index(l.chunk), e.add(y.rowStart, e.index(rows)));
    SmallVector<Value> acc =
        e.forLoop(zero, end, one, inits, [&](Value s, ValueRange a) {
          SmallVector<Value> xv, out(a.begin(), a.end());
          for (Value c : y.cols)
            xv.push_back(load(xS, at(s, l.blockP, c)));
          for (auto [i, t] : llvm::enumerate(y.rows)) {
            Value m = load(mS, at(t, l.mStride(), s));
            for (int64_t k = 0; k < cols; ++k)
              out[i * cols + k] =
                  math::FmaOp::create(e.b, m, xv[k], out[i * cols + k]);
          }
          return out;
        });
    Type outType = cast<MemRefType>(buf.y.getType()).getElementType();
    for (auto [i, t] : llvm::enumerate(y.rows))
      for (auto [k, c] : llvm::enumerate(y.cols)) {
        Value col = e.add(p0, c);
        Value inside =
            arith::AndIOp::create(e.b, lt(e.add(y.rowStart, e.index(i)), len),
                                  lt(col, e.index(p.headDim)));
        if (Value inTile = y.inside(e, i, k))
          inside = arith::AndIOp::create(e.b, inside, inTile);
        Value value = acc[i * cols + k];
        emitIf(e, inside, [&, t = t, c = c] {
          Value out = value;
          if (skipHead)
            out = math::FmaOp::create(e.b, skipHead,
                                      load(xS, at(t, l.blockP, c)), out);
          Value row = e.add(c0, t);
          if (buf.z) {
            Value z = e.toF32(memref::LoadOp::create(
                e.b, buf.z, ValueRange{batch, row, head, col}));
            out = ssdGate(e, out, z);
          }
          memref::StoreOp::create(e.b, e.fromF32(out, outType), buf.y,
                                  ValueRange{batch, row, head, col});
        });
      }
  }

  Emitter e;
  const VulkanSsdPlan &p;
  const VulkanSsdLayout &l;
  const SsdBuffers &buf;
  const SsdSplitBuffers &splitBuf;
  /// The end-state pass of a split SSD (no C, M or outputs).
  bool statesOnly;
  Value split, head, batch, thread, zero, one, p0, group, aHead, biasHead,
      skipHead;
  Value stateS, xS, mS, cS, bS, dtS, aS, wS, eaS;
  std::optional<ThreadTile> yTile, stTile;
};

/// CB[t, s] = C_t . B_s of one chunk, on the `cb` tile over n-chunks of
/// staged C and B.
void buildScores(Emitter &e, const VulkanSsdPlan &p, Value bBuffer,
                 Value cBuffer, Value scores) {
  const VulkanSsdLayout &l = p.layout;
  Value chunk = WorkgroupIdOp::create(e.b, 0);
  Value group = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  Value zero = e.index(0), one = e.index(1);
  int64_t stride = l.bcStride();
  Value cS = allocWorkgroup(e, l.chunk * stride);
  Value bS = allocWorkgroup(e, l.chunk * stride);
  ThreadTile cb(e, l.cb, thread);
  Value c0 = e.mul(chunk, e.index(l.chunk));
  int64_t cols = l.cb.colsPerThread;
  auto at = [&](Value row, Value col) {
    return e.add(e.mul(row, e.index(stride)), col);
  };
  SmallVector<Value> inits(l.cb.accumulators(), e.constF32(0.0f));
  SmallVector<Value> acc = e.forLoop(
      zero, e.index(p.state), e.index(l.blockN), inits,
      [&](Value n0, ValueRange acc) {
        forEachShared(e, l.threads, thread, l.chunk * l.blockN, [&](Value i) {
          Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockN));
          Value j = arith::RemUIOp::create(e.b, i, e.index(l.blockN));
          Value row = e.min(e.add(c0, t), e.index(p.seq - 1));
          for (auto [source, stage] :
               {std::pair(cBuffer, cS), std::pair(bBuffer, bS)})
            memref::StoreOp::create(
                e.b,
                e.toF32(memref::LoadOp::create(
                    e.b, source, ValueRange{batch, row, group, e.add(n0, j)})),
                stage, at(t, j));
        });
        gpu::BarrierOp::create(e.b);
        SmallVector<Value> next = e.forLoop(
            zero, e.index(l.blockN), one, acc, [&](Value j, ValueRange a) {
              SmallVector<Value> out(a.begin(), a.end()), bv;
              for (Value s : cb.cols)
                bv.push_back(memref::LoadOp::create(e.b, bS, at(s, j)));
              for (auto [i, t] : llvm::enumerate(cb.rows)) {
                Value cv = memref::LoadOp::create(e.b, cS, at(t, j));
                for (int64_t k = 0; k < cols; ++k)
                  out[i * cols + k] =
                      math::FmaOp::create(e.b, cv, bv[k], out[i * cols + k]);
              }
              return out;
            });
        gpu::BarrierOp::create(e.b);
        return next;
      });
  for (auto [i, t] : llvm::enumerate(cb.rows))
    for (auto [k, s] : llvm::enumerate(cb.cols)) {
      auto store = [&, i = i, k = k, t = t, s = s] {
        memref::StoreOp::create(e.b, acc[i * cols + k], scores,
                                ValueRange{batch, group, chunk, t, s});
      };
      if (Value inside = cb.inside(e, i, k))
        emitIf(e, inside, store);
      else
        store();
    }
}

} // namespace

void mlir::ejk::buildVulkanSsdScoresBody(OpBuilder &builder, Location loc,
                                         const VulkanSsdPlan &plan,
                                         Value bBuffer, Value cBuffer,
                                         Value scores) {
  Emitter e(builder, loc, 1);
  buildScores(e, plan, bBuffer, cBuffer, scores);
}

void mlir::ejk::buildVulkanSsdBody(OpBuilder &builder, Location loc,
                                   const VulkanSsdPlan &plan,
                                   const SsdBuffers &buffers,
                                   const SsdSplitBuffers &split) {
  VulkanSsdBuilder(builder, loc, plan, buffers, split, /*statesOnly=*/false)
      .build();
}

void mlir::ejk::buildVulkanSsdStatesBody(OpBuilder &builder, Location loc,
                                         const VulkanSsdPlan &plan,
                                         const SsdBuffers &buffers,
                                         const SsdSplitBuffers &split) {
  VulkanSsdBuilder(builder, loc, plan, buffers, split, /*statesOnly=*/true)
      .build();
}
