//===- SsdWorkgroup.h - a workgroup of the Vulkan SSD kernels ---*- C++ -*-===//
//
// What the SSD scan (SsdKernel.cpp) and the parallel-chunks SSD
// (SsdChunkedKernel.cpp, SsdCoopKernel.cpp) build alike in a workgroup of
// one head_dim block, head and batch row: its position, the head's
// parameters, the staged dt, cumulative decays, X and weighted scores of a
// chunk, and the chunk's outputs (D skip, gate, store).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_VULKAN_SSDWORKGROUP_H
#define EJK_OPS_STATESPACE_VULKAN_SSDWORKGROUP_H

#include "Attention/Vulkan/Scores.h"
#include "StateSpace/Vulkan/Kernels.h"
#include "StateSpace/Vulkan/SsdSteps.h"
#include "StateSpace/Vulkan/ThreadTile.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

namespace mlir::ejk {

/// The state and the helpers of one SSD kernel body; the kernels derive
/// from it.
class SsdWorkgroup {
protected:
  SsdWorkgroup(OpBuilder &builder, Location loc, const VulkanSsdPlan &plan,
               const SsdBuffers &buffers)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers) {}

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

  /// The workgroup's head_dim block, head and batch row, this thread and
  /// the head's group; returns workgroup y / heads (its split or chunk).
  Value locate() {
    pBlock = WorkgroupIdOp::create(e.b, 0);
    Value y = WorkgroupIdOp::create(e.b, 1);
    head = arith::RemUIOp::create(e.b, y, e.index(p.heads));
    Value outer = arith::DivUIOp::create(e.b, y, e.index(p.heads));
    batch = WorkgroupIdOp::create(e.b, 2);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    zero = e.index(0);
    one = e.index(1);
    p0 = e.mul(pBlock, e.index(l.blockP));
    group = e.div(head, e.index(p.headsPerGroup()));
    return outer;
  }

  /// The steps of the chunk from step c0. Whole chunks give the step loops
  /// a constant trip count, which the device compiler can unroll.
  Value chunkLength(Value c0) {
    if (p.seq % l.chunk == 0)
      return e.index(l.chunk);
    Value rowsLeft = e.sub(e.index(p.seq), c0);
    return e.min(e.index(l.chunk), rowsLeft);
  }

  /// The head's A and dt bias.
  void loadHeadParams() {
    aHead = memref::LoadOp::create(e.b, buf.a, head);
    if (buf.dtBias)
      biasHead = memref::LoadOp::create(e.b, buf.dtBias, head);
  }

  /// The head's D.
  void loadSkip() {
    if (buf.d)
      skipHead = memref::LoadOp::create(e.b, buf.d, head);
  }

  /// dt_t (0 past the sequence) of the chunk from step c0 into dtS.
  void stageStepSizes(Value c0, Value len) {
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value dt = ssdStepSize(
          e,
          e.toF32(memref::LoadOp::create(
              e.b, buf.dt, ValueRange{batch, clampRow(e.add(c0, t)), head})),
          biasHead, p.softplus);
      Value past = e.constF32(0.0f);
      memref::StoreOp::create(e.b, e.select(lt(t, len), dt, past), dtS, t);
    });
  }

  /// a_t = sum_{s <= t} dt_s A into aS.
  void stageCumulativeDecays() {
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value zeroF = e.constF32(0.0f);
      Value a = e.forLoop(zero, e.add(t, one), one, {zeroF},
                          [&](Value s, ValueRange sum) {
                            Value v = e.fmul(load(dtS, s), aHead);
                            return SmallVector<Value>{e.fadd(sum[0], v)};
                          })[0];
      memref::StoreOp::create(e.b, a, aS, t);
    });
  }

  /// `store(i, t, valid, x)` for each element i = t * block_p + c of the
  /// chunk's X from step c0 (x f32, clamped into the tensor; `valid`
  /// whether it is inside it).
  void forEachX(Value c0, Value len,
                function_ref<void(Value, Value, Value, Value)> store) {
    forEachShared(e, l.threads, thread, l.chunk * l.blockP, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockP));
      Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockP));
      Value col = e.add(p0, c);
      Value colInside = lt(col, e.index(p.headDim));
      Value valid = arith::AndIOp::create(e.b, lt(t, len), colInside);
      Value x = e.toF32(memref::LoadOp::create(
          e.b, buf.x,
          ValueRange{batch, clampRow(e.add(c0, t)), head,
                     e.min(col, e.index(p.headDim - 1))}));
      store(i, t, valid, x);
    });
  }

  /// X (0 past the sequence and head_dim) into xS, f32.
  void stageX(Value c0, Value len) {
    forEachX(c0, len, [&](Value i, Value, Value valid, Value x) {
      memref::StoreOp::create(e.b, e.select(valid, x, e.constF32(0.0f)), xS, i);
    });
  }

  /// `store(i, t, s, m, causal)` for each element i = t * chunk + s of
  /// the chunk's M[t, s] = CB[t, s] exp(a_t - a_s) dt_s (`causal`: s <= t;
  /// M is 0 otherwise), from the pre-pass's scores.
  void forEachScoreWeight(
      Value chunk,
      function_ref<void(Value, Value, Value, Value, Value)> store) {
    forEachShared(e, l.threads, thread, l.chunk * l.chunk, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.chunk));
      Value s = arith::RemUIOp::create(e.b, i, e.index(l.chunk));
      Value cb = memref::LoadOp::create(e.b, buf.scores,
                                        ValueRange{batch, group, chunk, t, s});
      Value stepSize = load(dtS, s);
      Value decayAtS = load(aS, s);
      Value m =
          e.fmul(e.fmul(cb, e.exp(e.fsub(load(aS, t), decayAtS))), stepSize);
      Value causal =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, s, t);
      store(i, t, s, m, causal);
    });
  }

  /// M into mS (f32, rows of mStride).
  void weightScores(Value chunk, Value mS) {
    forEachScoreWeight(
        chunk, [&](Value, Value t, Value s, Value m, Value causal) {
          Value index = at(t, l.mStride(), s);
          memref::StoreOp::create(e.b, e.select(causal, m, e.constF32(0.0f)),
                                  mS, index);
        });
  }

  /// `value` to `buffer[indices]` from thread 0 of the first head_dim
  /// block.
  void storeFromFirstThread(Value value, Value buffer, ValueRange indices) {
    Value firstBlock =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, pBlock, zero);
    Value firstThread =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, thread, zero);
    Value writer = arith::AndIOp::create(e.b, firstThread, firstBlock);
    emitIf(e, writer,
           [&] { memref::StoreOp::create(e.b, value, buffer, indices); });
  }

  /// Output (t, col) of the chunk from step c0: `out` plus D x
  /// (`x()`), gated by z, stored to y.
  void storeOutput(Value c0, Value t, Value col, Value out,
                   function_ref<Value()> x) {
    Type outType = cast<MemRefType>(buf.y.getType()).getElementType();
    if (skipHead)
      out = math::FmaOp::create(e.b, skipHead, x(), out);
    Value row = e.add(c0, t);
    if (buf.z) {
      Value z = e.toF32(memref::LoadOp::create(
          e.b, buf.z, ValueRange{batch, row, head, col}));
      out = ssdGate(e, out, z);
    }
    memref::StoreOp::create(e.b, e.fromF32(out, outType), buf.y,
                            ValueRange{batch, row, head, col});
  }

  /// Step j of C S^T on the `y` tile: acc[i, k] += C[t_i, j] S^T[j, c_k],
  /// C staged in `cS` (rows of `stride`), `sv` S^T[j] at the tile's
  /// columns.
  SmallVector<Value> accumulateCS(const ThreadTile &y, ValueRange acc,
                                  ArrayRef<Value> sv, Value cS, int64_t stride,
                                  Value j) {
    int64_t cols = l.y.colsPerThread;
    SmallVector<Value> out(acc.begin(), acc.end());
    for (auto [i, t] : llvm::enumerate(y.rows)) {
      Value cv = load(cS, at(t, stride, j));
      for (int64_t k = 0; k < cols; ++k)
        out[i * cols + k] =
            math::FmaOp::create(e.b, cv, sv[k], out[i * cols + k]);
    }
    return out;
  }

  /// Y = exp(a_t) (C S^T) (`yAcc`, the `y` tile's accumulators) + M X over
  /// the chunk from step c0, then the D skip, the gate and the store.
  void outputs(const ThreadTile &y, Value c0, Value len, Value mS,
               ArrayRef<Value> yAcc) {
    int64_t rows = l.y.rowsPerThread, cols = l.y.colsPerThread;
    SmallVector<Value> inits;
    for (auto [i, t] : llvm::enumerate(y.rows)) {
      Value scale = load(eaS, t);
      for (int64_t k = 0; k < cols; ++k)
        inits.push_back(e.fmul(yAcc[i * cols + k], scale));
    }
    // M is 0 above the diagonal: stop after this thread's last row.
    Value rowsEnd = e.add(y.rowStart, e.index(rows));
    Value end = e.min(e.index(l.chunk), rowsEnd);
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
    for (auto [i, t] : llvm::enumerate(y.rows))
      for (auto [k, c] : llvm::enumerate(y.cols)) {
        Value col = e.add(p0, c);
        Value colInside = lt(col, e.index(p.headDim));
        Value inside = arith::AndIOp::create(
            e.b, lt(e.add(y.rowStart, e.index(i)), len), colInside);
        if (Value inTile = y.inside(e, i, k))
          inside = arith::AndIOp::create(e.b, inside, inTile);
        Value value = acc[i * cols + k];
        emitIf(e, inside, [&, t = t, c = c] {
          storeOutput(c0, t, col, value,
                      [&] { return load(xS, at(t, l.blockP, c)); });
        });
      }
  }

  Emitter e;
  const VulkanSsdPlan &p;
  const VulkanSsdLayout &l;
  const SsdBuffers &buf;
  Value pBlock, head, batch, thread, zero, one, p0, group, aHead, biasHead,
      skipHead;
  /// Staged X, dt, a and exp(a) (f32).
  Value xS, dtS, aS, eaS;
};

/// A workgroup of the parallel-chunks SSD (one head_dim block, chunk, head
/// and batch row) and what its chunk-state and chunk-output kernels stage
/// alike.
class SsdChunkWorkgroup : protected SsdWorkgroup {
protected:
  SsdChunkWorkgroup(OpBuilder &builder, Location loc, const VulkanSsdPlan &plan,
                    const SsdBuffers &buffers, const SsdChunkBuffers &temps)
      : SsdWorkgroup(builder, loc, plan, buffers), temps(temps) {}

  /// The workgroup's position, its chunk's steps and the head's A (and dt
  /// bias).
  void begin() {
    chunk = locate();
    c0 = e.mul(chunk, e.index(l.chunk));
    len = chunkLength(c0);
    loadHeadParams();
  }

  /// dt_t (0 past the sequence) into dtS, then a_t = sum_{s <= t} dt_s A
  /// into aS; ends with a barrier. With a thread per step, by subgroup
  /// scans (stageDecaysBySubgroups), else a loop per step.
  void stageDecays() {
    if (l.threads >= l.chunk) {
      stageDecaysBySubgroups();
      gpu::BarrierOp::create(e.b);
      return;
    }
    stageStepSizes(c0, len);
    gpu::BarrierOp::create(e.b);
    stageCumulativeDecays();
    gpu::BarrierOp::create(e.b);
  }

  /// dt_t and a_t in one round, thread t its step (every thread runs the
  /// shuffles; past the chunk on a copy of its last step): an inclusive
  /// scan of dt A over the subgroup (shuffle idx from the lane 2^r before),
  /// plus the steps of the subgroups before, which each lane sums for its
  /// own column of them and a xor reduction totals. Replaces a loop of up
  /// to chunk dependent loads per thread and a barrier.
  void stageDecaysBySubgroups() {
    int64_t width = l.subgroupSize;
    Value widthI32 = e.constI32(width);
    Value lane = arith::RemUIOp::create(e.b, thread, e.index(width));
    Value segment = arith::DivUIOp::create(e.b, thread, e.index(width));
    Value laneI32 = e.toI32(lane);
    Value zeroF = e.constF32(0.0f);
    // dt_t A of step t of the chunk (0 past the sequence).
    auto stepDecay = [&](Value t, Value &dtOut) {
      Value step = e.min(t, e.index(l.chunk - 1));
      Value row = clampRow(e.add(c0, step));
      Value raw =
          memref::LoadOp::create(e.b, buf.dt, ValueRange{batch, row, head});
      Value dt = ssdStepSize(e, e.toF32(raw), biasHead, p.softplus);
      dtOut = e.select(lt(t, len), dt, zeroF);
      return e.fmul(dtOut, aHead);
    };
    Value dt;
    Value a = stepDecay(thread, dt);
    for (int64_t off = 1; off < width; off *= 2) {
      Value before = e.sub(laneI32, e.constI32(off));
      Value src = arith::MaxSIOp::create(e.b, before, e.constI32(0));
      Value other =
          gpu::ShuffleOp::create(e.b, a, src, widthI32, gpu::ShuffleMode::IDX)
              .getShuffleResult();
      Value take = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge,
                                         laneI32, e.constI32(off));
      a = e.select(take, e.fadd(a, other), a);
    }
    int64_t segments = (l.chunk + width - 1) / width;
    if (segments > 1) {
      Value earlier = zeroF;
      for (int64_t j = 0; j + 1 < segments; ++j) {
        Value t = e.add(lane, e.index(j * width));
        Value unused;
        Value v = stepDecay(t, unused);
        Value counts = lt(e.index(j), segment);
        earlier = e.fadd(earlier, e.select(counts, v, zeroF));
      }
      for (int64_t off = 1; off < width; off *= 2) {
        Value mask = e.constI32(off);
        Value other = gpu::ShuffleOp::create(e.b, earlier, mask, widthI32,
                                             gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        earlier = e.fadd(earlier, other);
      }
      a = e.fadd(a, earlier);
    }
    emitIf(e, lt(thread, e.index(l.chunk)), [&] {
      memref::StoreOp::create(e.b, dt, dtS, thread);
      memref::StoreOp::create(e.b, a, aS, thread);
    });
  }

  /// w_t = exp(a_last - a_t) dt_t into `wS`, then a barrier; returns
  /// a_last.
  Value stageStepWeights(Value wS) {
    Value aLast = load(aS, e.index(l.chunk - 1));
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      Value dt = load(dtS, t);
      Value w = e.fmul(e.exp(e.fsub(aLast, load(aS, t))), dt);
      memref::StoreOp::create(e.b, w, wS, t);
    });
    gpu::BarrierOp::create(e.b);
    return aLast;
  }

  /// exp(a_t) into eaS.
  void stageExpDecays() {
    forEachShared(e, l.threads, thread, l.chunk, [&](Value t) {
      memref::StoreOp::create(e.b, e.exp(load(aS, t)), eaS, t);
    });
  }

  /// The chunk's log decay a_last to its entry of the temporaries.
  void storeLogDecay(Value aLast) {
    storeFromFirstThread(aLast, temps.logDecays,
                         ValueRange{batch, chunk, head});
  }

  const SsdChunkBuffers &temps;
  Value chunk, c0, len;
};

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_VULKAN_SSDWORKGROUP_H
