//===- SlotKernel.h - sequences and chunk slots of the Vulkan kernels -*- C++
//-*-===//
//
// What the Vulkan kernels of the linear family share about where a
// workgroup's steps are: the output steps outside every packed sequence
// (every kernel with cu_seqlens zeroes them), and, for the chunk-parallel
// kernels (gla's, ChunkKernel.h; the delta rule's, DeltaChunk.h), the
// sequence and chunk of a chunk slot: batch row n's chunk c is slot
// n ceil(T / C) + c; with cu_seqlens, sequence n's chunks are at
// floor(s_n / C) + n + c, found by binary search. Builder calls stand one
// a statement, so that the order of the ops does not follow the compiler's
// order of evaluating arguments.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_SLOTKERNEL_H
#define EJK_OPS_LINEAR_VULKAN_SLOTKERNEL_H

#include "Linear/Sequences.h"
#include "StateSpace/Vulkan/Kernels.h"

namespace mlir::ejk {

/// Element `i` of a chunk's [steps, blockV] block of outputs: its step t
/// and column c in the block, its column `col` = v0 + c, and whether t is
/// inside the chunk's `len` steps and `col` inside head_dim_v (`dimV`).
struct BlockElement {
  Value t, c, col, inside;
};

inline BlockElement blockElement(Emitter &e, Value i, int64_t blockV, Value v0,
                                 Value len, int64_t dimV) {
  BlockElement x;
  x.t = arith::DivUIOp::create(e.b, i, e.index(blockV));
  x.c = arith::RemUIOp::create(e.b, i, e.index(blockV));
  x.col = e.add(v0, x.c);
  Value inChunk =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, x.t, len);
  Value inColumns = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, x.col,
                                          e.index(dimV));
  x.inside = arith::AndIOp::create(e.b, inChunk, inColumns);
  return x;
}

/// Zeroes the workgroup's (batch, head, V block from `v0`, `blockV` wide)
/// of the output steps outside every sequence of `buf.cuSeqlens`: before
/// clamp(cu[0]) and from clamp(cu[N]) on, spread over `threads` threads.
template <typename Problem, typename Buffers>
void emitZeroUncovered(Emitter &e, const Problem &p, const Buffers &buf,
                       Value zero, Value thread, int64_t threads, Value batch,
                       Value head, Value v0, int64_t blockV) {
  Value lo = emitSequenceEdge(e, buf.cuSeqlens, zero, p.seq);
  Value hi =
      e.max(emitSequenceEdge(e, buf.cuSeqlens, e.index(p.numSeqs), p.seq), lo);
  Value width = e.index(blockV);
  Type element = cast<MemRefType>(buf.output.getType()).getElementType();
  Value zeroValue = arith::ConstantOp::create(e.b, e.b.getZeroAttr(element));
  auto fill = [&](Value from, Value to) {
    Value total = e.mul(e.sub(to, from), width);
    e.forLoop(zero, total, e.index(threads), [&](Value base) {
      Value i = e.add(base, thread);
      Value col = e.add(v0, arith::RemUIOp::create(e.b, i, width));
      Value dimV = e.index(p.dimV);
      Value inColumns =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, col, dimV);
      Value inRows =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, i, total);
      Value inside = arith::AndIOp::create(e.b, inRows, inColumns);
      emitIf(e, inside, [&] {
        Value row = e.add(from, arith::DivUIOp::create(e.b, i, width));
        memref::StoreOp::create(e.b, zeroValue, buf.output,
                                ValueRange{batch, row, head, col});
      });
    });
  };
  fill(zero, lo);
  fill(hi, e.index(p.seq));
}

/// The base of the chunk-parallel kernels: the emitter, the problem, the
/// layout (`chunk`, `kThreads`), the buffers and the temporaries, and the
/// workgroup's sequence and chunk.
template <typename Problem, typename Layout, typename Buffers,
          typename Temporaries>
class SlotKernel {
public:
  SlotKernel(OpBuilder &builder, Location loc, const Problem &p,
             const Layout &l, const Buffers &buf, const Temporaries &tmp)
      : e(builder, loc, 1), p(p), l(l), buf(buf), tmp(tmp) {
    zero = e.index(0);
    one = e.index(1);
  }

protected:
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(e.b, pred, x, y);
  }

  Value notOf(Value x) {
    return arith::XOrIOp::create(
        e.b, x, arith::ConstantOp::create(e.b, e.b.getBoolAttr(true)));
  }

  /// A load converted to f32.
  Value load(Value memref, ValueRange indices) {
    return e.toF32(memref::LoadOp::create(e.b, memref, indices));
  }

  Type outputType() {
    return cast<MemRefType>(buf.output.getType()).getElementType();
  }

  /// Chunks per batch row (without cu_seqlens).
  int64_t maxChunks() const {
    return ceilDiv(std::max<int64_t>(1, p.seq), l.chunk);
  }

  /// clamp(cu_seqlens[i], 0, seq).
  Value cuEntry(Value i) {
    return emitSequenceEdge(e, buf.cuSeqlens, i, p.seq);
  }

  /// start, end, seqLen and batchIdx of sequence `n`.
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
      return e.mul(n, e.index(maxChunks()));
    return e.add(e.div(start, e.index(l.chunk)), n);
  }

  Value chunkCount() {
    Value chunk = e.index(l.chunk);
    Value last = e.add(seqLen, e.index(l.chunk - 1));
    return e.div(last, chunk);
  }

  /// Sets seqId and its bounds to the sequence of `slot` and returns the
  /// slot's chunk index in it (with cu_seqlens possibly outside [0,
  /// chunkCount()): see slotInSequence). Packed slots find their sequence
  /// by binary search over the (non-decreasing) first slots of the
  /// sequences.
  Value locateSlot(Value slot) {
    if (!p.packed) {
      seqId = e.div(slot, e.index(maxChunks()));
    } else {
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
            Value two = e.index(2);
            Value sum = e.add(low, high);
            Value roundedUp = e.add(sum, one);
            Value mid = e.div(roundedUp, two);
            Value probe = e.min(mid, e.index(p.numSeqs - 1));
            Value chunk = e.index(l.chunk);
            Value first = cuEntry(probe);
            Value base = e.add(e.div(first, chunk), probe);
            Value open = cmp(arith::CmpIPredicate::slt, e.add(low, one), high);
            Value fits = arith::AndIOp::create(
                e.b, open, cmp(arith::CmpIPredicate::sle, base, slot));
            Value shrink = arith::AndIOp::create(e.b, open, notOf(fits));
            return {e.select(fits, mid, low), e.select(shrink, mid, high)};
          });
      seqId = range[0];
    }
    sequenceBounds(seqId);
    return e.sub(slot, baseSlot(seqId));
  }

  /// Whether chunk `index` of the sequence (locateSlot's) holds steps.
  Value slotInSequence(Value index) {
    Value count = chunkCount();
    Value inside = cmp(arith::CmpIPredicate::slt, index, count);
    Value nonNegative = cmp(arith::CmpIPredicate::sge, index, zero);
    return arith::AndIOp::create(e.b, nonNegative, inside);
  }

  /// The step of scan index `i` of the sequence.
  Value rowOf(Value i) {
    return p.reverse ? e.sub(e.sub(end, one), i) : e.add(start, i);
  }

  /// The step of chunk step `t`, clamped into the chunk (rows past it read
  /// its last step; callers mask them).
  Value chunkRow(Value t) {
    return rowOf(e.add(c0, e.min(t, e.sub(len, one))));
  }

  /// Zeroes the output steps outside every sequence (the outputs' filler
  /// slot, once per head and V block of `blockV` columns from v0).
  void zeroUncovered(Value v0, int64_t blockV) {
    emitZeroUncovered(e, p, buf, zero, thread, l.kThreads, zero, head, v0,
                      blockV);
  }

  Emitter e;
  const Problem &p;
  const Layout &l;
  const Buffers &buf;
  const Temporaries &tmp;
  Value zero, one, thread, head, kvHead, rowThread, colThread;
  /// The sequence and chunk: chunkIndex (in the sequence), c0 (its first
  /// scan index) and len (its steps).
  Value seqId, batchIdx, start, end, seqLen, chunkIndex, c0, len;
};

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_SLOTKERNEL_H
