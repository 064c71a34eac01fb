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
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Ops/Linear/Config.h"

namespace mlir::ejk::chunk_parallel {

/// The largest chunk decay (-min_k B_last) whose gate ratios are factored.
inline constexpr float kFactorBound = 60.0f;

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
class ChunkKernel {
public:
  ChunkKernel(OpBuilder &builder, Location loc, const GlaProblem &p,
              const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
              const Temporaries &tmp)
      : e(builder, loc, 1), p(p), l(l), buf(buf), tmp(tmp) {
    zero = e.index(0);
    one = e.index(1);
    mode = gateMode(p);
  }

protected:
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(e.b, pred, x, y);
  }

  Value notOf(Value x) {
    return arith::XOrIOp::create(
        e.b, x, arith::ConstantOp::create(e.b, e.b.getBoolAttr(true)));
  }

  Value load(Value memref, ValueRange indices) {
    return e.toF32(memref::LoadOp::create(e.b, memref, indices));
  }

  Type outputType() {
    return cast<MemRefType>(buf.output.getType()).getElementType();
  }

  void begin() {
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    head = WorkgroupIdOp::create(e.b, 1);
    kvHead = e.div(head, e.index(p.headsPerKv()));
    Value grid = e.index(VulkanGlaChunkLayout::kGrid);
    rowThread = arith::DivUIOp::create(e.b, thread, grid);
    colThread = arith::RemUIOp::create(e.b, thread, grid);
  }

  /// clamp(cu_seqlens[i], 0, seq).
  Value cuEntry(Value i) {
    return emitSequenceEdge(e, buf.cuSeqlens, i, p.seq);
  }

  /// start, end and batchIdx of sequence `n`.
  void sequenceBounds(Value n) {
    if (!p.packed) {
      batchIdx = n;
      start = zero;
      end = e.index(p.seq);
    } else {
      batchIdx = zero;
      start = cuEntry(n);
      end = e.max(cuEntry(e.add(n, one)), start);
    }
    seqLen = e.sub(end, start);
  }

  /// The first slot of sequence `n` (after sequenceBounds(n)).
  Value baseSlot(Value n) {
    if (!p.packed)
      return e.mul(n, e.index(maxChunks(p, l)));
    return e.add(e.div(start, e.index(l.chunk)), n);
  }

  Value chunkCount() {
    return e.div(e.add(seqLen, e.index(l.chunk - 1)), e.index(l.chunk));
  }

  /// Runs `body` with seqId, the sequence's bounds, the chunk c0 (first
  /// scan index) and len (its steps) of `slot`, when the slot holds a
  /// chunk. Packed slots find their sequence by binary search over the
  /// (non-decreasing) first slots of the sequences.
  void withChunkOfSlot(Value slot, function_ref<void()> body) {
    if (!p.packed) {
      seqId = e.div(slot, e.index(maxChunks(p, l)));
      sequenceBounds(seqId);
      chunkIndex = e.sub(slot, baseSlot(seqId));
      chunkBody(body);
      return;
    }
    // The last n in [0, N) with baseSlot(n) <= slot.
    Value lo = zero, hi = e.index(p.numSeqs);
    int64_t steps = 0;
    for (int64_t span = p.numSeqs; span > 0; span /= 2)
      ++steps;
    SmallVector<Value> range = e.forLoop(
        zero, e.index(steps + 1), one, {lo, hi},
        [&](Value, ValueRange bounds) -> SmallVector<Value> {
          Value low = bounds[0], high = bounds[1];
          // mid = ceil((low + high) / 2), probing while low < high - 1.
          Value mid = e.div(e.add(e.add(low, high), one), e.index(2));
          Value probe = e.min(mid, e.index(p.numSeqs - 1));
          Value base = e.add(e.div(cuEntry(probe), e.index(l.chunk)), probe);
          Value open = cmp(arith::CmpIPredicate::slt, e.add(low, one), high);
          Value fits = arith::AndIOp::create(
              e.b, open, cmp(arith::CmpIPredicate::sle, base, slot));
          Value shrink = arith::AndIOp::create(e.b, open, notOf(fits));
          return {e.select(fits, mid, low), e.select(shrink, mid, high)};
        });
    seqId = range[0];
    sequenceBounds(seqId);
    chunkIndex = e.sub(slot, baseSlot(seqId));
    Value inside = arith::AndIOp::create(
        e.b, cmp(arith::CmpIPredicate::sge, chunkIndex, zero),
        cmp(arith::CmpIPredicate::slt, chunkIndex, chunkCount()));
    emitIf(e, inside, [&] { chunkBody(body); });
  }

  void chunkBody(function_ref<void()> body) {
    c0 = e.mul(chunkIndex, e.index(l.chunk));
    len = e.min(e.index(l.chunk), e.sub(seqLen, c0));
    if (p.hasGamma())
      gamma = loadGamma();
    body();
  }

  /// The step of scan index `i` of the sequence.
  Value rowOf(Value i) {
    return p.reverse ? e.sub(e.sub(end, one), i) : e.add(start, i);
  }

  /// The step of chunk step `t` (clamped into the chunk: rows past it read
  /// its last step, and callers mask them).
  Value chunkRow(Value t) {
    return rowOf(e.add(c0, e.min(t, e.sub(len, one))));
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
  /// past the chunk and head_dim_v) into `tile` [rows, block_v].
  void stageValues(Value tile, Value s0, int64_t rows) {
    forEachShared(e, l.kThreads, thread, rows * l.blockV, [&](Value i) {
      Value s = arith::DivUIOp::create(e.b, i, e.index(l.blockV));
      Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockV));
      Value step = e.add(s0, s);
      Value col = e.add(v0, c);
      Value valid = arith::AndIOp::create(
          e.b, cmp(arith::CmpIPredicate::slt, step, len),
          cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV)));
      Value v = load(buf.value, {batchIdx, chunkRow(step), kvHead,
                                 e.min(col, e.index(p.dimV - 1))});
      memref::StoreOp::create(e.b, e.select(valid, v, e.constF32(0.0f)), tile,
                              i);
    });
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

  Emitter e;
  const GlaProblem &p;
  const VulkanGlaChunkLayout &l;
  const GlaBuffers &buf;
  const Temporaries &tmp;
  GateMode mode;
  Value zero, one, thread, head, kvHead, rowThread, colThread;
  Value seqId, batchIdx, start, end, seqLen, chunkIndex, c0, len, gamma, v0;
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

} // namespace mlir::ejk::chunk_parallel

#endif // EJK_OPS_LINEAR_VULKAN_CHUNKKERNEL_H
