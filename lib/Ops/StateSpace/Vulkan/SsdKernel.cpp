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

#include "StateSpace/Vulkan/SsdWorkgroup.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class VulkanSsdBuilder : SsdWorkgroup {
public:
  VulkanSsdBuilder(OpBuilder &builder, Location loc, const VulkanSsdPlan &plan,
                   const SsdBuffers &buffers, const SsdSplitBuffers &split,
                   bool statesOnly)
      : SsdWorkgroup(builder, loc, plan, buffers), splitBuf(split),
        statesOnly(statesOnly) {}

  void build() {
    split = locate();
    loadHeadParams();
    loadSkip();

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
    Value numChunks = e.index(p.numChunks());
    Value last = e.min(e.add(first, e.index(l.splitChunks)), numChunks);
    // The split's log decay, A * sum(dt), for the end-state pass.
    Value logDecay = e.forLoop(
        first, last, one, {e.constF32(0.0f)},
        [&](Value chunk, ValueRange sum) -> SmallVector<Value> {
          Value c0 = e.mul(chunk, e.index(q));
          Value len = chunkLength(c0);
          stageStepSizes(c0, len);
          stageX(c0, len);
          gpu::BarrierOp::create(e.b);
          Value aLast = decays();
          gpu::BarrierOp::create(e.b);
          if (statesOnly) {
            Value blockN = e.index(l.blockN);
            e.forLoop(zero, e.index(p.state), blockN,
                      [&](Value n0) { stateChunk(c0, len, n0, aLast, {}); });
            return {e.fadd(sum[0], aLast)};
          }
          weightScores(chunk, mS);
          SmallVector<Value> inits(l.y.accumulators(), e.constF32(0.0f));
          Value blockN = e.index(l.blockN);
          SmallVector<Value> acc =
              e.forLoop(zero, e.index(p.state), blockN, inits,
                        [&](Value n0, ValueRange acc) {
                          return stateChunk(c0, len, n0, aLast, acc);
                        });
          outputs(*yTile, c0, len, mS, acc);
          gpu::BarrierOp::create(e.b);
          return {sum[0]};
        })[0];
    if (statesOnly) {
      storeStateTo(splitBuf.endStates, split);
      storeFromFirstThread(logDecay, splitBuf.logDecays,
                           ValueRange{batch, split, head});
      return;
    }
    if (!buf.finalState)
      return;
    if (!l.isSplit()) {
      storeStateTo(buf.finalState, {});
      return;
    }
    emitIf(e,
           arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, split,
                                 e.index(l.numSplits - 1)),
           [&] { storeStateTo(buf.finalState, {}); });
  }

private:
  /// St[n, c] = initial_state[b, h, p0 + c, n] or 0 (n fastest, as the
  /// state is laid out in memory); on a split scan, then the end states of
  /// the earlier splits carried in order, each decayed over its split.
  void loadState() {
    forEachShared(e, l.threads, thread, l.blockP * p.state, [&](Value i) {
      Value c = arith::DivUIOp::create(e.b, i, e.index(p.state));
      Value n = arith::RemUIOp::create(e.b, i, e.index(p.state));
      Value lastColumn = e.index(p.headDim - 1);
      Value col = e.min(e.add(p0, c), lastColumn);
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

  /// St to `target`: the final state, or (`splitIndex` given) the split's
  /// entry of the end states.
  void storeStateTo(Value target, Value splitIndex) {
    forEachShared(e, l.threads, thread, l.blockP * p.state, [&](Value i) {
      Value c = arith::DivUIOp::create(e.b, i, e.index(p.state));
      Value n = arith::RemUIOp::create(e.b, i, e.index(p.state));
      Value col = e.add(p0, c);
      SmallVector<Value> indices = {batch, head, col, n};
      if (splitIndex)
        indices.insert(indices.begin() + 1, splitIndex);
      emitIf(e, lt(col, e.index(p.headDim)), [&] {
        memref::StoreOp::create(e.b, load(stateS, at(n, l.blockP, c)), target,
                                indices);
      });
    });
  }

  /// a_t = sum_{s <= t} dt_s A, w_t = exp(a_last - a_t) dt_t and exp(a_t)
  /// to shared memory; returns a_last = a_{Q-1} (dt is 0 past the
  /// sequence), read back by every thread after a barrier rather than
  /// summed again.
  Value decays() {
    stageCumulativeDecays();
    gpu::BarrierOp::create(e.b);
    Value aLast = load(aS, e.index(l.chunk - 1));
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value a = load(aS, t);
      Value dt = load(dtS, t);
      memref::StoreOp::create(e.b, e.fmul(e.exp(e.fsub(aLast, a)), dt), wS, t);
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
        if (stage) {
          Value index = at(t, stride, j);
          memref::StoreOp::create(
              e.b,
              e.toF32(memref::LoadOp::create(e.b, source,
                                             ValueRange{batch, row, group, n})),
              stage, index);
        }
    });
    gpu::BarrierOp::create(e.b);
    if (statesOnly) {
      updateState(len, n0, aLast);
      gpu::BarrierOp::create(e.b);
      return {};
    }

    SmallVector<Value> next = e.forLoop(
        zero, e.index(l.blockN), one, acc, [&](Value j, ValueRange a) {
          SmallVector<Value> sv;
          for (Value c : yTile->cols)
            sv.push_back(load(stateS, at(e.add(n0, j), l.blockP, c)));
          return accumulateCS(*yTile, a, sv, cS, stride, j);
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

  const SsdSplitBuffers &splitBuf;
  /// The end-state pass of a split SSD (no C, M or outputs).
  bool statesOnly;
  Value split;
  Value stateS, mS, cS, bS, wS;
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
  Value blockN = e.index(l.blockN);
  SmallVector<Value> acc = e.forLoop(
      zero, e.index(p.state), blockN, inits, [&](Value n0, ValueRange acc) {
        forEachShared(e, l.threads, thread, l.chunk * l.blockN, [&](Value i) {
          Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockN));
          Value j = arith::RemUIOp::create(e.b, i, e.index(l.blockN));
          Value lastRow = e.index(p.seq - 1);
          Value row = e.min(e.add(c0, t), lastRow);
          for (auto [source, stage] :
               {std::pair(cBuffer, cS), std::pair(bBuffer, bS)}) {
            Value index = at(t, j);
            memref::StoreOp::create(
                e.b,
                e.toF32(memref::LoadOp::create(
                    e.b, source, ValueRange{batch, row, group, e.add(n0, j)})),
                stage, index);
          }
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
