//===- RaggedRows.h - a ragged batch as rows of decodes ---------*- C++ -*-===//
//
// The paged decode kernels of both targets (Cpu/Kernel.cpp,
// Vulkan/Kernel.cpp) run ejk.ragged_paged_attention and
// ejk.prefill_paged_attention as one decode per packed query row: the
// workgroup's "sequence" index is the row, and this source says which
// sequence owns the row (its page-table row) and how many of that
// sequence's tokens the row sees, which is its position + 1 (causal,
// bottom-right); the decode's window rule ("the last w of them") is then
// the ragged op's. A row no live sequence owns sees no token and is
// written 0. Every index read is clamped (the op's description).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_RAGGEDROWS_H
#define EJK_OPS_PAGED_RAGGEDROWS_H

#include "Common/CpuEmitter.h"

#include "ejk/Ops/Paged/Problem.h"
#include "ejk/Ops/Paged/RaggedProblem.h"

namespace mlir::ejk {

/// What a decode kernel needs of one packed row.
struct RaggedRow {
  /// The page-table row (a sequence slot, 0 for a dead row).
  Value tableRow;
  /// Tokens of that sequence the row sees: [0, length) before the window.
  Value length;
  /// The sequence's cached context `c = kv_len - q_len` and the row's query
  /// index `i` in its sequence (position c + i): what unified_attention's
  /// score biases read. Null when the problem has none.
  Value context, queryIndex;
  /// Whether another dispatch writes the row (Vulkan: the cooperative
  /// kernel takes the rows of sequences with several queries); null when
  /// every row is the decode's.
  Value skip;
};

class RaggedRowSource {
public:
  RaggedRowSource(const RaggedPagedProblem &problem,
                  const RaggedPagedBuffers &buffers,
                  bool skipsMultiQueryRows = false)
      : p(problem), buf(buffers), skipsMultiQuery(skipsMultiQueryRows) {}

  const RaggedPagedProblem &problem() const { return p; }
  /// softmax_aux, or null.
  Value sinks() const { return buf.sinks; }

  /// The sequence that owns packed row `row` and the tokens it sees.
  RaggedRow find(Emitter &e, Value row) const {
    Value zero = e.index(0);
    Value maxContext = e.index(p.maxContext());
    if (p.uniformQ) {
      Value q = e.index(p.uniformQ);
      Value seq = e.div(row, q);
      Value i = arith::RemSIOp::create(e.b, row, q);
      Value length = clampedLength(e, seq, maxContext);
      Value one = e.index(1);
      Value position1 = e.add(e.sub(length, e.sub(q, i)), one);
      return {seq, e.max(zero, e.min(position1, length)), {}, {}, {}};
    }
    Value tokens = e.index(p.numTokens);
    // No count (unified_attention): every slot is live.
    Value live = e.index(p.numSeqs);
    if (buf.numSeqs)
      live = e.max(zero, e.min(load(e, buf.numSeqs, zero), live));
    Value first = e.max(zero, e.min(load(e, buf.cuQLens, zero), tokens));
    Value none = e.index(-1);
    SmallVector<Value> found = e.forLoop(
        zero, live, e.index(1), {first, none, zero, zero},
        [&](Value s, ValueRange it) {
          Value prev = it[0];
          Value next = e.max(
              prev, e.min(load(e, buf.cuQLens, e.add(s, e.index(1))), tokens));
          Value beforeNext =
              arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, row, next);
          Value atOrAfterPrev =
              arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, prev, row);
          Value hit = arith::AndIOp::create(e.b, atOrAfterPrev, beforeNext);
          return SmallVector<Value>{next, e.select(hit, s, it[1]),
                                    e.select(hit, prev, it[2]),
                                    e.select(hit, next, it[3])};
        });
    Value seq = found[1], lo = found[2], hi = found[3];
    Value owned =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge, seq, zero);
    Value tableRow = e.max(seq, zero);
    Value length = clampedLength(e, tableRow, maxContext);
    // Query i of q_len sits at position length - q_len + i.
    Value one = e.index(1);
    Value position1 = e.add(e.sub(length, e.sub(hi, row)), one);
    Value seen = e.max(zero, e.min(position1, length));
    RaggedRow result{tableRow, e.select(owned, seen, zero), {}, {}, {}};
    if (skipsMultiQuery) {
      Value two = e.index(2);
      Value several = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge,
                                            e.sub(hi, lo), two);
      result.skip = arith::AndIOp::create(e.b, owned, several);
    }
    if (p.hasScoreBias()) {
      result.context = e.sub(length, e.sub(hi, lo));
      result.queryIndex = e.sub(row, lo);
    }
    return result;
  }

  /// `score` of token `t` for query head `head` of `row` plus
  /// unified_attention's biases: ALiBi `slope[head] * (t - c)` and
  /// `qq_bias[i, t - c]` where both indices fall inside it.
  Value addScoreBias(Emitter &e, const RaggedRow &row, Value head, Value t,
                     Value score) const {
    if (!p.hasScoreBias())
      return score;
    Value rel = e.sub(t, row.context);
    if (buf.alibi) {
      Value slope =
          e.toF32(memref::LoadOp::create(e.b, buf.alibi, ValueRange{head}));
      Value distance = arith::SIToFPOp::create(
          e.b, e.f32, arith::IndexCastOp::create(e.b, e.b.getI32Type(), rel));
      score = e.fadd(score, e.fmul(slope, distance));
    }
    if (buf.qqBias) {
      Value zero = e.index(0), n = e.index(p.qqBiasSize);
      Value last = e.index(p.qqBiasSize - 1);
      auto inRange = [&](Value x) {
        Value belowN =
            arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, x, n);
        Value nonNegative =
            arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge, x, zero);
        return arith::AndIOp::create(e.b, nonNegative, belowN);
      };
      Value relInside = inRange(rel);
      Value inside =
          arith::AndIOp::create(e.b, inRange(row.queryIndex), relInside);
      Value bias = e.toF32(memref::LoadOp::create(
          e.b, buf.qqBias,
          ValueRange{e.max(zero, e.min(row.queryIndex, last)),
                     e.max(zero, e.min(rel, last))}));
      score = e.fadd(score, e.select(inside, bias, e.constF32(0.0f)));
    }
    return score;
  }

  /// Indices of head `head`, dim `d` of packed row `row` in the queries or
  /// the output ([tokens, heads, dim], or [batch, seq_q, heads, dim]).
  SmallVector<Value> rowIndices(Emitter &e, Value buffer, Value row, Value head,
                                Value d) const {
    if (cast<MemRefType>(buffer.getType()).getRank() == 4) {
      Value q = e.index(p.uniformQ);
      return {e.div(row, q), arith::RemSIOp::create(e.b, row, q), head, d};
    }
    return {row, head, d};
  }

private:
  static Value load(Emitter &e, Value memref, Value i) {
    Value v = memref::LoadOp::create(e.b, memref, ValueRange{i});
    return arith::IndexCastOp::create(e.b, e.b.getIndexType(), v);
  }
  Value clampedLength(Emitter &e, Value seq, Value maxContext) const {
    Value upper = e.min(load(e, buf.kvLens, seq), maxContext);
    return e.max(e.index(0), upper);
  }

  const RaggedPagedProblem &p;
  const RaggedPagedBuffers &buf;
  /// Marks the rows of sequences with two or more queries `skip`
  /// (ragged batches only: a prefill's rows are all one kind).
  bool skipsMultiQuery;
};

/// The decode problem whose sequences are the packed rows of `p`.
inline PagedAttentionProblem raggedAsDecode(const RaggedPagedProblem &p) {
  PagedAttentionProblem d;
  d.batch = p.numTokens;
  d.numHeads = p.numHeads;
  d.numKvHeads = p.numKvHeads;
  d.headDim = p.headDim;
  d.numPages = p.numPages;
  d.pageSize = p.pageSize;
  d.maxPagesPerSeq = p.pagesPerSeq;
  d.tokenMajor = p.tokenMajor;
  d.softmaxScale = p.softmaxScale;
  d.kScale = p.kScale;
  d.vScale = p.vScale;
  d.softCap = p.softCap;
  d.window = p.window;
  d.queryType = p.queryType;
  d.cacheType = p.cacheType;
  return d;
}

/// Merges the sinks' logit into a finished row (max, sum) and returns the
/// factor its accumulator is multiplied by for the output: v_scale /
/// (sum + exp(sink)) in the row's frame, 0 for a row with nothing.
inline Value sinkedOutputScale(Emitter &e, Value max, Value sum, Value sink,
                               float vScale) {
  Value top = e.fmax(max, sink);
  Value f = e.exp(e.fsub(max, top));
  Value sinkWeight = e.exp(e.fsub(sink, top));
  Value total = e.fadd(e.fmul(sum, f), sinkWeight);
  return e.fdiv(e.fmul(f, e.constF32(vScale)), total);
}

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_RAGGEDROWS_H
