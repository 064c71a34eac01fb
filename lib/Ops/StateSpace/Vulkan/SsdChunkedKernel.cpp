//===- SsdChunkedKernel.cpp - Mamba-2 SSD, chunks in parallel, Vulkan -----===//
//
// The SSD as the Mamba-2 kernels run it, parallel over chunks
// (`chunk_parallel = 1`). Besides the C B^T scores pre-pass
// (SsdKernel.cpp's), three dispatches:
//
// 1. chunk states (workgroup = head_dim block, chunk x head, batch row):
//      dt_t (0 past the sequence), a_t = cumsum(dt A[h]),
//      w_s = exp(a_last - a_s) dt_s;
//      dS[p, n] = sum_s (w_s X[s, p]) B[s, n]    (`chunkState` tile, X and B
//                                                 staged `stateSteps` steps
//                                                 at a time)
//    into the chunk's entry of the states temporary, and a_last (the
//    chunk's log decay).
// 2. state pass (one thread per (p, n) of a head): in chunk order,
//      entry_c = S;  S = exp(a_last_c) S + dS_c
//    from initial_state (or 0): each entry becomes the state before its
//    chunk; S after the last chunk is final_state.
// 3. chunk outputs (workgroup as in 1): with M[t, s] = CB[t, s]
//    exp(a_t - a_s) dt_s (s <= t),
//      Y = exp(a_t) C S_prev^T + M X;  y = (Y + D x) silu(z)
//    C S_prev^T on the `y` tile over n-chunks of block_n staged states.
//
// Every chunk's work runs at once; only the pass (a multiply-add per chunk
// and state entry) is sequential.
//
// Here the f32 SIMT chunk states and outputs and the pass; the f16
// cooperative-matrix chunk states and outputs are in SsdCoopKernel.cpp, what
// all the SSD kernels stage alike in SsdWorkgroup.h.
//
//===----------------------------------------------------------------------===//

#include "StateSpace/Vulkan/SsdWorkgroup.h"

using namespace mlir;
using namespace mlir::ejk;

/// Chunks whose states a thread of the pass loads at once (registers).
static constexpr int64_t kPassBatch = 16;

namespace {

/// The two per-chunk dispatches (states, outputs) on f32 register tiles:
/// one workgroup per head_dim block, chunk, head and batch row.
class ChunkBuilder : SsdChunkWorkgroup {
public:
  ChunkBuilder(OpBuilder &builder, Location loc, const VulkanSsdPlan &plan,
               const SsdBuffers &buffers, const SsdChunkBuffers &temps)
      : SsdChunkWorkgroup(builder, loc, plan, buffers, temps) {}

  void buildStates() {
    begin();
    dtS = allocWorkgroup(e, l.chunk);
    aS = allocWorkgroup(e, l.chunk);
    Value wS = allocWorkgroup(e, l.chunk);
    Value xwS = allocWorkgroup(e, l.stateSteps * l.blockP);
    Value bS = allocWorkgroup(e, l.stateSteps * p.state);
    ThreadTile st(e, l.chunkState, thread);

    stageDecays();
    Value aLast = stageStepWeights(wS);

    // X and B of `stateSteps` steps from s0, fetched into registers one
    // round ahead of the round that multiplies them.
    auto fetchRound = [&](Value s0) {
      SmallVector<Value> v =
          fetch(l.stateSteps, l.blockP, [&](Value s, Value c) {
            Value row = clampRow(e.add(c0, e.add(s0, s)));
            Value lastColumn = e.index(p.headDim - 1);
            Value column = e.min(e.add(p0, c), lastColumn);
            return e.toF32(memref::LoadOp::create(
                e.b, buf.x, ValueRange{batch, row, head, column}));
          });
      SmallVector<Value> bv =
          fetch(l.stateSteps, p.state, [&](Value s, Value n) {
            return e.toF32(memref::LoadOp::create(
                e.b, buf.b,
                ValueRange{batch, clampRow(e.add(c0, e.add(s0, s))), group,
                           n}));
          });
      v.append(bv.begin(), bv.end());
      return v;
    };
    int64_t xCount = fetchCount(l.stateSteps * l.blockP);
    int64_t cols = l.chunkState.colsPerThread;
    SmallVector<Value> acc = pipelinedRounds(
        l.chunk, l.stateSteps, l.chunkState.accumulators(), fetchRound,
        [&](Value s0, ValueRange fetched) {
          // X w (0 past the sequence and head_dim) and B to shared memory.
          stage(fetched.take_front(xCount), l.stateSteps, l.blockP, xwS,
                l.blockP, [&](Value s, Value c, Value x) {
                  Value step = e.add(s0, s);
                  Value headDim = e.index(p.headDim);
                  Value colInside = lt(e.add(p0, c), headDim);
                  Value valid =
                      arith::AndIOp::create(e.b, lt(step, len), colInside);
                  Value outside = e.constF32(0.0f);
                  return e.select(valid, e.fmul(x, load(wS, step)), outside);
                });
          stage(fetched.drop_front(xCount), l.stateSteps, p.state, bS, p.state,
                {});
        },
        [&](Value s, ValueRange a) {
          SmallVector<Value> out(a.begin(), a.end()), xv;
          for (Value r : st.rows)
            xv.push_back(load(xwS, at(s, l.blockP, r)));
          for (auto [k, c] : llvm::enumerate(st.cols)) {
            Value bv = load(bS, at(s, p.state, c));
            for (int64_t i = 0; i < l.chunkState.rowsPerThread; ++i)
              out[i * cols + k] =
                  math::FmaOp::create(e.b, xv[i], bv, out[i * cols + k]);
          }
          return out;
        });

    for (auto [i, r] : llvm::enumerate(st.rows))
      for (auto [k, n] : llvm::enumerate(st.cols)) {
        Value col = e.add(p0, r);
        Value inside = lt(col, e.index(p.headDim));
        if (Value inTile = st.inside(e, i, k))
          inside = arith::AndIOp::create(e.b, inside, inTile);
        Value value = acc[i * cols + k];
        emitIf(e, inside, [&, n = n] {
          memref::StoreOp::create(e.b, value, temps.states,
                                  ValueRange{batch, chunk, head, col, n});
        });
      }
    storeLogDecay(aLast);
  }

  void buildOutputs() {
    begin();
    loadSkip();
    int64_t stride = l.bcStride();
    xS = allocWorkgroup(e, l.chunk * l.blockP);
    Value mS = allocWorkgroup(e, l.chunk * l.mStride());
    Value cS = allocWorkgroup(e, l.chunk * stride);
    Value sS = allocWorkgroup(e, l.blockP * stride);
    dtS = allocWorkgroup(e, l.chunk);
    aS = allocWorkgroup(e, l.chunk);
    eaS = allocWorkgroup(e, l.chunk);
    ThreadTile y(e, l.y, thread);

    stageX(c0, len);
    stageDecays();
    weightScores(chunk, mS);
    stageExpDecays();
    // M and exp(a) are read after the first n-chunk's barrier.

    // C and the state before the chunk, n-chunks of block_n, fetched into
    // registers one n-chunk ahead of the one they multiply.
    auto fetchRound = [&](Value n0) {
      SmallVector<Value> v = fetch(l.chunk, l.blockN, [&](Value t, Value j) {
        return e.toF32(memref::LoadOp::create(
            e.b, buf.c,
            ValueRange{batch, clampRow(e.add(c0, t)), group, e.add(n0, j)}));
      });
      SmallVector<Value> sv = fetch(l.blockP, l.blockN, [&](Value c, Value j) {
        Value lastColumn = e.index(p.headDim - 1);
        Value column = e.min(e.add(p0, c), lastColumn);
        return memref::LoadOp::create(
            e.b, temps.states,
            ValueRange{batch, chunk, head, column, e.add(n0, j)});
      });
      v.append(sv.begin(), sv.end());
      return v;
    };
    int64_t cCount = fetchCount(l.chunk * l.blockN);
    SmallVector<Value> acc = pipelinedRounds(
        p.state, l.blockN, l.y.accumulators(), fetchRound,
        [&](Value, ValueRange fetched) {
          stage(fetched.take_front(cCount), l.chunk, l.blockN, cS, stride, {});
          stage(fetched.drop_front(cCount), l.blockP, l.blockN, sS, stride, {});
        },
        [&](Value j, ValueRange a) {
          SmallVector<Value> sv;
          for (Value c : y.cols)
            sv.push_back(load(sS, at(c, stride, j)));
          return accumulateCS(y, a, sv, cS, stride, j);
        });
    outputs(y, c0, len, mS, acc);
  }

private:
  /// Rounds [start, start + step) of [0, end) with `accCount` f32
  /// accumulators (from 0): each round's values, fetched into registers
  /// (`fetchRound(start)`) during the round before, are staged
  /// (`stageRound(start, values)`) and, after a barrier, multiplied
  /// (`accumulate(j, acc)` for j in [0, step)); a barrier ends the round.
  /// Returns the accumulators.
  SmallVector<Value> pipelinedRounds(
      int64_t end, int64_t step, int64_t accCount,
      function_ref<SmallVector<Value>(Value)> fetchRound,
      function_ref<void(Value, ValueRange)> stageRound,
      function_ref<SmallVector<Value>(Value, ValueRange)> accumulate) {
    SmallVector<Value> inits(accCount, e.constF32(0.0f));
    SmallVector<Value> first = fetchRound(zero);
    inits.append(first.begin(), first.end());
    Value stepValue = e.index(step);
    SmallVector<Value> acc = e.forLoop(
        zero, e.index(end), stepValue, inits,
        [&](Value start, ValueRange args) {
          stageRound(start, args.drop_front(accCount));
          gpu::BarrierOp::create(e.b);
          Value lastStart = e.index(end - step);
          SmallVector<Value> ahead =
              fetchRound(e.min(e.add(start, e.index(step)), lastStart));
          SmallVector<Value> next = e.forLoop(
              zero, e.index(step), one, args.take_front(accCount), accumulate);
          gpu::BarrierOp::create(e.b);
          next.append(ahead.begin(), ahead.end());
          return next;
        });
    acc.resize(accCount);
    return acc;
  }

  RoundElements round() { return RoundElements{e, l.threads, thread}; }
  int64_t fetchCount(int64_t total) { return round().count(total); }
  SmallVector<Value> fetch(int64_t rows, int64_t cols,
                           function_ref<Value(Value, Value)> value) {
    return round().fetch(rows, cols, value);
  }
  /// Stores `values` (from `fetch`) to `buffer[row * stride + col]`, each
  /// through `finish(row, col, value)` when given.
  void stage(ValueRange values, int64_t rows, int64_t cols, Value buffer,
             int64_t stride, function_ref<Value(Value, Value, Value)> finish) {
    round().forEach(
        rows, cols,
        [&](int64_t k, Value r, Value c) {
          return finish ? finish(r, c, values[k]) : values[k];
        },
        [&](Value r, Value c, Value value) {
          memref::StoreOp::create(e.b, value, buffer, at(r, stride, c));
        });
  }
};

} // namespace

void mlir::ejk::buildVulkanSsdChunkStatesBody(OpBuilder &b, Location loc,
                                              const VulkanSsdPlan &plan,
                                              const SsdBuffers &buffers,
                                              const SsdChunkBuffers &chunks) {
  ChunkBuilder(b, loc, plan, buffers, chunks).buildStates();
}

void mlir::ejk::buildVulkanSsdChunkOutputsBody(OpBuilder &b, Location loc,
                                               const VulkanSsdPlan &plan,
                                               const SsdBuffers &buffers,
                                               const SsdChunkBuffers &chunks) {
  ChunkBuilder(b, loc, plan, buffers, chunks).buildOutputs();
}

void mlir::ejk::buildVulkanSsdStatePassBody(OpBuilder &builder, Location loc,
                                            const VulkanSsdPlan &plan,
                                            Value initialState,
                                            Value finalState,
                                            const SsdChunkBuffers &chunks) {
  Emitter e(builder, loc, 1);
  Value block = WorkgroupIdOp::create(e.b, 0);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  Value i = e.add(e.mul(block, e.index(plan.layout.passThreads)), thread);
  Value inside = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, i,
                                       e.index(plan.headDim * plan.state));
  emitIf(e, inside, [&] {
    Value pIdx = arith::DivUIOp::create(e.b, i, e.index(plan.state));
    Value n = arith::RemUIOp::create(e.b, i, e.index(plan.state));
    Value s = e.constF32(0.0f);
    if (initialState)
      s = memref::LoadOp::create(e.b, initialState,
                                 ValueRange{batch, head, pIdx, n});
    // Batches of chunks: a batch's loads are all issued before its first
    // store, so a thread waits for memory once per batch, not per chunk
    // (the load of chunk c + 1 would otherwise wait behind the store to
    // chunk c of the same buffer).
    int64_t chunkCount = plan.numChunks();
    int64_t batchSize = std::min(chunkCount, kPassBatch);
    auto passBatch = [&](Value c0, int64_t count, Value state) {
      SmallVector<Value> own, decay;
      for (int64_t k = 0; k < count; ++k) {
        Value c = e.add(c0, e.index(k));
        own.push_back(memref::LoadOp::create(
            e.b, chunks.states, ValueRange{batch, c, head, pIdx, n}));
        decay.push_back(e.exp(memref::LoadOp::create(
            e.b, chunks.logDecays, ValueRange{batch, c, head})));
      }
      for (int64_t k = 0; k < count; ++k) {
        Value c = e.add(c0, e.index(k));
        memref::StoreOp::create(e.b, state, chunks.states,
                                ValueRange{batch, c, head, pIdx, n});
        state = math::FmaOp::create(e.b, decay[k], state, own[k]);
      }
      return state;
    };
    int64_t whole = chunkCount / batchSize * batchSize;
    Value batchStep = e.index(batchSize);
    Value wholeEnd = e.index(whole);
    s = e.forLoop(e.index(0), wholeEnd, batchStep, {s},
                  [&](Value c0, ValueRange v) {
                    return SmallVector<Value>{passBatch(c0, batchSize, v[0])};
                  })[0];
    if (whole < chunkCount)
      s = passBatch(e.index(whole), chunkCount - whole, s);
    if (finalState)
      memref::StoreOp::create(e.b, s, finalState,
                              ValueRange{batch, head, pIdx, n});
  });
}
