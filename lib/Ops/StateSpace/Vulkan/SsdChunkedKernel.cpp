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
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "Common/VulkanMatrices.h"
#include "StateSpace/Vulkan/Kernels.h"
#include "StateSpace/Vulkan/SsdSteps.h"
#include "StateSpace/Vulkan/ThreadTile.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

/// Chunks whose states a thread of the pass loads at once (registers).
static constexpr int64_t kPassBatch = 16;

namespace {

/// The two per-chunk dispatches (states, outputs): one workgroup per
/// head_dim block, chunk, head and batch row.
class ChunkBuilder {
public:
  ChunkBuilder(OpBuilder &builder, Location loc, const VulkanSsdPlan &plan,
               const SsdBuffers &buffers, const SsdChunkBuffers &temps)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers),
        temps(temps) {}

  void buildStates() {
    begin();
    dtS = allocWorkgroup(e, l.chunk);
    aS = allocWorkgroup(e, l.chunk);
    Value wS = allocWorkgroup(e, l.chunk);
    Value xS = allocWorkgroup(e, l.stateSteps * l.blockP);
    Value bS = allocWorkgroup(e, l.stateSteps * p.state);
    ThreadTile st(e, l.chunkState, thread);

    stageDecays();
    Value aLast = load(aS, e.index(l.chunk - 1));
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value w = e.fmul(e.exp(e.fsub(aLast, load(aS, t))), load(dtS, t));
      memref::StoreOp::create(e.b, w, wS, t);
    });
    gpu::BarrierOp::create(e.b);

    // X and B of `stateSteps` steps from s0, fetched into registers one
    // round ahead of the round that multiplies them.
    auto fetchRound = [&](Value s0) {
      SmallVector<Value> v =
          fetch(l.stateSteps, l.blockP, [&](Value s, Value c) {
            return e.toF32(memref::LoadOp::create(
                e.b, buf.x,
                ValueRange{batch, clampRow(e.add(c0, e.add(s0, s))), head,
                           e.min(e.add(p0, c), e.index(p.headDim - 1))}));
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
    int64_t accCount = l.chunkState.accumulators();
    SmallVector<Value> inits(accCount, e.constF32(0.0f));
    SmallVector<Value> first = fetchRound(zero);
    inits.append(first.begin(), first.end());
    SmallVector<Value> acc = e.forLoop(
        zero, e.index(l.chunk), e.index(l.stateSteps), inits,
        [&](Value s0, ValueRange args) {
          ValueRange fetched = args.drop_front(accCount);
          // X w (0 past the sequence and head_dim) and B to shared memory.
          stage(fetched.take_front(xCount), l.stateSteps, l.blockP, xS,
                l.blockP, [&](Value s, Value c, Value x) {
                  Value step = e.add(s0, s);
                  Value valid = arith::AndIOp::create(
                      e.b, lt(step, len), lt(e.add(p0, c), e.index(p.headDim)));
                  return e.select(valid, e.fmul(x, load(wS, step)),
                                  e.constF32(0.0f));
                });
          stage(fetched.drop_front(xCount), l.stateSteps, p.state, bS, p.state,
                {});
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> ahead =
              fetchRound(e.min(e.add(s0, e.index(l.stateSteps)),
                               e.index(l.chunk - l.stateSteps)));
          SmallVector<Value> next = e.forLoop(
              zero, e.index(l.stateSteps), one, args.take_front(accCount),
              [&](Value s, ValueRange a) {
                SmallVector<Value> out(a.begin(), a.end()), xv;
                for (Value r : st.rows)
                  xv.push_back(load(xS, at(s, l.blockP, r)));
                for (auto [k, c] : llvm::enumerate(st.cols)) {
                  Value bv = load(bS, at(s, p.state, c));
                  for (int64_t i = 0; i < l.chunkState.rowsPerThread; ++i)
                    out[i * cols + k] =
                        math::FmaOp::create(e.b, xv[i], bv, out[i * cols + k]);
                }
                return out;
              });
          gpu::BarrierOp::create(e.b);
          next.append(ahead.begin(), ahead.end());
          return next;
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
    Value writer = arith::AndIOp::create(
        e.b, arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, thread, zero),
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, pBlock, zero));
    emitIf(e, writer, [&] {
      memref::StoreOp::create(e.b, aLast, temps.logDecays,
                              ValueRange{batch, chunk, head});
    });
  }

  void buildOutputs() {
    begin();
    if (buf.d)
      skipHead = memref::LoadOp::create(e.b, buf.d, head);
    int64_t stride = l.bcStride();
    xS = allocWorkgroup(e, l.chunk * l.blockP);
    Value mS = allocWorkgroup(e, l.chunk * l.mStride());
    Value cS = allocWorkgroup(e, l.chunk * stride);
    Value sS = allocWorkgroup(e, l.blockP * stride);
    dtS = allocWorkgroup(e, l.chunk);
    aS = allocWorkgroup(e, l.chunk);
    eaS = allocWorkgroup(e, l.chunk);
    ThreadTile y(e, l.y, thread);

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
    stageDecays();
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
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      memref::StoreOp::create(e.b, e.exp(load(aS, t)), eaS, t);
    });
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
        return memref::LoadOp::create(
            e.b, temps.states,
            ValueRange{batch, chunk, head,
                       e.min(e.add(p0, c), e.index(p.headDim - 1)),
                       e.add(n0, j)});
      });
      v.append(sv.begin(), sv.end());
      return v;
    };
    int64_t cCount = fetchCount(l.chunk * l.blockN);
    int64_t cols = l.y.colsPerThread;
    int64_t accCount = l.y.accumulators();
    SmallVector<Value> inits(accCount, e.constF32(0.0f));
    SmallVector<Value> first = fetchRound(zero);
    inits.append(first.begin(), first.end());
    SmallVector<Value> acc = e.forLoop(
        zero, e.index(p.state), e.index(l.blockN), inits,
        [&](Value n0, ValueRange args) {
          ValueRange fetched = args.drop_front(accCount);
          stage(fetched.take_front(cCount), l.chunk, l.blockN, cS, stride, {});
          stage(fetched.drop_front(cCount), l.blockP, l.blockN, sS, stride, {});
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> ahead = fetchRound(
              e.min(e.add(n0, e.index(l.blockN)), e.index(p.state - l.blockN)));
          SmallVector<Value> next =
              e.forLoop(zero, e.index(l.blockN), one, args.take_front(accCount),
                        [&](Value j, ValueRange a) {
                          SmallVector<Value> out(a.begin(), a.end()), sv;
                          for (Value c : y.cols)
                            sv.push_back(load(sS, at(c, stride, j)));
                          for (auto [i, t] : llvm::enumerate(y.rows)) {
                            Value cv = load(cS, at(t, stride, j));
                            for (int64_t k = 0; k < cols; ++k)
                              out[i * cols + k] = math::FmaOp::create(
                                  e.b, cv, sv[k], out[i * cols + k]);
                          }
                          return out;
                        });
          gpu::BarrierOp::create(e.b);
          next.append(ahead.begin(), ahead.end());
          return next;
        });
    acc.resize(accCount);
    outputs(y, mS, acc);
  }

  /// The chunk states on 16x16x16 f16 cooperative matrices: dS = (w X)^T B
  /// with X w and B staged as f16 (the whole chunk), each subgroup's
  /// 16 x 16 tiles of the block_p x d_state state stored through its own
  /// f32 stage to the states temporary.
  void buildCoopStates() {
    begin();
    initCoop();
    int64_t q = l.chunk, pb = l.blockP, n = p.state;
    dtS = allocWorkgroup(e, q);
    aS = allocWorkgroup(e, q);
    Value wS = allocWorkgroup(e, q);
    Value xw = allocWorkgroupOf(e, q * pb, f16);
    Value bh = allocWorkgroupOf(e, q * n, f16);
    Value out = allocWorkgroupOf(e, l.numSubgroups * kTile * kTile, e.f32);

    stageDecays();
    Value aLast = load(aS, e.index(q - 1));
    forEachShared(e, l.threads, thread, q, [&](Value t) {
      Value w = e.fmul(e.exp(e.fsub(aLast, load(aS, t))), load(dtS, t));
      memref::StoreOp::create(e.b, w, wS, t);
    });
    gpu::BarrierOp::create(e.b);
    forEachShared(e, l.threads, thread, q * pb, [&](Value i) {
      Value s = arith::DivUIOp::create(e.b, i, e.index(pb));
      Value c = arith::RemUIOp::create(e.b, i, e.index(pb));
      Value col = e.add(p0, c);
      Value valid =
          arith::AndIOp::create(e.b, lt(s, len), lt(col, e.index(p.headDim)));
      Value x = e.toF32(memref::LoadOp::create(
          e.b, buf.x,
          ValueRange{batch, clampRow(e.add(c0, s)), head,
                     e.min(col, e.index(p.headDim - 1))}));
      Value v = e.select(valid, e.fmul(x, load(wS, s)), e.constF32(0.0f));
      memref::StoreOp::create(e.b, e.fromF32(v, f16), xw, i);
    });
    forEachShared(e, l.threads, thread, q * n, [&](Value i) {
      Value s = arith::DivUIOp::create(e.b, i, e.index(n));
      Value j = arith::RemUIOp::create(e.b, i, e.index(n));
      Value v = memref::LoadOp::create(
          e.b, buf.b, ValueRange{batch, clampRow(e.add(c0, s)), group, j});
      memref::StoreOp::create(e.b, v, bh, i);
    });
    gpu::BarrierOp::create(e.b);

    // Tile k of the subgroup: index subgroup + k * subgroups of the
    // (block_p / 16) x (d_state / 16) tiles, row-major.
    int64_t colTiles = n / kTile;
    int64_t perSubgroup = (pb / kTile) * colTiles / l.numSubgroups;
    Value stage = e.mul(subgroup, e.index(kTile * kTile));
    for (int64_t k = 0; k < perSubgroup; ++k) {
      Value tile = e.add(subgroup, e.index(k * l.numSubgroups));
      Value r = arith::DivUIOp::create(e.b, tile, e.index(colTiles));
      Value c = arith::RemUIOp::create(e.b, tile, e.index(colTiles));
      Value acc = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                           e.constF32(0.0f));
      for (int64_t s = 0; s < q / kTile; ++s) {
        // (X w)^T: column-major view of the staged [steps, block_p] X w.
        Value a =
            loadMatrix(e, aType, xw,
                       e.add(e.index(s * kTile * pb), e.mul(r, e.index(kTile))),
                       pb, /*transpose=*/true);
        Value bm =
            loadMatrix(e, bType, bh,
                       e.add(e.index(s * kTile * n), e.mul(c, e.index(kTile))),
                       n, /*transpose=*/false);
        acc = gpu::SubgroupMmaComputeOp::create(e.b, a, bm, acc, UnitAttr(),
                                                UnitAttr());
      }
      gpu::SubgroupMmaStoreMatrixOp::create(e.b, acc, out, ValueRange{stage},
                                            e.b.getIndexAttr(kTile),
                                            UnitAttr());
      gpu::BarrierOp::create(e.b);
      for (int64_t m = 0; m < kTile * kTile / l.subgroupSize; ++m) {
        Value i = e.add(lane, e.index(m * l.subgroupSize));
        Value row = e.add(e.mul(r, e.index(kTile)),
                          arith::DivUIOp::create(e.b, i, e.index(kTile)));
        Value col = e.add(p0, row);
        Value j = e.add(e.mul(c, e.index(kTile)),
                        arith::RemUIOp::create(e.b, i, e.index(kTile)));
        Value v = load(out, e.add(stage, i));
        emitIf(e, lt(col, e.index(p.headDim)), [&] {
          memref::StoreOp::create(e.b, v, temps.states,
                                  ValueRange{batch, chunk, head, col, j});
        });
      }
      gpu::BarrierOp::create(e.b);
    }
    Value writer = arith::AndIOp::create(
        e.b, arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, thread, zero),
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, pBlock, zero));
    emitIf(e, writer, [&] {
      memref::StoreOp::create(e.b, aLast, temps.logDecays,
                              ValueRange{batch, chunk, head});
    });
  }

  /// The chunk outputs on cooperative matrices: Y = M X + (exp(a) C)
  /// S_prev^T with M, X, exp(a) C and the state staged as f16 (C and the
  /// state in n-chunks of block_n), f32 accumulators stored to a staged Y
  /// that the threads finish (D, gate) and store.
  void buildCoopOutputs() {
    begin();
    initCoop();
    if (buf.d)
      skipHead = memref::LoadOp::create(e.b, buf.d, head);
    int64_t q = l.chunk, pb = l.blockP, bn = l.blockN;
    Value xh = allocWorkgroupOf(e, q * pb, f16);
    Value mh = allocWorkgroupOf(e, q * q, f16);
    Value ch = allocWorkgroupOf(e, q * bn, f16);
    Value sh = allocWorkgroupOf(e, pb * bn, f16);
    Value yS = allocWorkgroupOf(e, q * pb, e.f32);
    dtS = allocWorkgroup(e, q);
    aS = allocWorkgroup(e, q);
    eaS = allocWorkgroup(e, q);

    forEachShared(e, l.threads, thread, q * pb, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(pb));
      Value c = arith::RemUIOp::create(e.b, i, e.index(pb));
      Value col = e.add(p0, c);
      Value valid =
          arith::AndIOp::create(e.b, lt(t, len), lt(col, e.index(p.headDim)));
      Value x = e.toF32(memref::LoadOp::create(
          e.b, buf.x,
          ValueRange{batch, clampRow(e.add(c0, t)), head,
                     e.min(col, e.index(p.headDim - 1))}));
      memref::StoreOp::create(
          e.b, e.fromF32(e.select(valid, x, e.constF32(0.0f)), f16), xh, i);
    });
    stageDecays();
    forEachShared(e, l.threads, thread, q * q, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(q));
      Value s = arith::RemUIOp::create(e.b, i, e.index(q));
      Value cb = memref::LoadOp::create(e.b, buf.scores,
                                        ValueRange{batch, group, chunk, t, s});
      Value m = e.fmul(e.fmul(cb, e.exp(e.fsub(load(aS, t), load(aS, s)))),
                       load(dtS, s));
      Value causal =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, s, t);
      memref::StoreOp::create(
          e.b, e.fromF32(e.select(causal, m, e.constF32(0.0f)), f16), mh, i);
    });
    forEachShared(e, l.threads, thread, q, [&](Value t) {
      memref::StoreOp::create(e.b, e.exp(load(aS, t)), eaS, t);
    });
    gpu::BarrierOp::create(e.b);

    // The subgroup's tiles: subgroup + k * subgroups of the (chunk / 16) x
    // (block_p / 16) tiles of Y, row-major.
    int64_t colTiles = pb / kTile;
    int64_t perSubgroup = (q / kTile) * colTiles / l.numSubgroups;
    SmallVector<Value> rows, cols, acc;
    for (int64_t k = 0; k < perSubgroup; ++k) {
      Value tile = e.add(subgroup, e.index(k * l.numSubgroups));
      rows.push_back(arith::DivUIOp::create(e.b, tile, e.index(colTiles)));
      cols.push_back(arith::RemUIOp::create(e.b, tile, e.index(colTiles)));
      Value a = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                         e.constF32(0.0f));
      // M is 0 above the diagonal: its tiles there add nothing.
      for (int64_t s = 0; s < q / kTile; ++s) {
        Value mm = loadMatrix(
            e, aType, mh,
            e.add(e.mul(rows[k], e.index(kTile * q)), e.index(s * kTile)), q,
            /*transpose=*/false);
        Value xm = loadMatrix(
            e, bType, xh,
            e.add(e.index(s * kTile * pb), e.mul(cols[k], e.index(kTile))), pb,
            /*transpose=*/false);
        a = gpu::SubgroupMmaComputeOp::create(e.b, mm, xm, a, UnitAttr(),
                                              UnitAttr());
      }
      acc.push_back(a);
    }
    for (int64_t n0 = 0; n0 < p.state; n0 += bn) {
      // exp(a_t) C_t (f16) and the state before the chunk (f16).
      forEachShared(e, l.threads, thread, q * bn, [&](Value i) {
        Value t = arith::DivUIOp::create(e.b, i, e.index(bn));
        Value j = arith::RemUIOp::create(e.b, i, e.index(bn));
        Value cv = e.toF32(
            memref::LoadOp::create(e.b, buf.c,
                                   ValueRange{batch, clampRow(e.add(c0, t)),
                                              group, e.add(e.index(n0), j)}));
        memref::StoreOp::create(e.b, e.fromF32(e.fmul(cv, load(eaS, t)), f16),
                                ch, i);
      });
      forEachShared(e, l.threads, thread, pb * bn, [&](Value i) {
        Value c = arith::DivUIOp::create(e.b, i, e.index(bn));
        Value j = arith::RemUIOp::create(e.b, i, e.index(bn));
        Value sv = memref::LoadOp::create(
            e.b, temps.states,
            ValueRange{batch, chunk, head,
                       e.min(e.add(p0, c), e.index(p.headDim - 1)),
                       e.add(e.index(n0), j)});
        memref::StoreOp::create(e.b, e.fromF32(sv, f16), sh, i);
      });
      gpu::BarrierOp::create(e.b);
      for (int64_t k = 0; k < perSubgroup; ++k)
        for (int64_t s = 0; s < bn / kTile; ++s) {
          Value cm = loadMatrix(
              e, aType, ch,
              e.add(e.mul(rows[k], e.index(kTile * bn)), e.index(s * kTile)),
              bn, /*transpose=*/false);
          // S^T: column-major view of the staged [block_p, block_n] state.
          Value sm = loadMatrix(
              e, bType, sh,
              e.add(e.mul(cols[k], e.index(kTile * bn)), e.index(s * kTile)),
              bn, /*transpose=*/true);
          acc[k] = gpu::SubgroupMmaComputeOp::create(e.b, cm, sm, acc[k],
                                                     UnitAttr(), UnitAttr());
        }
      gpu::BarrierOp::create(e.b);
    }
    for (int64_t k = 0; k < perSubgroup; ++k) {
      Value offset = e.add(e.mul(rows[k], e.index(kTile * pb)),
                           e.mul(cols[k], e.index(kTile)));
      gpu::SubgroupMmaStoreMatrixOp::create(e.b, acc[k], yS, ValueRange{offset},
                                            e.b.getIndexAttr(pb), UnitAttr());
    }
    gpu::BarrierOp::create(e.b);

    Type outType = cast<MemRefType>(buf.y.getType()).getElementType();
    forEachShared(e, l.threads, thread, q * pb, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(pb));
      Value c = arith::RemUIOp::create(e.b, i, e.index(pb));
      Value col = e.add(p0, c);
      Value inside =
          arith::AndIOp::create(e.b, lt(t, len), lt(col, e.index(p.headDim)));
      emitIf(e, inside, [&] {
        Value out = load(yS, i);
        if (skipHead)
          out = math::FmaOp::create(e.b, skipHead, e.toF32(load(xh, i)), out);
        Value row = e.add(c0, t);
        if (buf.z) {
          Value z = e.toF32(memref::LoadOp::create(
              e.b, buf.z, ValueRange{batch, row, head, col}));
          out = ssdGate(e, out, z);
        }
        memref::StoreOp::create(e.b, e.fromF32(out, outType), buf.y,
                                ValueRange{batch, row, head, col});
      });
    });
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

  /// Elements of a staging round of `total` each thread handles.
  int64_t fetchCount(int64_t total) const {
    return (total + l.threads - 1) / l.threads;
  }
  /// Element k of this thread in a `rows x cols` round: i = thread + k *
  /// threads, clamped into the round (loads) past its end.
  std::pair<Value, Value> element(int64_t k, int64_t rows, int64_t cols,
                                  bool clamp) {
    Value i = e.add(thread, e.index(k * l.threads));
    if (clamp)
      i = e.min(i, e.index(rows * cols - 1));
    return {arith::DivUIOp::create(e.b, i, e.index(cols)),
            arith::RemUIOp::create(e.b, i, e.index(cols))};
  }
  /// This thread's values of a `rows x cols` round, `value(row, col)` each:
  /// issued ahead of the compute they are in flight during it.
  SmallVector<Value> fetch(int64_t rows, int64_t cols,
                           function_ref<Value(Value, Value)> value) {
    SmallVector<Value> out;
    for (int64_t k = 0; k < fetchCount(rows * cols); ++k) {
      auto [r, c] = element(k, rows, cols, (k + 1) * l.threads > rows * cols);
      out.push_back(value(r, c));
    }
    return out;
  }
  /// Stores `values` (from `fetch`) to `buffer[row * stride + col]`, each
  /// through `finish(row, col, value)` when given.
  void stage(ValueRange values, int64_t rows, int64_t cols, Value buffer,
             int64_t stride, function_ref<Value(Value, Value, Value)> finish) {
    for (auto [k, v] : llvm::enumerate(values)) {
      int64_t total = rows * cols;
      bool partial = (int64_t(k) + 1) * l.threads > total;
      auto [r, c] = element(k, rows, cols, partial);
      Value value = finish ? finish(r, c, v) : v;
      auto store = [&, r = r, c = c] {
        memref::StoreOp::create(e.b, value, buffer, at(r, stride, c));
      };
      if (partial)
        emitIf(
            e,
            lt(e.add(thread, e.index(int64_t(k) * l.threads)), e.index(total)),
            store);
      else
        store();
    }
  }

  /// The matrix types and this thread's subgroup and lane.
  void initCoop() {
    f16 = Float16Type::get(e.b.getContext());
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    subgroup = arith::DivUIOp::create(e.b, thread, e.index(l.subgroupSize));
    lane = arith::RemUIOp::create(e.b, thread, e.index(l.subgroupSize));
  }

  /// The workgroup's head_dim block, chunk, head and batch row, its steps
  /// and the head's A (and dt bias).
  void begin() {
    pBlock = WorkgroupIdOp::create(e.b, 0);
    Value y = WorkgroupIdOp::create(e.b, 1);
    head = arith::RemUIOp::create(e.b, y, e.index(p.heads));
    chunk = arith::DivUIOp::create(e.b, y, e.index(p.heads));
    batch = WorkgroupIdOp::create(e.b, 2);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    zero = e.index(0);
    one = e.index(1);
    p0 = e.mul(pBlock, e.index(l.blockP));
    group = e.div(head, e.index(p.headsPerGroup()));
    c0 = e.mul(chunk, e.index(l.chunk));
    // Whole chunks give the step loops a constant trip count.
    len = p.seq % l.chunk == 0
              ? e.index(l.chunk)
              : e.min(e.index(l.chunk), e.sub(e.index(p.seq), c0));
    aHead = memref::LoadOp::create(e.b, buf.a, head);
    if (buf.dtBias)
      biasHead = memref::LoadOp::create(e.b, buf.dtBias, head);
  }

  /// dt_t (0 past the sequence) into dtS, then a_t = sum_{s <= t} dt_s A
  /// into aS; ends with a barrier.
  void stageDecays() {
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value dt = ssdStepSize(
          e,
          e.toF32(memref::LoadOp::create(
              e.b, buf.dt, ValueRange{batch, clampRow(e.add(c0, t)), head})),
          biasHead, p.softplus);
      memref::StoreOp::create(e.b, e.select(lt(t, len), dt, e.constF32(0.0f)),
                              dtS, t);
    });
    gpu::BarrierOp::create(e.b);
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value a = e.forLoop(zero, e.add(t, one), one, {e.constF32(0.0f)},
                          [&](Value s, ValueRange sum) {
                            Value v = e.fmul(load(dtS, s), aHead);
                            return SmallVector<Value>{e.fadd(sum[0], v)};
                          })[0];
      memref::StoreOp::create(e.b, a, aS, t);
    });
    gpu::BarrierOp::create(e.b);
  }

  /// Y = exp(a_t) (C S_prev^T) + M X, then the D skip, the gate and the
  /// store.
  void outputs(const ThreadTile &y, Value mS, ArrayRef<Value> yAcc) {
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
  const SsdChunkBuffers &temps;
  Value pBlock, chunk, head, batch, thread, zero, one, p0, group, c0, len,
      aHead, biasHead, skipHead;
  Value xS, dtS, aS, eaS;
  /// Cooperative matrices.
  static constexpr int64_t kTile = 16;
  Type f16;
  gpu::MMAMatrixType aType, bType, cType;
  Value subgroup, lane;
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
  Value i = e.add(e.mul(block, e.index(plan.layout.threads)), thread);
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
    s = e.forLoop(e.index(0), e.index(whole), e.index(batchSize), {s},
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

void mlir::ejk::buildVulkanSsdCoopChunkStatesBody(
    OpBuilder &b, Location loc, const VulkanSsdPlan &plan,
    const SsdBuffers &buffers, const SsdChunkBuffers &chunks) {
  ChunkBuilder(b, loc, plan, buffers, chunks).buildCoopStates();
}

void mlir::ejk::buildVulkanSsdCoopChunkOutputsBody(
    OpBuilder &b, Location loc, const VulkanSsdPlan &plan,
    const SsdBuffers &buffers, const SsdChunkBuffers &chunks) {
  ChunkBuilder(b, loc, plan, buffers, chunks).buildCoopOutputs();
}
