//===- ChunkKernel.h - what the chunk-parallel gla kernels share -*- C++
//-*-===//
//
// The base of the three kernels of the chunk-parallel gated recurrence
// (ChunkParallel.h): the workgroup's sequence and chunk (slots, binary
// search over packed sequences), the steps in scan order, the gates and
// their cumulative sums, the thread grid. Each kernel is a subclass in its
// own file: ChunkUpdate.cpp, ChunkScan.cpp, ChunkOutputs.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_CHUNKKERNEL_H
#define EJK_OPS_LINEAR_VULKAN_CHUNKKERNEL_H

#include "Attention/Vulkan/Scores.h"
#include "Common/Arithmetic.h"
#include "Linear/HeadDecay.h"
#include "Linear/Sequences.h"
#include "Linear/Vulkan/ChunkParallel.h"
#include "Linear/Vulkan/SlotKernel.h"

#include "ejk/Ops/Linear/Config.h"

namespace mlir::ejk::chunk_parallel {

/// The largest chunk decay (-min_k B_last) whose gate ratios are factored.
inline constexpr float kFactorBound = 60.0f;
/// The same bound for the cooperative kernel's f16 operands: the factors
/// exp(B_t - B_last / 2) and exp(B_last / 2 - B_s) stay within e^8 (f16
/// holds up to 65504, e^11.1).
inline constexpr float kCoopFactorBound = 16.0f;

/// How the key decay of a step is known.
enum class GateMode {
  /// No key decay.
  None,
  /// One constant per head (g_gamma, slopes): B_t = gamma (t + 1).
  Constant,
  /// Per step and key dim (g, gk): B read from the update's temporary.
  PerStep,
};

inline GateMode gateMode(const GlaProblem &p) {
  if (p.hasG || p.hasGk)
    return GateMode::PerStep;
  return p.hasGamma() ? GateMode::Constant : GateMode::None;
}

inline int64_t maxChunks(const GlaProblem &p, const VulkanGlaChunkLayout &l) {
  return ceilDiv(std::max<int64_t>(1, p.seq), l.chunk);
}

/// Chunk slots of the update and the scan (the outputs add a filler slot
/// with cu_seqlens).
inline int64_t numSlots(const GlaProblem &p, const VulkanGlaChunkLayout &l) {
  return p.packed ? maxChunks(p, l) + p.numSeqs : p.batch * maxChunks(p, l);
}

/// The temporaries: the states per chunk slot and, with per-step gates,
/// the chunk decays and the cumulative gates.
struct Temporaries {
  Value states, decays, cumGates;
};

/// What the three kernels share.
class ChunkKernel : public SlotKernel<GlaProblem, VulkanGlaChunkLayout,
                                      GlaBuffers, Temporaries> {
public:
  ChunkKernel(OpBuilder &builder, Location loc, const GlaProblem &p,
              const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
              const Temporaries &tmp)
      : SlotKernel(builder, loc, p, l, buf, tmp) {
    mode = gateMode(p);
  }

protected:
  void begin() {
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    head = WorkgroupIdOp::create(e.b, 1);
    kvHead = e.div(head, e.index(p.headsPerKv()));
    Value grid = e.index(VulkanGlaChunkLayout::kGrid);
    rowThread = arith::DivUIOp::create(e.b, thread, grid);
    colThread = arith::RemUIOp::create(e.b, thread, grid);
  }

  /// Runs `body` with seqId, the sequence's bounds, the chunk c0 (first
  /// scan index) and len (its steps) of `slot`, when the slot holds a
  /// chunk.
  void withChunkOfSlot(Value slot, function_ref<void()> body) {
    chunkIndex = locateSlot(slot);
    if (!p.packed) {
      chunkBody(body);
      return;
    }
    emitIf(e, slotInSequence(chunkIndex), [&] { chunkBody(body); });
  }

  /// The outputs' workgroup: V block z (from v0) of chunk slot x, `body`
  /// where the slot holds a chunk; with cu_seqlens the filler slot past the
  /// last zeroes the steps outside every sequence.
  void withOutputChunk(function_ref<void()> body) {
    Value slot = WorkgroupIdOp::create(e.b, 0);
    Value blockV = e.index(l.blockV);
    v0 = e.mul(WorkgroupIdOp::create(e.b, 2), blockV);
    if (p.packed) {
      Value filler =
          cmp(arith::CmpIPredicate::eq, slot, e.index(numSlots(p, l)));
      emitIf(e, filler, [&] { zeroUncovered(v0, l.blockV); });
    }
    withChunkOfSlot(slot, body);
  }

  void chunkBody(function_ref<void()> body) {
    c0 = e.mul(chunkIndex, e.index(l.chunk));
    Value remaining = e.sub(seqLen, c0);
    len = e.min(e.index(l.chunk), remaining);
    if (p.hasGamma())
      gamma = loadGamma();
    body();
  }

  /// The head's constant log decay (GammaForm).
  Value loadGamma() { return emitHeadDecay(e, p, buf.gGamma, head, seqId); }

  /// The key log gate of `row` at key `k`: g + gk + gamma.
  Value stepGate(Value row, Value k) {
    SmallVector<Value, 3> terms;
    for (Value gate : {buf.g, buf.gk})
      if (gate)
        terms.push_back(load(gate, {batchIdx, row, head, k}));
    Value a = terms.front();
    for (Value x : ArrayRef<Value>(terms).drop_front())
      a = e.fadd(a, x);
    if (gamma)
      a = e.fadd(a, gamma);
    return a;
  }

  /// gamma (t + 1) as f32, for a chunk step index t.
  Value constantCum(Value t) {
    Value n = arith::SIToFPOp::create(e.b, e.f32, e.toI32(e.add(t, one)));
    return e.fmul(gamma, n);
  }

  /// B at chunk step `t` and key `k` (gates present), from the
  /// temporary or the constant.
  Value cumGate(Value t, Value k) {
    if (mode == GateMode::Constant)
      return constantCum(t);
    return memref::LoadOp::create(e.b, tmp.cumGates,
                                  ValueRange{batchIdx, chunkRow(t), head, k});
  }

  /// Values of chunk steps [s0, s0 + rows) and the block's columns (zero
  /// past the chunk and head_dim_v) into `tile` [rows, block_v]; `batched`
  /// as spread().
  void stageValues(Value tile, Value s0, int64_t rows, bool batched = false) {
    spread(
        rows * l.blockV, batched,
        [&](Value i) -> SmallVector<Value> {
          Value s = arith::DivUIOp::create(e.b, i, e.index(l.blockV));
          Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockV));
          Value step = e.add(s0, s);
          Value col = e.add(v0, c);
          Value colValid = cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV));
          Value stepValid = cmp(arith::CmpIPredicate::slt, step, len);
          Value valid = arith::AndIOp::create(e.b, stepValid, colValid);
          Value v = load(buf.value, {batchIdx, chunkRow(step), kvHead,
                                     e.min(col, e.index(p.dimV - 1))});
          return {e.select(valid, v, e.constF32(0.0f))};
        },
        [&](Value i, ArrayRef<Value> v) { storeAs(v[0], tile, i); });
  }

  /// `store(i, load(i))` for the elements i in [0, total) spread over the
  /// workgroup's threads (i = thread + r x threads). Batched: the rounds
  /// unrolled, 16 at a time, every load of a batch before its stores (their
  /// memory latencies overlap; the cooperative kernels' stages); else a
  /// loop of load-then-store per round (forEachShared), which waits on
  /// memory once per round.
  void spread(int64_t total, bool batched,
              function_ref<SmallVector<Value>(Value)> loadFn,
              function_ref<void(Value, ArrayRef<Value>)> storeFn) {
    if (!batched) {
      forEachShared(e, l.kThreads, thread, total,
                    [&](Value i) { storeFn(i, loadFn(i)); });
      return;
    }
    constexpr int64_t kBatch = 16;
    int64_t threads = l.kThreads, rounds = ceilDiv(total, threads);
    for (int64_t r0 = 0; r0 < rounds; r0 += kBatch) {
      int64_t r1 = std::min(rounds, r0 + kBatch);
      SmallVector<Value> index, inside;
      SmallVector<SmallVector<Value>> values;
      for (int64_t r = r0; r < r1; ++r) {
        Value i = e.add(thread, e.index(r * threads));
        Value in;
        // The last round past `total`: its loads read element total - 1.
        if ((r + 1) * threads > total) {
          in = cmp(arith::CmpIPredicate::slt, i, e.index(total));
          i = e.min(i, e.index(total - 1));
        }
        index.push_back(i);
        inside.push_back(in);
        values.push_back(loadFn(i));
      }
      for (int64_t r = 0; r < r1 - r0; ++r) {
        if (inside[r])
          emitIf(e, inside[r], [&] { storeFn(index[r], values[r]); });
        else
          storeFn(index[r], values[r]);
      }
    }
  }

  /// Stores the f32 `value` at `index` of `memref`, narrowed to its
  /// element type (the cooperative kernels' f16 stages and states).
  void storeAs(Value value, Value memref, ValueRange index) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    memref::StoreOp::create(e.b, e.fromF32(value, element), memref, index);
  }

  /// The update's gated keys k exp(B_last - B_s) of chunk steps [s0, s0 +
  /// rows) into `tile` [rows, kPad] (zero past the chunk and head_dim_k):
  /// with per-step gates each column thread stages its key, `running` (its
  /// B before s0) carried from tile to tile and returned (`batched`: the
  /// rows' key and gate loads all issued before the first store); else the
  /// whole workgroup, coalesced.
  Value stageUpdateKeys(Value tile, Value s0, int64_t rows, int64_t kPad,
                        Value lastGate, Value running, bool batched = false) {
    if (mode == GateMode::PerStep) {
      Value isColumn = cmp(arith::CmpIPredicate::slt, thread, e.index(p.dimK));
      auto ifOp = scf::IfOp::create(e.b, TypeRange{e.f32}, isColumn,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> valid, gates, keys;
      auto loadStep = [&](int64_t s) {
        Value step = e.add(s0, e.index(s));
        valid.push_back(cmp(arith::CmpIPredicate::slt, step, len));
        Value row = chunkRow(step);
        gates.push_back(stepGate(row, thread));
        keys.push_back(load(buf.key, {batchIdx, row, kvHead, thread}));
      };
      if (batched)
        for (int64_t s = 0; s < rows; ++s)
          loadStep(s);
      Value run = running;
      for (int64_t s = 0; s < rows; ++s) {
        if (!batched)
          loadStep(s);
        run = e.fadd(run, e.select(valid[s], gates[s], e.constF32(0.0f)));
        Value key = e.fmul(keys[s], e.exp(e.fsub(lastGate, run)));
        // One op per statement where two would be built in one call: the
        // compilers evaluate arguments in different orders (this is the
        // order GCC built them in).
        Value at = e.add(e.index(s * kPad), thread);
        Value gated = e.select(valid[s], key, e.constF32(0.0f));
        storeAs(gated, tile, at);
      }
      scf::YieldOp::create(e.b, run);
      e.b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(e.b, running);
      return ifOp.getResult(0);
    }
    spread(
        rows * kPad, batched,
        [&](Value i) -> SmallVector<Value> {
          Value s = arith::DivUIOp::create(e.b, i, e.index(kPad));
          Value k = arith::RemUIOp::create(e.b, i, e.index(kPad));
          Value step = e.add(s0, s);
          Value inKeys = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
          Value inChunk = cmp(arith::CmpIPredicate::slt, step, len);
          Value valid = arith::AndIOp::create(e.b, inChunk, inKeys);
          Value key = load(buf.key, {batchIdx, chunkRow(step), kvHead,
                                     e.min(k, e.index(p.dimK - 1))});
          if (mode == GateMode::Constant)
            key = e.fmul(key, e.exp(e.fsub(lastGate, constantCum(step))));
          return {e.select(valid, key, e.constF32(0.0f))};
        },
        [&](Value i, ArrayRef<Value> key) { storeAs(key[0], tile, i); });
    return running;
  }

  /// B_last of the update's thread: the column thread's own key's (per-step
  /// gates, cumulateGates' loads `gateBatch` at a time; B written for the
  /// outputs by the first V block), or gamma len.
  Value updateLastGate(int64_t gateBatch = 8) {
    if (mode == GateMode::PerStep) {
      // Only the column threads' B_last is used (their own key's).
      auto ifOp = scf::IfOp::create(
          e.b, TypeRange{e.f32},
          cmp(arith::CmpIPredicate::slt, thread, e.index(p.dimK)),
          /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(e.b, cumulateGates(thread, gateBatch));
      e.b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(e.b, e.constF32(0.0f));
      return ifOp.getResult(0);
    }
    if (mode == GateMode::Constant)
      return e.fmul(gamma, arith::SIToFPOp::create(e.b, e.f32, e.toI32(len)));
    return Value();
  }

  /// The column thread of key `k`: B over the chunk's steps (loads issued
  /// `batch` at a time; `batch` divides the chunk: the SIMT update passes
  /// the whole chunk up to 64 steps, else 16), written to the temporary by
  /// the first V block with the chunk decay exp(B_last); returns B_last.
  Value cumulateGates(Value k, int64_t batch = 8) {
    Value firstBlock = cmp(arith::CmpIPredicate::eq, v0, zero);
    // One op per statement where two would be built in one call: the
    // compilers evaluate arguments in different orders (this is the order
    // GCC built them in).
    Value initial = e.constF32(0.0f);
    Value step = e.index(batch);
    Value end = e.index(l.chunk);
    Value total = e.forLoop(
        zero, end, step, {initial},
        [&](Value t0, ValueRange acc) -> SmallVector<Value> {
          SmallVector<Value> gates, valid;
          for (int64_t i = 0; i < batch; ++i) {
            Value t = e.add(t0, e.index(i));
            valid.push_back(cmp(arith::CmpIPredicate::slt, t, len));
            Value off = e.constF32(0.0f);
            Value gate = stepGate(chunkRow(t), k);
            gates.push_back(e.select(valid.back(), gate, off));
          }
          Value sum = acc[0];
          for (int64_t i = 0; i < batch; ++i) {
            Value t = e.add(t0, e.index(i));
            sum = e.fadd(sum, gates[i]);
            emitIf(e, arith::AndIOp::create(e.b, valid[i], firstBlock), [&] {
              memref::StoreOp::create(
                  e.b, sum, tmp.cumGates,
                  ValueRange{batchIdx, chunkRow(t), head, k});
            });
          }
          return {sum};
        })[0];
    emitIf(e, firstBlock, [&] {
      Value at = slot();
      Value decay = e.exp(total);
      memref::StoreOp::create(e.b, decay, tmp.decays, ValueRange{at, head, k});
    });
    return total;
  }

  /// Whether min_k B_last[k] >= -bound: each thread takes keys thread,
  /// thread + 256, ..., the subgroup maximum of -B_last by shuffles, the
  /// subgroups' maxima through workgroup memory.
  Value lastGateWithinBound(float bound) {
    int64_t subgroups = l.kThreads / l.subgroupSize;
    Value partial = allocWorkgroup(e, subgroups);
    Value worst = e.constF32(-std::numeric_limits<float>::infinity());
    for (int64_t k0 = 0; k0 < p.dimK; k0 += l.kThreads) {
      Value k = e.add(thread, e.index(k0));
      Value valid = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
      Value kc = e.min(k, e.index(p.dimK - 1));
      Value b = cumGate(e.sub(len, one), kc);
      Value negInf = e.constF32(-std::numeric_limits<float>::infinity());
      Value negB = arith::NegFOp::create(e.b, b);
      worst = e.fmaxNoNaN(worst, e.select(valid, negB, negInf));
    }
    worst = reduceAcrossLanes(e, worst, /*isMax=*/true, l.subgroupSize,
                              l.subgroupSize);
    Value sub = arith::DivUIOp::create(e.b, thread, e.index(l.subgroupSize));
    Value lane = arith::RemUIOp::create(e.b, thread, e.index(l.subgroupSize));
    emitIf(e, cmp(arith::CmpIPredicate::eq, lane, zero),
           [&] { memref::StoreOp::create(e.b, worst, partial, sub); });
    gpu::BarrierOp::create(e.b);
    Value all = memref::LoadOp::create(e.b, partial, zero);
    for (int64_t i = 1; i < subgroups; ++i)
      all = e.fmaxNoNaN(all, memref::LoadOp::create(e.b, partial, e.index(i)));
    return arith::CmpFOp::create(e.b, arith::CmpFPredicate::OLE, all,
                                 e.constF32(bound));
  }

  Value slot() { return e.add(baseSlot(seqId), chunkIndex); }

  /// The update's and the scan's thread entries: key row tk + 16 i, value
  /// column tv + 16 j (within the block).
  Value stateRow(int64_t i) {
    return e.add(rowThread, e.index(i * VulkanGlaChunkLayout::kGrid));
  }

  Value stateCol(int64_t j) {
    return e.add(colThread, e.index(j * VulkanGlaChunkLayout::kGrid));
  }

  /// The outputs' rows and columns of this thread.
  Value outRow(int64_t a) {
    return e.add(rowThread, e.index(a * VulkanGlaChunkLayout::kGrid));
  }

  Value outCol(int64_t j) { return stateCol(j); }

  /// The scores' columns of this thread.
  Value scoreCol(int64_t b) {
    return e.add(colThread, e.index(b * VulkanGlaChunkLayout::kGrid));
  }

  GateMode mode;
  Value gamma, v0;
};

/// The dispatch bodies, each at `builder`'s insertion point.
void buildChunkUpdate(OpBuilder &builder, Location loc, const GlaProblem &p,
                      const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
                      const Temporaries &tmp);
void buildChunkScan(OpBuilder &builder, Location loc, const GlaProblem &p,
                    const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
                    const Temporaries &tmp);
void buildChunkOutputs(OpBuilder &builder, Location loc, const GlaProblem &p,
                       const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
                       const Temporaries &tmp);
/// The cooperative-matrix update and outputs (CoopUpdate.cpp,
/// CoopOutputs.cpp); the scan is shared.
void buildCoopUpdate(OpBuilder &builder, Location loc, const GlaProblem &p,
                     const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
                     const Temporaries &tmp);
void buildCoopOutputs(OpBuilder &builder, Location loc, const GlaProblem &p,
                      const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
                      const Temporaries &tmp);

} // namespace mlir::ejk::chunk_parallel

#endif // EJK_OPS_LINEAR_VULKAN_CHUNKKERNEL_H
