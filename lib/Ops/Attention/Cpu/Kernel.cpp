//===- Kernel.cpp - flash attention tile bodies for CPUs ------------------===//
//
// The attention dispatch computes, for one workgroup = (query block, head,
// batch):
//
//   Qs = scale * Q[rows]                       (f32 scratch, block_q x D)
//   for each key block that masking does not rule out entirely:
//     S  = Qs K^T       register-blocked outer products over packed K^T
//     S  = mask(softcap(S) + bias)             -inf where not allowed
//     online softmax: m, l, P = exp(S - m); O *= exp(m_old - m)
//     O += dropout(P) V  register-blocked outer products over V rows
//   out = O / l, lse = m + log(l)
//
// When a head's seq_q leaves rows of the block idle (decode) and several
// query heads share a KV head, the workgroup is (row block, KV head, batch)
// and its rows are (query head of the group, position) pairs, so each K/V
// block is read once for the whole group (CpuAttentionPlan::packsGroupRows).
// With few rows per head K/V are read in place and S comes from per-key dot
// products (readsKvInPlace). With split keys (key_splits) a workgroup runs
// its share of the key blocks and writes O, m and l unnormalized; the
// combine dispatch merges the shares.
//
// Register blocks: `kRows` query rows by `colVectors` vectors of keys (QK)
// or of value columns (PV), sized so that the accumulators, the streamed
// vectors and one broadcast fit in the register file (16 on AVX2, 32 on
// AVX-512).
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/Kernel.h"
#include "Attention/LiveBlocks.h"
#include "Attention/Options.h"
#include "Common/CpuEmitter.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Support/DropoutHash.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;
using namespace mlir::ejk;

namespace {

constexpr int64_t kRows = 4;

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// Largest of {maxVectors, ..., 2, 1} that divides `vectors`.
int64_t vectorsPerBlock(int64_t vectors, int64_t maxVectors) {
  for (int64_t n = maxVectors; n > 1; n /= 2)
    if (vectors % n == 0)
      return n;
  return 1;
}

/// Where a row of a workgroup reads and writes: its query head, its position
/// on the query axis (past seq_q for rows past the end; only used for
/// positional masks) and that position clamped to seq_q - 1 (for loads; such
/// rows are computed but never stored).
struct RowCoords {
  Value head, pos, index;
};

/// Row `r` of the workgroup whose rows start at `rowStart`, at grid
/// position `gridHead` (a head, or a KV head when rows are grouped).
RowCoords rowCoordsOf(Emitter &e, const CpuAttentionPlan &p, Value rowStart,
                      Value gridHead, Value r) {
  Value row = e.add(rowStart, r);
  if (!p.packsGroupRows())
    return {gridHead, row, e.min(row, e.index(p.seqQ - 1))};
  Value clamped = e.min(row, e.index(p.rowsPerHead() - 1));
  Value seqQ = e.index(p.seqQ);
  Value pos = arith::RemUIOp::create(e.b, clamped, seqQ);
  Value inGroup = arith::DivUIOp::create(e.b, clamped, seqQ);
  return {e.add(e.mul(gridHead, e.index(p.groupSize())), inGroup), pos, pos};
}

/// The attention dispatch body, in the order the header comment describes.
class AttentionBodyBuilder {
public:
  AttentionBodyBuilder(OpBuilder &builder, Location loc,
                       const CpuAttentionPlan &plan,
                       const CpuAttentionBuffers &buffers)
      : e(builder, loc, plan.lanes), p(plan), buf(buffers) {
    paddedD = roundUp(p.headDim, p.lanes);
    paddedDv = roundUp(p.headDimV, p.lanes);
    int64_t maxVectors = p.lanes >= 16 ? 4 : 2;
    keyVectors = vectorsPerBlock(p.blockK / p.lanes, maxVectors);
    valueVectors = vectorsPerBlock(paddedDv / p.lanes, maxVectors);
    rowBlock = p.blockQ % kRows == 0 ? kRows : (p.blockQ % 2 == 0 ? 2 : 1);
  }

  void build() {
    // Workgroup position.
    Value x = WorkgroupIdOp::create(e.b, 0);
    gridHead = WorkgroupIdOp::create(e.b, 1);
    Value headId = gridHead;
    batch = WorkgroupIdOp::create(e.b, 2);
    zero = e.index(0);
    one = e.index(1);
    // Split keys: one row block, x is the split.
    if (p.keySplits > 1) {
      split = x;
      qBlock = zero;
    } else {
      qBlock = x;
    }
    rowStart = e.mul(qBlock, e.index(p.blockQ));
    Value rowsLeft = e.sub(e.index(p.rowsPerHead()), rowStart);
    numRows = e.min(e.index(p.blockQ), rowsLeft);
    if (p.packsGroupRows()) {
      kvHead = headId;
      // Rows cover every position of some heads: bound conservatively.
      firstPos = zero;
      lastPos = e.index(p.seqQ - 1);
    } else {
      head = headId;
      kvHead = e.div(head, e.index(p.groupSize()));
      firstPos = rowStart;
      lastPos = e.add(rowStart, e.sub(numRows, one));
    }
    readSequenceLengths();

    // Per-workgroup scratch.
    qTile = e.scratch({p.blockQ, paddedD});
    sTile = e.scratch({p.blockQ, p.blockK});
    oTile = e.scratch({p.blockQ, paddedDv});
    rowMax = e.scratch({p.blockQ});
    rowSum = e.scratch({p.blockQ});

    initialize();
    Value lo, hi;
    if (p.sparse) {
      // Block-sparse: the live key blocks of this query block, listed by
      // the live-block dispatch (LiveBlocks.h).
      LiveBlockList list = liveBlockList(e, p, buf, batch, head, qBlock);
      lo = zero;
      hi = list.count(e);
      splitKeyBlocks(lo, hi);
      e.forLoop(lo, hi, one, [&](Value i) { processKeyBlock(list.at(e, i)); });
    } else {
      keyBlockRange(lo, hi);
      splitKeyBlocks(lo, hi);
      e.forLoop(lo, hi, one,
                [&](Value keyBlock) { processKeyBlock(keyBlock); });
    }
    finalize();
  }

private:
  RowCoords rowCoords(Value r) {
    return rowCoordsOf(e, p, rowStart, gridHead, r);
  }

  /// This batch's query and key lengths (variable-length batches; the
  /// static sizes otherwise) and the causal/window anchor offset.
  void readSequenceLengths() {
    lenQ = p.varlenQ ? loadSequenceLength(e, buf.cumSeqlensQ, batch, p.seqQ)
                     : e.index(p.seqQ);
    lenK = p.varlenK ? loadSequenceLength(e, buf.cumSeqlensK, batch, p.seqK)
                     : e.index(p.seqK);
    offset = p.offsetPerBatch() ? e.sub(lenK, lenQ) : e.index(p.maskOffset());
  }

  /// O = 0, m = -inf, l = 0, Qs = scale * Q (rows past seq_q repeat the last
  /// row; they are computed but never stored).
  void initialize() {
    Value zeroVec = e.splatF32(0.0f);
    Value scale = e.splatF32(p.softmaxScale);
    e.forLoop(zero, e.index(p.blockQ), one, [&](Value r) {
      RowCoords row = rowCoords(r);
      // Sinks start the online softmax: m = max(sinks), l = sum exp(sink -
      // m). With split keys only split 0 counts them, once.
      Value m0 = e.negInf(), l0 = e.constF32(0.0f);
      if (p.hasSinks()) {
        SinkStats sinks = sinkStats(e, p, buf.softmaxAux, row.head);
        m0 = sinks.max;
        l0 = sinks.sum;
        if (p.keySplits > 1) {
          Value first =
              arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, split, zero);
          m0 = e.select(first, m0, e.negInf());
          l0 = e.select(first, l0, e.constF32(0.0f));
        }
      }
      memref::StoreOp::create(e.b, m0, rowMax, ValueRange{r});
      memref::StoreOp::create(e.b, l0, rowSum, ValueRange{r});
      for (int64_t d = 0; d < paddedDv; d += p.lanes)
        vector::StoreOp::create(e.b, zeroVec, oTile, ValueRange{r, e.index(d)});
      for (int64_t d = 0; d < paddedD; d += p.lanes) {
        Value q =
            e.readVector(buf.query, {batch, row.index, row.head, e.index(d)},
                         d + p.lanes <= p.headDim);
        Value column = e.index(d);
        vector::StoreOp::create(e.b, e.fmul(q, scale), qTile,
                                ValueRange{r, column});
      }
    });
  }

  /// [lo, hi) key blocks that some row of this workgroup may attend to.
  void keyBlockRange(Value &lo, Value &hi) {
    Value keyLo = zero;
    // Keys past this batch's length are never seen.
    Value keyHi = lenK;
    Value lastRowPos = e.add(lastPos, offset);
    if (p.causal)
      keyHi = e.min(keyHi, e.add(lastRowPos, one));
    if (p.slidingWindow) {
      auto [left, right] = *p.slidingWindow;
      Value leftWidth = e.index(left);
      keyLo = e.max(zero, e.sub(e.add(firstPos, offset), leftWidth));
      keyHi = e.min(keyHi, e.add(lastRowPos, e.index(right + 1)));
    }
    // A workgroup whose rows all lie past this batch's query length sees
    // no key.
    if (p.varlenQ)
      keyHi = e.select(
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge, firstPos, lenQ),
          keyLo, keyHi);
    Value blockK = e.index(p.blockK);
    lo = e.div(keyLo, blockK);
    Value roundUp = e.index(p.blockK - 1);
    Value ceil = e.div(e.add(e.max(keyHi, zero), roundUp), blockK);
    Value any =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt, keyHi, keyLo);
    hi = e.select(any, ceil, lo);
  }

  /// With split keys, this split's share of the key blocks [lo, hi) (or of
  /// the positions of a live-block list).
  void splitKeyBlocks(Value &lo, Value &hi) {
    if (p.keySplits > 1) {
      // This split's share: ceil(count / splits) blocks, maybe none.
      Value splits = e.index(p.keySplits);
      Value roundUp = e.index(p.keySplits - 1);
      Value per = e.div(e.add(e.sub(hi, lo), roundUp), splits);
      Value start = e.min(e.add(lo, e.mul(split, per)), hi);
      hi = e.min(e.add(start, per), hi);
      lo = start;
    }
  }

  void processKeyBlock(Value keyBlock) {
    Value keyStart = e.mul(keyBlock, e.index(p.blockK));
    if (p.readsKvInPlace())
      computeScoresInPlace(keyStart);
    else
      computeScores(keyBlock);
    Value interior = isInteriorBlock(keyStart);
    e.forLoop(zero, e.index(p.blockQ), one,
              [&](Value r) { softmaxRow(r, keyStart, interior); });
    accumulateValues(keyStart);
  }

  /// Whether no positional bound (seq_k, causal, window) cuts the key block
  /// for any row of the workgroup; null when none can.
  Value isInteriorBlock(Value keyStart) {
    if (p.seqK % p.blockK == 0 && !p.causal && !p.slidingWindow && !p.chunkSize)
      return {};
    auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
      return arith::CmpIOp::create(e.b, pred, x, y).getResult();
    };
    auto andI = [&](Value x, Value y) {
      return arith::AndIOp::create(e.b, x, y).getResult();
    };
    Value lastKey = e.add(keyStart, e.index(p.blockK - 1));
    Value firstDiag = e.add(firstPos, offset);
    Value lastDiag = e.add(lastPos, offset);
    Value interior = cmp(arith::CmpIPredicate::slt, lastKey, e.index(p.seqK));
    if (p.causal)
      interior =
          andI(interior, cmp(arith::CmpIPredicate::sle, lastKey, firstDiag));
    if (p.slidingWindow) {
      auto [left, right] = *p.slidingWindow;
      Value leftWidth = e.index(left);
      interior = andI(interior, cmp(arith::CmpIPredicate::sle,
                                    e.sub(lastDiag, keyStart), leftWidth));
      Value rightWidth = e.index(right);
      interior = andI(interior, cmp(arith::CmpIPredicate::sle,
                                    e.sub(lastKey, firstDiag), rightWidth));
    }
    if (p.chunkSize) {
      // Every row's chunk holds the whole block.
      Value chunk = floorDivPositive(e, firstDiag, *p.chunkSize);
      auto sameChunk = [&](Value position) {
        return cmp(arith::CmpIPredicate::eq,
                   floorDivPositive(e, position, *p.chunkSize), chunk);
      };
      Value lastKeyInside = sameChunk(lastKey);
      Value keysInside = andI(sameChunk(keyStart), lastKeyInside);
      Value blockInside = andI(sameChunk(lastDiag), keysInside);
      interior = andI(interior, blockInside);
    }
    return interior;
  }

  /// S = Qs K^T for one key block: kRows x keyVectors register blocks,
  /// streaming K^T rows (contiguous keys) and broadcasting Qs elements.
  void computeScores(Value keyBlock) {
    int64_t cols = keyVectors * p.lanes;
    Value rowStep = e.index(rowBlock);
    e.forLoop(zero, e.index(p.blockQ), rowStep, [&](Value r0) {
      Value columnStep = e.index(cols);
      e.forLoop(zero, e.index(p.blockK), columnStep, [&](Value c0) {
        SmallVector<Value> inits(rowBlock * keyVectors, e.splatF32(0.0f));
        SmallVector<Value> acc = e.forLoop(
            zero, e.index(p.headDim), one, inits, [&](Value d, ValueRange acc) {
              SmallVector<Value> keys;
              for (int64_t c = 0; c < keyVectors; ++c)
                keys.push_back(vector::LoadOp::create(
                    e.b, e.vf32, buf.packedKeyT,
                    ValueRange{batch, kvHead, keyBlock, d,
                               e.add(c0, e.index(c * p.lanes))}));
              SmallVector<Value> next;
              for (int64_t r = 0; r < rowBlock; ++r) {
                Value q = memref::LoadOp::create(
                    e.b, qTile, ValueRange{e.add(r0, e.index(r)), d});
                Value qv = e.broadcast(q);
                for (int64_t c = 0; c < keyVectors; ++c)
                  next.push_back(e.fma(qv, keys[c], acc[r * keyVectors + c]));
              }
              return next;
            });
        for (int64_t r = 0; r < rowBlock; ++r)
          for (int64_t c = 0; c < keyVectors; ++c)
            vector::StoreOp::create(
                e.b, acc[r * keyVectors + c], sTile,
                ValueRange{e.add(r0, e.index(r)),
                           e.add(c0, e.index(c * p.lanes))});
      });
    });
  }

  /// S = Qs K^T for one key block with K read in place ([B, Sk, Hkv, D]):
  /// each key's row against `rowBlock` query rows at a time, vectorized over
  /// D and summed across lanes. Keys past seq_k read the last key; their
  /// scores are masked.
  void computeScoresInPlace(Value keyStart) {
    Value lastKey = e.index(p.seqK - 1);
    e.forLoop(zero, e.index(p.blockK), one, [&](Value j) {
      Value key = e.min(e.add(keyStart, j), lastKey);
      SmallVector<Value> keyRow;
      for (int64_t d = 0; d < paddedD; d += p.lanes)
        keyRow.push_back(e.readVector(buf.key, {batch, key, kvHead, e.index(d)},
                                      d + p.lanes <= p.headDim));
      Value rowStep = e.index(rowBlock);
      e.forLoop(zero, e.index(p.blockQ), rowStep, [&](Value r0) {
        for (int64_t r = 0; r < rowBlock; ++r) {
          Value row = e.add(r0, e.index(r));
          Value acc = e.splatF32(0.0f);
          for (auto [i, k] : llvm::enumerate(keyRow)) {
            Value q = vector::LoadOp::create(
                e.b, e.vf32, qTile,
                ValueRange{row, e.index(static_cast<int64_t>(i) * p.lanes)});
            acc = e.fma(q, k, acc);
          }
          Value score =
              vector::ReductionOp::create(e.b, vector::CombiningKind::ADD, acc);
          memref::StoreOp::create(e.b, score, sTile, ValueRange{row, j});
        }
      });
    });
  }

  /// Lanes of one score vector that the row may attend to.
  /// With `positional` false, only data masks (mask, segments) apply: the
  /// caller knows the key block is inside every positional bound.
  Value allowedLanes(const RowCoords &row, Value key0, bool positional) {
    Value rowPos = row.pos, rowIndex = row.index;
    Value keys = e.laneIndices(key0);
    auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
      return arith::CmpIOp::create(e.b, pred, x, y).getResult();
    };
    auto andI = [&](Value x, Value y) {
      return arith::AndIOp::create(e.b, x, y).getResult();
    };
    // Keys past seq_k, or past this batch's key length.
    Value allowed =
        cmp(arith::CmpIPredicate::slt, keys, e.broadcast(e.toI32(lenK)));
    // Position of the row on the key axis (bottom-right alignment).
    Value diag = e.toI32(e.add(rowPos, offset));
    if (p.causal)
      allowed = andI(allowed,
                     cmp(arith::CmpIPredicate::sle, keys, e.broadcast(diag)));
    if (positional && p.slidingWindow) {
      auto [left, right] = *p.slidingWindow;
      Value lowest = arith::SubIOp::create(e.b, diag, e.constI32(left));
      Value highest = arith::AddIOp::create(e.b, diag, e.constI32(right));
      allowed = andI(allowed,
                     cmp(arith::CmpIPredicate::sge, keys, e.broadcast(lowest)));
      allowed = andI(
          allowed, cmp(arith::CmpIPredicate::sle, keys, e.broadcast(highest)));
    }
    if (positional && p.chunkSize) {
      // Keys of the row's chunk: [c * chunk, (c + 1) * chunk).
      int64_t size = *p.chunkSize;
      Value chunkSize = e.index(size);
      Value first = e.toI32(
          e.mul(floorDivPositive(e, e.add(rowPos, offset), size), chunkSize));
      Value end = arith::AddIOp::create(e.b, first, e.constI32(size));
      allowed = andI(allowed,
                     cmp(arith::CmpIPredicate::sge, keys, e.broadcast(first)));
      allowed =
          andI(allowed, cmp(arith::CmpIPredicate::slt, keys, e.broadcast(end)));
    }
    if (buf.kvSegmentIds) {
      Value qSeg = memref::LoadOp::create(e.b, buf.qSegmentIds,
                                          ValueRange{batch, rowIndex});
      Value kvSeg = e.readVector(buf.kvSegmentIds, {batch, key0},
                                 /*inBounds=*/false);
      allowed = andI(allowed,
                     cmp(arith::CmpIPredicate::eq, kvSeg, e.broadcast(qSeg)));
    }
    if (buf.mask) {
      // i1 buffers hold one byte per element; read them element-wise.
      Value maskBatch = p.maskBroadcastsBatch ? zero : batch;
      Value maskHead = p.maskBroadcastsHeads ? zero : row.head;
      Value lastKey = e.index(p.seqK - 1);
      SmallVector<Value> bits;
      for (int64_t l = 0; l < p.lanes; ++l) {
        Value key = e.min(e.add(key0, e.index(l)), lastKey);
        bits.push_back(memref::LoadOp::create(
            e.b, buf.mask, ValueRange{maskBatch, maskHead, rowIndex, key}));
      }
      Value maskVec = vector::FromElementsOp::create(
          e.b, VectorType::get({p.lanes}, e.b.getI1Type()), bits);
      allowed = andI(allowed, maskVec);
    }
    auto rowCondition = [&](Value bit) {
      return vector::BroadcastOp::create(
                 e.b, VectorType::get({p.lanes}, e.b.getI1Type()), bit)
          .getResult();
    };
    if (p.varlenQ)
      allowed = andI(
          allowed, rowCondition(cmp(arith::CmpIPredicate::slt, rowPos, lenQ)));
    if (buf.paddingMask) {
      // Padded queries see nothing; padded keys are seen by no one.
      Value lastKey = e.index(p.seqK - 1);
      SmallVector<Value> bits;
      for (int64_t l = 0; l < p.lanes; ++l) {
        Value key = e.min(e.add(key0, e.index(l)), lastKey);
        bits.push_back(memref::LoadOp::create(e.b, buf.paddingMask,
                                              ValueRange{batch, key}));
      }
      allowed = andI(
          allowed, vector::FromElementsOp::create(
                       e.b, VectorType::get({p.lanes}, e.b.getI1Type()), bits));
      allowed = andI(allowed,
                     rowCondition(memref::LoadOp::create(
                         e.b, buf.paddingMask, ValueRange{batch, rowIndex})));
    }
    return allowed;
  }

  /// Soft cap, bias and masking, then the online-softmax update of row r.
  void softmaxRow(Value r, Value keyStart, Value interior) {
    RowCoords row = rowCoords(r);
    Value rowPos = row.pos, rowIndex = row.index;
    int64_t chunks = p.blockK / p.lanes;
    Value negInfVec = e.broadcast(e.negInf());

    // Pass 1: logits and their max. Interior blocks skip the positional
    // masks.
    auto logits = [&](bool positional) {
      return e.forLoop(
          zero, e.index(chunks), one, {negInfVec},
          [&](Value c, ValueRange iter) {
            Value col = e.mul(c, e.index(p.lanes));
            Value key0 = e.add(keyStart, col);
            Value s =
                vector::LoadOp::create(e.b, e.vf32, sTile, ValueRange{r, col});
            if (p.softCap) {
              Value cap = e.splatF32(*p.softCap);
              Value inv = e.splatF32(1.0f / *p.softCap);
              s = e.fmul(cap, math::TanhOp::create(e.b, e.fmul(s, inv)));
            }
            if (buf.bias) {
              Value bb = p.biasBroadcastsBatch ? zero : batch;
              Value bh = p.biasBroadcastsHeads ? zero : row.head;
              s = e.fadd(s, e.readVector(buf.bias, {bb, bh, rowIndex, key0},
                                         /*inBounds=*/false));
            }
            if (positional || buf.mask || buf.kvSegmentIds || buf.paddingMask ||
                p.varlen())
              s = e.select(allowedLanes(row, key0, positional), s, negInfVec);
            vector::StoreOp::create(e.b, s, sTile, ValueRange{r, col});
            return SmallVector<Value>{e.fmax(iter[0], s)};
          });
    };
    Value maxVec = interior
                       ? e.ifElse(
                             interior, {e.vf32}, [&] { return logits(false); },
                             [&] { return logits(true); })[0]
                       : logits(false)[0];

    Value oldMax = memref::LoadOp::create(e.b, rowMax, ValueRange{r});
    Value blockMax = vector::ReductionOp::create(
        e.b, vector::CombiningKind::MAXNUMF, maxVec);
    Value newMax = e.fmax(oldMax, blockMax);
    // A row with nothing allowed yet keeps m = -inf; subtract 0 instead so
    // exp(-inf - m) stays 0 and never becomes NaN.
    Value isEmpty = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ,
                                          newMax, e.negInf());
    Value shift = e.select(isEmpty, e.constF32(0.0f), newMax);
    Value alpha = e.exp(e.fsub(oldMax, shift));
    Value shiftVec = e.broadcast(shift);

    // Row-uniform part of the dropout hash.
    Value rowHash;
    if (p.dropoutProb) {
      uint32_t seeded =
          ::ejk::mix32(::ejk::mix32(static_cast<uint32_t>(p.dropoutSeed) ^
                                    ::ejk::kDropoutSeedSalt) ^
                       static_cast<uint32_t>(p.dropoutSeed >> 32));
      Value h = e.constI32(static_cast<int32_t>(seeded));
      h = emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(batch)));
      h = emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(row.head)));
      rowHash = emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(rowPos)));
    }

    // Pass 2: probabilities, their sum, dropout.
    Value zeroVec = e.splatF32(0.0f);
    Value sumVec = e.forLoop(
        zero, e.index(chunks), one, {zeroVec}, [&](Value c, ValueRange iter) {
          Value col = e.mul(c, e.index(p.lanes));
          Value s =
              vector::LoadOp::create(e.b, e.vf32, sTile, ValueRange{r, col});
          Value prob = e.exp(e.fsub(s, shiftVec));
          Value sum = e.fadd(iter[0], prob);
          if (p.dropoutProb)
            prob = applyDropout(prob, rowHash, e.add(keyStart, col));
          vector::StoreOp::create(e.b, prob, sTile, ValueRange{r, col});
          return SmallVector<Value>{sum};
        })[0];
    Value blockSum =
        vector::ReductionOp::create(e.b, vector::CombiningKind::ADD, sumVec);
    Value oldSum = memref::LoadOp::create(e.b, rowSum, ValueRange{r});
    Value newSum = e.fadd(e.fmul(oldSum, alpha), blockSum);
    memref::StoreOp::create(e.b, newSum, rowSum, ValueRange{r});
    memref::StoreOp::create(e.b, newMax, rowMax, ValueRange{r});

    Value alphaVec = e.broadcast(alpha);
    for (int64_t d = 0; d < paddedDv; d += p.lanes) {
      Value o =
          vector::LoadOp::create(e.b, e.vf32, oTile, ValueRange{r, e.index(d)});
      Value column = e.index(d);
      vector::StoreOp::create(e.b, e.fmul(o, alphaVec), oTile,
                              ValueRange{r, column});
    }
  }

  /// Drops probabilities whose hash falls under the threshold and rescales
  /// the kept ones by 1 / (1 - p).
  Value applyDropout(Value prob, Value rowHash, Value key0) {
    Value keys = e.laneIndices(key0);
    Value bits =
        emitMix32(e, arith::XOrIOp::create(e.b, e.broadcast(rowHash), keys));
    Value top = arith::ShRUIOp::create(e.b, bits, e.splatI32(8));
    uint32_t threshold = ::ejk::dropoutThreshold(*p.dropoutProb);
    Value keep =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::uge, top,
                              e.splatI32(static_cast<int32_t>(threshold)));
    Value scaled = e.fmul(prob, e.splatF32(1.0f / (1.0f - *p.dropoutProb)));
    return e.select(keep, scaled, e.splatF32(0.0f));
  }

  /// O += P V for one key block: kRows x valueVectors register blocks,
  /// streaming V rows and broadcasting probabilities.
  void accumulateValues(Value keyStart) {
    int64_t cols = valueVectors * p.lanes;
    Value rowStep = e.index(rowBlock);
    e.forLoop(zero, e.index(p.blockQ), rowStep, [&](Value r0) {
      Value columnStep = e.index(cols);
      e.forLoop(zero, e.index(paddedDv), columnStep, [&](Value d0) {
        SmallVector<Value> inits;
        for (int64_t r = 0; r < rowBlock; ++r)
          for (int64_t c = 0; c < valueVectors; ++c)
            inits.push_back(vector::LoadOp::create(
                e.b, e.vf32, oTile,
                ValueRange{e.add(r0, e.index(r)),
                           e.add(d0, e.index(c * p.lanes))}));
        // Keys past seq_k have P = 0 (and zero rows in the packed V; read
        // in place they repeat the last key), so the loop always runs the
        // whole block (a constant trip count).
        Value lastKey = e.index(p.seqK - 1);
        SmallVector<Value> acc = e.forLoop(
            zero, e.index(p.blockK), one, inits, [&](Value j, ValueRange acc) {
              Value key = e.add(keyStart, j);
              SmallVector<Value> values;
              for (int64_t c = 0; c < valueVectors; ++c) {
                Value d = e.add(d0, e.index(c * p.lanes));
                if (p.readsKvInPlace())
                  values.push_back(e.readVector(
                      buf.value, {batch, e.min(key, lastKey), kvHead, d},
                      p.headDimV % p.lanes == 0));
                else
                  values.push_back(vector::LoadOp::create(
                      e.b, e.vf32, buf.packedValue,
                      ValueRange{batch, kvHead, key, d}));
              }
              SmallVector<Value> next;
              for (int64_t r = 0; r < rowBlock; ++r) {
                Value prob = memref::LoadOp::create(
                    e.b, sTile, ValueRange{e.add(r0, e.index(r)), j});
                Value pv = e.broadcast(prob);
                for (int64_t c = 0; c < valueVectors; ++c)
                  next.push_back(
                      e.fma(pv, values[c], acc[r * valueVectors + c]));
              }
              return next;
            });
        for (int64_t r = 0; r < rowBlock; ++r)
          for (int64_t c = 0; c < valueVectors; ++c)
            vector::StoreOp::create(
                e.b, acc[r * valueVectors + c], oTile,
                ValueRange{e.add(r0, e.index(r)),
                           e.add(d0, e.index(c * p.lanes))});
      });
    });
  }

  /// out = O / l and lse = m + log(l) for the rows this workgroup owns; with
  /// split keys O, m and l as they are, for the combine dispatch.
  void finalize() {
    if (p.keySplits > 1) {
      e.forLoop(zero, numRows, one, [&](Value r) {
        for (int64_t d = 0; d < paddedDv; d += p.lanes) {
          Value o = vector::LoadOp::create(e.b, e.vf32, oTile,
                                           ValueRange{r, e.index(d)});
          vector::StoreOp::create(
              e.b, o, buf.partialO,
              ValueRange{batch, gridHead, split, r, e.index(d)});
        }
        Value stats[] = {rowMax, rowSum};
        for (int64_t i = 0; i < 2; ++i) {
          Value statIndex = e.index(i);
          memref::StoreOp::create(
              e.b, memref::LoadOp::create(e.b, stats[i], ValueRange{r}),
              buf.partialStats,
              ValueRange{batch, gridHead, split, r, statIndex});
        }
      });
      return;
    }
    e.forLoop(zero, numRows, one, [&](Value r) {
      RowCoords row = rowCoords(r);
      Value sum = memref::LoadOp::create(e.b, rowSum, ValueRange{r});
      Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                             sum, e.constF32(0.0f));
      // Unnormalized output (normalize_output = false): O as it is,
      // relative to the row max.
      Value inv;
      if (p.normalizeOutput) {
        Value nothing = e.constF32(0.0f);
        inv = e.select(positive, e.fdiv(e.constF32(1.0f), sum), nothing);
      } else {
        inv = e.constF32(1.0f);
      }
      Value invVec = e.broadcast(inv);
      for (int64_t d = 0; d < paddedDv; d += p.lanes) {
        Value o = vector::LoadOp::create(e.b, e.vf32, oTile,
                                         ValueRange{r, e.index(d)});
        Value column = e.index(d);
        e.writeVector(e.fmul(o, invVec), buf.output,
                      {batch, row.index, row.head, column},
                      d + p.lanes <= p.headDimV);
      }
      if (buf.lse) {
        Value max = memref::LoadOp::create(e.b, rowMax, ValueRange{r});
        Value lse = e.fadd(max, math::LogOp::create(e.b, sum));
        memref::StoreOp::create(e.b, e.select(positive, lse, e.negInf()),
                                buf.lse,
                                ValueRange{batch, row.head, row.index});
      }
    });
  }

  Emitter e;
  const CpuAttentionPlan &p;
  const CpuAttentionBuffers &buf;
  int64_t paddedD, paddedDv, keyVectors, valueVectors, rowBlock;
  Value qBlock, head, batch, zero, one, rowStart, numRows, kvHead;
  /// Bounds of the rows' query positions (for the key-block range).
  Value firstPos, lastPos;
  /// Grid y (the head, or the KV head when rows are grouped) and, with
  /// split keys, the split.
  Value gridHead, split;
  Value qTile, sTile, oTile, rowMax, rowSum;
  /// This batch's query and key lengths, and query i's diagonal key minus i.
  Value lenQ, lenK, offset;
};

} // namespace

void mlir::ejk::buildCpuPackBody(OpBuilder &builder, Location loc,
                                 const CpuAttentionPlan &plan, Value key,
                                 Value value, Value packedKeyT,
                                 Value packedValue) {
  Emitter e(builder, loc, plan.lanes);
  Value block = WorkgroupIdOp::create(e.b, 0);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  Value keyStart = e.mul(block, e.index(CpuAttentionPlan::kPackBlock));
  Value keysLeft = e.sub(e.index(plan.paddedSeqK()), keyStart);
  Value numKeys = e.min(e.index(CpuAttentionPlan::kPackBlock), keysLeft);
  Value lastKey = e.index(plan.seqK - 1);
  Value seqK = e.index(plan.seqK);
  Value blockK = e.index(plan.blockK);
  Value zeroVec = e.splatF32(0.0f);
  auto validKey = [&](Value keyIndex) -> Value {
    return arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, keyIndex,
                                 seqK);
  };
  if (plan.headDim % plan.lanes == 0) {
    // K^T, `lanes` keys x `lanes` dims at a time: load the keys' rows,
    // transpose the square in registers, store `lanes` contiguous columns.
    Value lanes = e.index(plan.lanes);
    auto tileType = VectorType::get({plan.lanes, plan.lanes}, e.f32);
    e.forLoop(zero, numKeys, lanes, [&](Value j0) {
      Value key0 = e.add(keyStart, j0);
      Value keyBlock = arith::DivUIOp::create(e.b, key0, blockK);
      Value column = arith::RemUIOp::create(e.b, key0, blockK);
      e.forLoop(zero, e.index(plan.headDim), lanes, [&](Value d0) {
        Value tile = arith::ConstantOp::create(
            e.b, DenseElementsAttr::get(tileType, 0.0f));
        for (int64_t l = 0; l < plan.lanes; ++l) {
          Value keyIndex = e.add(key0, e.index(l));
          Value row = e.readVector(
              key, {batch, e.min(keyIndex, lastKey), head, d0}, true);
          row = e.select(validKey(keyIndex), row, zeroVec);
          tile = vector::InsertOp::create(e.b, row, tile, l);
        }
        Value transposed =
            vector::TransposeOp::create(e.b, tile, ArrayRef<int64_t>{1, 0});
        for (int64_t i = 0; i < plan.lanes; ++i) {
          Value d = e.add(d0, e.index(i));
          vector::StoreOp::create(
              e.b, vector::ExtractOp::create(e.b, transposed, i), packedKeyT,
              ValueRange{batch, head, keyBlock, d, column});
        }
      });
    });
  } else {
    // K^T one element at a time (head dims that are not whole vectors).
    e.forLoop(zero, numKeys, one, [&](Value j) {
      Value keyIndex = e.add(keyStart, j);
      Value source = e.min(keyIndex, lastKey);
      Value keyBlock = arith::DivUIOp::create(e.b, keyIndex, blockK);
      Value column = arith::RemUIOp::create(e.b, keyIndex, blockK);
      e.forLoop(zero, e.index(plan.headDim), one, [&](Value d) {
        Value loaded = memref::LoadOp::create(
            e.b, key, ValueRange{batch, source, head, d});
        Value padding = e.constF32(0.0f);
        Value widened = e.toF32(loaded);
        memref::StoreOp::create(
            e.b, e.select(validKey(keyIndex), widened, padding), packedKeyT,
            ValueRange{batch, head, keyBlock, d, column});
      });
    });
  }
  // V: rows stay rows, widened and zero-padded to whole vectors.
  e.forLoop(zero, numKeys, one, [&](Value j) {
    Value keyIndex = e.add(keyStart, j);
    Value source = e.min(keyIndex, lastKey);
    Value valid = validKey(keyIndex);
    for (int64_t d = 0; d < plan.paddedHeadDimV(); d += plan.lanes) {
      Value row = e.readVector(value, {batch, source, head, e.index(d)},
                               d + plan.lanes <= plan.headDimV);
      Value column = e.index(d);
      vector::StoreOp::create(e.b, e.select(valid, row, zeroVec), packedValue,
                              ValueRange{batch, head, keyIndex, column});
    }
  });
}

void mlir::ejk::buildCpuCombineBody(OpBuilder &builder, Location loc,
                                    const CpuAttentionPlan &plan,
                                    Value partialO, Value partialStats,
                                    Value output, Value lse) {
  Emitter e(builder, loc, plan.lanes);
  Value gridHead = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  Value splits = e.index(plan.keySplits);
  e.forLoop(zero, e.index(plan.rowsPerHead()), one, [&](Value r) {
    RowCoords row = rowCoordsOf(e, plan, zero, gridHead, r);
    auto stat = [&](Value s, int64_t i) -> Value {
      return memref::LoadOp::create(
          e.b, partialStats, ValueRange{batch, gridHead, s, r, e.index(i)});
    };
    // M = max of the splits' maxima; a row no split saw keeps -inf and
    // exponentiates against 0 (so 0 weights, never NaN).
    Value max = e.forLoop(
        zero, splits, one, {e.negInf()}, [&](Value s, ValueRange iter) {
          return SmallVector<Value>{e.fmax(iter[0], stat(s, 0))};
        })[0];
    Value isEmpty =
        arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, max, e.negInf());
    Value shift = e.select(isEmpty, e.constF32(0.0f), max);
    auto weight = [&](Value s) { return e.exp(e.fsub(stat(s, 0), shift)); };
    Value sum = e.forLoop(
        zero, splits, one, {e.constF32(0.0f)}, [&](Value s, ValueRange iter) {
          Value splitWeight = weight(s);
          return SmallVector<Value>{
              e.fadd(iter[0], e.fmul(stat(s, 1), splitWeight))};
        })[0];
    Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                           e.constF32(0.0f));
    Value inv;
    if (plan.normalizeOutput) {
      Value nothing = e.constF32(0.0f);
      inv = e.select(positive, e.fdiv(e.constF32(1.0f), sum), nothing);
    } else {
      inv = e.constF32(1.0f);
    }
    for (int64_t d = 0; d < plan.paddedHeadDimV(); d += plan.lanes) {
      Value o = e.forLoop(zero, splits, one, {e.splatF32(0.0f)},
                          [&](Value s, ValueRange acc) {
                            Value part = vector::LoadOp::create(
                                e.b, e.vf32, partialO,
                                ValueRange{batch, gridHead, s, r, e.index(d)});
                            return SmallVector<Value>{
                                e.fma(e.broadcast(weight(s)), part, acc[0])};
                          })[0];
      Value column = e.index(d);
      e.writeVector(e.fmul(o, e.broadcast(inv)), output,
                    {batch, row.index, row.head, column},
                    d + plan.lanes <= plan.headDimV);
    }
    if (lse) {
      Value value = e.fadd(shift, math::LogOp::create(e.b, sum));
      memref::StoreOp::create(e.b, e.select(positive, value, e.negInf()), lse,
                              ValueRange{batch, row.head, row.index});
    }
  });
}

void mlir::ejk::buildCpuAttentionBody(OpBuilder &builder, Location loc,
                                      const CpuAttentionPlan &plan,
                                      const CpuAttentionBuffers &buffers) {
  AttentionBodyBuilder(builder, loc, plan, buffers).build();
}
