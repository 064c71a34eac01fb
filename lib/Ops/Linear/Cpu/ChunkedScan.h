//===- ChunkedScan.h - the walk of the chunked CPU scans --------*- C++ -*-===//
//
// The gla and delta-rule kernels (Kernel.cpp, DeltaKernel.cpp) share one
// skeleton: workgroup = (head_dim_v block, head, sequence); with cu_seqlens
// the last workgroup zero-fills the steps of no sequence, and every other
// one walks its sequence's chunks in order (last to first with reverse),
// the state tile ([head_dim_k, block_v], f32) in scratch, loaded before the
// first chunk and stored after the last. ChunkedScanBuilder emits that
// skeleton and the pieces both kernels emit alike; each kernel derives from
// it and emits its own chunk.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_CPU_CHUNKEDSCAN_H
#define EJK_OPS_LINEAR_CPU_CHUNKEDSCAN_H

#include "Common/CpuBlocking.h"
#include "Common/CpuEmitter.h"
#include "Linear/Sequences.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

namespace mlir::ejk {

/// x `pred` y on integers.
inline Value cmp(Emitter &e, arith::CmpIPredicate pred, Value x, Value y) {
  return arith::CmpIOp::create(e.b, pred, x, y);
}

/// The negation of a condition.
inline Value notOf(Emitter &e, Value cond) {
  return arith::XOrIOp::create(
      e.b, cond, arith::ConstantOp::create(e.b, e.b.getBoolAttr(true)));
}

/// The walk over a workgroup's sequence. `Plan` is a CpuChunkedPlan;
/// `Buffers` has the family's `cuSeqlens`, `initialState`, `finalState`
/// and `output` ([B, T, H, V]). One op per statement where a call would
/// build two: compilers evaluate arguments in different orders (this is
/// the order GCC built them in).
template <typename Plan, typename Buffers> class ChunkedScanBuilder {
protected:
  ChunkedScanBuilder(OpBuilder &builder, Location loc, const Plan &plan,
                     const Buffers &buffers)
      : e(builder, loc, plan.lanes), p(plan), buf(buffers) {
    kPad = p.kPad();
    cPad = p.chunkPad();
    vVectors = p.blockV / p.lanes;
    kInBounds = p.dimK % p.lanes == 0;
    vInBounds = p.dimV % p.blockV == 0;
  }

  /// Reads the workgroup's ids, then emits `scan` for its sequence
  /// (`batchIdx`, [start, end), `seqLen`, `state` set), or with
  /// cu_seqlens, in the filler workgroup, the zeroes of the steps of no
  /// sequence instead.
  void walkSequences(function_ref<void()> scan) {
    Value vBlock = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    seqId = WorkgroupIdOp::create(e.b, 2);
    zero = e.index(0);
    one = e.index(1);
    v0 = e.mul(vBlock, e.index(p.blockV));
    kvHead = e.div(head, e.index(p.headsPerKv()));
    auto scanSequence = [&] {
      seqLen = e.sub(end, start);
      state = e.scratch({kPad, p.blockV});
      scan();
    };
    if (!p.packed) {
      batchIdx = seqId;
      start = zero;
      end = e.index(p.seq);
      scanSequence();
      return;
    }
    batchIdx = zero;
    Value filler = cmp(e, arith::CmpIPredicate::eq, seqId, e.index(p.numSeqs));
    ifThen(e, filler, [&] { zeroUncovered(); });
    ifThen(e, notOf(e, filler), [&] {
      start = cuEntry(seqId);
      end = e.max(cuEntry(e.add(seqId, one)), start);
      scanSequence();
    });
  }

  /// Loads the state, emits `body(c0, len)` for each chunk (first step
  /// `c0` in scan order, `len` valid steps) and stores the final state.
  void forEachChunk(function_ref<void(Value, Value)> body) {
    loadState();
    Value chunk = e.index(p.chunk);
    Value numChunks = e.div(e.add(seqLen, e.index(p.chunk - 1)), chunk);
    e.forLoop(zero, numChunks, one, [&](Value ci) {
      Value c0 = e.mul(ci, chunk);
      body(c0, e.min(chunk, e.sub(seqLen, c0)));
    });
    if (buf.finalState)
      storeState();
  }

  /// The step of index `i` (in scan order) of the sequence.
  Value rowOf(Value i) {
    return p.reverse ? e.sub(e.sub(end, one), i) : e.add(start, i);
  }
  Value vCol(int64_t vv) { return e.index(vv * p.lanes); }
  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(e.b, memref, indices);
  }
  Value loadVec(Value memref, ValueRange indices) {
    return vector::LoadOp::create(e.b, e.vf32, memref, indices);
  }
  void storeVec(Value value, Value memref, ValueRange indices) {
    vector::StoreOp::create(e.b, value, memref, indices);
  }

  /// The rows r0 .. r0 + rows - 1 of a register block.
  SmallVector<Value> blockRows(Value r0, int64_t rows) {
    SmallVector<Value> indices;
    for (int64_t r = 0; r < rows; ++r)
      indices.push_back(e.add(r0, e.index(r)));
    return indices;
  }

  /// Emits `body(vv0, cols)` for the register blocks' vectors covering the
  /// workgroup's block_v columns.
  void forVectorBlocks(function_ref<void(int64_t, int64_t)> body) {
    for (int64_t vv0 = 0; vv0 < vVectors; vv0 += cpuBlockCols(p.lanes))
      body(vv0, std::min(cpuBlockCols(p.lanes), vVectors - vv0));
  }

  /// Zeroes a transposed [kPad, cPad] buffer: the last score vector reads
  /// its columns past the chunk, which must stay finite.
  void zeroTransposed(Value transposed) {
    e.forLoop(zero, e.index(kPad), one, [&](Value k) {
      for (int64_t s = 0; s < cPad; s += p.lanes) {
        Value col = e.index(s);
        Value zeros = e.splatF32(0.0f);
        storeVec(zeros, transposed, {k, col});
      }
    });
  }

  /// min_k B[row, k] of the cumulative per-key log decays `cumulative`
  /// ([chunk + 1, kPad]); at row `len`, the chunk's strongest decay.
  Value minOverKeys(Value cumulative, Value row) {
    Value acc = loadVec(cumulative, {row, zero});
    for (int64_t kv = p.lanes; kv < kPad; kv += p.lanes)
      acc = arith::MinNumFOp::create(e.b, acc,
                                     loadVec(cumulative, {row, e.index(kv)}));
    return vector::ReductionOp::create(e.b, vector::CombiningKind::MINNUMF,
                                       acc);
  }

  /// Writes a register block of outputs (`acc`, row-major over `tRows` x
  /// `cols` vectors from `vv0`) for the rows t < len of the chunk at `c0`;
  /// `lastIndex` is seqLen - 1.
  void storeOutputs(Value c0, Value len, Value lastIndex, ArrayRef<Value> tRows,
                    int64_t vv0, int64_t cols, ArrayRef<Value> acc) {
    for (size_t r = 0; r < tRows.size(); ++r) {
      Value valid = cmp(e, arith::CmpIPredicate::slt, tRows[r], len);
      ifThen(e, valid, [&] {
        Value row = rowOf(e.min(e.add(c0, tRows[r]), lastIndex));
        for (int64_t c = 0; c < cols; ++c)
          e.writeVector(acc[r * cols + c], buf.output,
                        {batchIdx, row, head, e.add(v0, vCol(vv0 + c))},
                        vInBounds);
      });
    }
  }

  Emitter e;
  const Plan &p;
  const Buffers &buf;
  int64_t kPad, cPad, vVectors;
  bool kInBounds, vInBounds;
  Value head, seqId, zero, one, v0, kvHead, batchIdx, start, end, seqLen;
  /// The state tile, [kPad, block_v].
  Value state;

private:
  /// clamp(cu_seqlens[i], 0, seq).
  Value cuEntry(Value i) {
    return emitSequenceEdge(e, buf.cuSeqlens, i, p.seq);
  }

  /// Zeroes this workgroup's (head, v block) of the steps outside every
  /// sequence: before clamp(cu[0]) and from clamp(cu[N]) on.
  void zeroUncovered() {
    Value lo = cuEntry(zero);
    Value hi = e.max(cuEntry(e.index(p.numSeqs)), lo);
    auto fill = [&](Value from, Value to) {
      e.forLoop(from, to, one, [&](Value row) {
        for (int64_t vv = 0; vv < vVectors; ++vv) {
          Value col = e.add(v0, vCol(vv));
          Value zeros = e.splatF32(0.0f);
          e.writeVector(zeros, buf.output, {zero, row, head, col}, vInBounds);
        }
      });
    };
    fill(zero, lo);
    fill(hi, e.index(p.seq));
  }

  void loadState() {
    e.forLoop(zero, e.index(p.dimK), one, [&](Value k) {
      for (int64_t vv = 0; vv < vVectors; ++vv) {
        Value s =
            buf.initialState
                ? e.readVector(buf.initialState,
                               {seqId, head, k, e.add(v0, vCol(vv))}, vInBounds)
                : e.splatF32(0.0f);
        storeVec(s, state, {k, vCol(vv)});
      }
    });
  }

  void storeState() {
    e.forLoop(zero, e.index(p.dimK), one, [&](Value k) {
      for (int64_t vv = 0; vv < vVectors; ++vv) {
        Value col = e.add(v0, vCol(vv));
        Value s = loadVec(state, {k, vCol(vv)});
        e.writeVector(s, buf.finalState, {seqId, head, k, col}, vInBounds);
      }
    });
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_CPU_CHUNKEDSCAN_H
