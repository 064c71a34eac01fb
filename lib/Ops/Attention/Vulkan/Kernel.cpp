//===- Kernel.cpp - portable flash attention for Vulkan -------------------===//
//
// One workgroup = (query block, head, batch); thread t = ty * TX + tx (see
// VulkanAttentionLayout.h). Per key block that masking does not rule out:
//
//   S = Q K^T         d-chunks of Q and K staged in shared memory; each
//                     thread accumulates its rows x keys in registers
//   S = logit(S)      scale, soft cap, bias, masks (Attention/Vulkan/Scores.h)
//   online softmax    row max and sum over the TX threads of a row with
//                     subgroup shuffles; P to shared memory
//   O = O * alpha + P V   k-chunks of V staged in shared memory; each
//                     thread accumulates its rows x columns in registers
//
// and at the end out = O / l, lse = m + log(l). All arithmetic is f32;
// f16/bf16 inputs are widened when they are staged.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Kernel.h"
#include "Attention/LiveBlocks.h"
#include "Attention/Options.h"
#include "Attention/Vulkan/Scores.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class PortableAttentionBuilder {
public:
  PortableAttentionBuilder(OpBuilder &builder, Location loc,
                           const VulkanAttentionPlan &plan,
                           const AttentionBuffers &buffers)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers) {}

  void build() {
    qBlock = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    batch = WorkgroupIdOp::create(e.b, 2);
    Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    tx = arith::RemUIOp::create(e.b, thread, e.index(l.threadsX));
    ty = arith::DivUIOp::create(e.b, thread, e.index(l.threadsX));
    threadId = thread;
    rowStart = e.mul(qBlock, e.index(l.blockQ));
    // One op per statement (here and below), in the order GCC evaluated
    // the arguments (last first): the order of argument evaluation differs
    // between compilers, and the IR must not.
    Value rowsLeft = e.sub(e.index(p.seqQ), rowStart);
    Value blockRows = e.index(l.blockQ);
    numRows = e.min(blockRows, rowsLeft);
    kvHead = e.div(head, e.index(p.numHeads / p.numKvHeads));
    myRow0 = e.mul(ty, e.index(l.rowsPerThread));

    qStage = allocWorkgroup(e, l.blockQ * l.qStride());
    kStage = allocWorkgroup(e, l.blockK * l.kStride());
    pStage = allocWorkgroup(e, l.blockQ * l.blockK);
    vStage = allocWorkgroup(e, l.kChunk * l.paddedHeadDimV);

    VulkanScoreRules rules(e, p, buf, batch, head);
    Value lo, hi;
    // Block-sparse: positions in the live-block list of this query block
    // (LiveBlocks.h); dense: the key blocks the positional masks leave.
    std::optional<LiveBlockList> list;
    if (p.sparse) {
      list = workgroupLiveBlockList(e, p, buf, l.blockQ, l.blockK, l.threads,
                                    threadId, batch, head, qBlock);
      lo = e.index(0);
      hi = list->count(e);
    } else {
      rules.keyBlockRange(rowStart, numRows, l.blockK, lo, hi);
    }

    // Loop state: O (rows x cols), m (rows), l (rows).
    int64_t rows = l.rowsPerThread, cols = l.colsPerThread;
    // Sinks start every row of the head: m = max(sinks), l = sum exp(sink
    // - m).
    Value m0 = e.negInf(), l0 = e.constF32(0.0f);
    if (p.hasSinks()) {
      SinkStats sinks = sinkStats(e, p, buf.softmaxAux, head);
      m0 = sinks.max;
      l0 = sinks.sum;
    }
    SmallVector<Value> inits(rows * cols, e.constF32(0.0f));
    for (int64_t i = 0; i < rows; ++i)
      inits.push_back(m0);
    for (int64_t i = 0; i < rows; ++i)
      inits.push_back(l0);
    SmallVector<Value> state =
        e.forLoop(lo, hi, e.index(1), inits, [&](Value kb, ValueRange s) {
          return keyBlock(rules, list ? list->at(e, kb) : kb, s);
        });
    finalize(state);
  }

private:
  int64_t numAcc() const { return l.rowsPerThread * l.colsPerThread; }

  /// Global query row of this thread's i-th row.
  Value rowOf(int64_t i) { return e.add(rowStart, e.add(myRow0, e.index(i))); }

  /// This thread's share of the d-chunk at `d0` of the block's Q rows,
  /// then of the key block's K rows (f32; zero past the problem).
  SmallVector<Value> loadQKChunk(Value keyStart, Value d0) {
    SmallVector<Value> values =
        loadRows(e, l.threads, threadId, batch, buf.query, head, rowStart,
                 p.seqQ, d0, p.headDim, l.blockQ, l.dChunk, e.f32);
    numQValues = values.size();
    values.append(loadRows(e, l.threads, threadId, batch, buf.key, kvHead,
                           keyStart, p.seqK, d0, p.headDim, l.blockK, l.dChunk,
                           e.f32));
    return values;
  }

  /// This thread's share of the k_chunk value rows from `key0`.
  SmallVector<Value> loadVChunk(Value key0) {
    return loadRows(e, l.threads, threadId, batch, buf.value, kvHead, key0,
                    p.seqK, e.index(0), p.headDimV, l.kChunk, l.paddedHeadDimV,
                    e.f32);
  }

  /// Combines `value` over the TX neighbouring threads of a row group.
  Value reduceRow(Value value, bool isMax) {
    return reduceAcrossLanes(e, value, isMax, l.threadsX, l.subgroupSize);
  }

  SmallVector<Value> keyBlock(VulkanScoreRules &rules, Value kb,
                              ValueRange state) {
    int64_t rows = l.rowsPerThread, keys = l.keysPerThread;
    int64_t cols = l.colsPerThread;
    Value keyStart = e.mul(kb, e.index(l.blockK));

    // S = Q K^T over d-chunks.
    // Each chunk's share of Q and K is loaded one chunk ahead, so that the
    // loads' latency hides behind the previous chunk's FMAs.
    int64_t numScores = rows * keys;
    SmallVector<Value> sInit(numScores, e.constF32(0.0f));
    sInit.append(loadQKChunk(keyStart, e.index(0)));
    Value chunkStep = e.index(l.dChunk);
    Value chunkEnd = e.index(l.paddedHeadDim);
    Value chunkStart = e.index(0);
    SmallVector<Value> scores = e.forLoop(
        chunkStart, chunkEnd, chunkStep, sInit,
        [&](Value d0, ValueRange carried) {
          SmallVector<Value> loaded(carried.drop_front(numScores));
          storeRows(e, l.threads, threadId,
                    ArrayRef<Value>(loaded).take_front(numQValues), l.blockQ,
                    l.dChunk, qStage, l.qStride());
          storeRows(e, l.threads, threadId,
                    ArrayRef<Value>(loaded).drop_front(numQValues), l.blockK,
                    l.dChunk, kStage, l.kStride());
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> prefetched =
              loadQKChunk(keyStart, e.add(d0, e.index(l.dChunk)));
          SmallVector<Value> next(carried.begin(), carried.begin() + numScores);
          for (int64_t c = 0; c < l.dChunk; ++c) {
            SmallVector<Value> q, k;
            for (int64_t i = 0; i < rows; ++i) {
              Value column = e.index(c);
              Value stride = e.index(l.qStride());
              Value row = e.add(myRow0, e.index(i));
              Value rowOffset = e.mul(row, stride);
              Value at = e.add(rowOffset, column);
              q.push_back(memref::LoadOp::create(e.b, qStage, ValueRange{at}));
            }
            for (int64_t j = 0; j < keys; ++j) {
              Value column = e.index(c);
              Value stride = e.index(l.kStride());
              Value key = e.add(tx, e.index(j * l.threadsX));
              Value rowOffset = e.mul(key, stride);
              Value at = e.add(rowOffset, column);
              k.push_back(memref::LoadOp::create(e.b, kStage, ValueRange{at}));
            }
            for (int64_t i = 0; i < rows; ++i)
              for (int64_t j = 0; j < keys; ++j)
                next[i * keys + j] =
                    math::FmaOp::create(e.b, q[i], k[j], next[i * keys + j]);
          }
          gpu::BarrierOp::create(e.b);
          next.append(prefetched);
          return next;
        });
    scores.resize(numScores);

    // Online softmax; P to shared memory.
    SmallVector<Value> acc(state.begin(), state.begin() + numAcc());
    SmallVector<Value> newMax, newSum;
    for (int64_t i = 0; i < rows; ++i) {
      Value row = rowOf(i);
      SmallVector<Value> logits;
      Value blockMax = e.negInf();
      for (int64_t j = 0; j < keys; ++j) {
        Value key = e.add(keyStart, e.add(tx, e.index(j * l.threadsX)));
        logits.push_back(rules.logit(scores[i * keys + j], row, key));
        blockMax = e.fmaxNoNaN(blockMax, logits.back());
      }
      blockMax = reduceRow(blockMax, /*isMax=*/true);
      Value oldMax = state[numAcc() + i];
      Value mNew = e.fmaxNoNaN(oldMax, blockMax);
      // A row with nothing allowed yet keeps m = -inf; subtract 0 instead
      // so that exp(-inf - m) stays 0 and never becomes NaN.
      Value isEmpty = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ,
                                            mNew, e.negInf());
      Value shift = e.select(isEmpty, e.constF32(0.0f), mNew);
      Value alpha = e.exp(e.fsub(oldMax, shift));
      Value rowHash = rules.dropoutRowHash(row);
      Value sum = e.constF32(0.0f);
      for (int64_t j = 0; j < keys; ++j) {
        Value local = e.add(tx, e.index(j * l.threadsX));
        Value prob = e.exp(e.fsub(logits[j], shift));
        sum = e.fadd(sum, prob);
        prob = rules.dropout(prob, rowHash, e.add(keyStart, local));
        Value stride = e.index(l.blockK);
        Value pRow = e.add(myRow0, e.index(i));
        Value rowOffset = e.mul(pRow, stride);
        Value at = e.add(rowOffset, local);
        memref::StoreOp::create(e.b, prob, pStage, ValueRange{at});
      }
      sum = reduceRow(sum, /*isMax=*/false);
      newMax.push_back(mNew);
      newSum.push_back(e.fadd(e.fmul(state[numAcc() + rows + i], alpha), sum));
      for (int64_t c = 0; c < cols; ++c)
        acc[i * cols + c] = e.fmul(acc[i * cols + c], alpha);
    }

    // O += P V over k-chunks.
    // (V chunks are likewise loaded one chunk ahead.)
    acc.append(loadVChunk(keyStart));
    Value kChunkStep = e.index(l.kChunk);
    Value blockEnd = e.index(l.blockK);
    Value blockStart = e.index(0);
    acc = e.forLoop(
        blockStart, blockEnd, kChunkStep, acc,
        [&](Value k0, ValueRange carried) {
          SmallVector<Value> loaded(carried.drop_front(numAcc()));
          storeRows(e, l.threads, threadId, loaded, l.kChunk, l.paddedHeadDimV,
                    vStage, l.paddedHeadDimV);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> prefetched =
              loadVChunk(e.add(keyStart, e.add(k0, e.index(l.kChunk))));
          SmallVector<Value> o(carried.begin(), carried.begin() + numAcc());
          Value one = e.index(1);
          Value chunkKeys = e.index(l.kChunk);
          Value zero = e.index(0);
          SmallVector<Value> next =
              e.forLoop(zero, chunkKeys, one, o, [&](Value j, ValueRange a) {
                SmallVector<Value> out(a.begin(), a.end());
                SmallVector<Value> probs, values;
                for (int64_t i = 0; i < rows; ++i) {
                  Value key = e.add(k0, j);
                  Value stride = e.index(l.blockK);
                  Value row = e.add(myRow0, e.index(i));
                  Value rowOffset = e.mul(row, stride);
                  Value at = e.add(rowOffset, key);
                  probs.push_back(
                      memref::LoadOp::create(e.b, pStage, ValueRange{at}));
                }
                for (int64_t c = 0; c < cols; ++c) {
                  Value column = e.add(tx, e.index(c * l.threadsX));
                  Value stride = e.index(l.paddedHeadDimV);
                  Value rowOffset = e.mul(j, stride);
                  Value at = e.add(rowOffset, column);
                  values.push_back(
                      memref::LoadOp::create(e.b, vStage, ValueRange{at}));
                }
                for (int64_t i = 0; i < rows; ++i)
                  for (int64_t c = 0; c < cols; ++c)
                    out[i * cols + c] = math::FmaOp::create(
                        e.b, probs[i], values[c], out[i * cols + c]);
                return out;
              });
          gpu::BarrierOp::create(e.b);
          next.append(prefetched);
          return next;
        });
    acc.resize(numAcc());

    SmallVector<Value> result = acc;
    result.append(newMax);
    result.append(newSum);
    return result;
  }

  /// out = O / l and lse = m + log(l) for the rows and columns this thread
  /// owns inside the problem.
  void finalize(ArrayRef<Value> state) {
    int64_t rows = l.rowsPerThread, cols = l.colsPerThread;
    for (int64_t i = 0; i < rows; ++i) {
      Value row = rowOf(i);
      Value sum = state[numAcc() + rows + i];
      Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                             sum, e.constF32(0.0f));
      // normalize_output = false: O as it is, relative to the row max.
      Value inv;
      if (p.normalizeOutput) {
        Value zeroF = e.constF32(0.0f);
        Value reciprocal = e.fdiv(e.constF32(1.0f), sum);
        inv = e.select(positive, reciprocal, zeroF);
      } else {
        inv = e.constF32(1.0f);
      }
      Value rowValid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                             row, e.index(p.seqQ));
      auto ifRow = scf::IfOp::create(e.b, rowValid, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifRow.thenBlock());
      Type outType = cast<MemRefType>(buf.output.getType()).getElementType();
      for (int64_t c = 0; c < cols; ++c) {
        Value col = e.add(tx, e.index(c * l.threadsX));
        Value value = e.fromF32(e.fmul(state[i * cols + c], inv), outType);
        auto store = [&] {
          memref::StoreOp::create(e.b, value, buf.output,
                                  ValueRange{batch, row, head, col});
        };
        if ((c + 1) * l.threadsX <= p.headDimV) {
          store();
          continue;
        }
        Value colValid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                               col, e.index(p.headDimV));
        auto ifCol = scf::IfOp::create(e.b, colValid, /*withElse=*/false);
        OpBuilder::InsertionGuard inner(e.b);
        e.b.setInsertionPointToStart(ifCol.thenBlock());
        store();
      }
      if (buf.lse) {
        Value first = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, tx,
                                            e.index(0));
        auto ifFirst = scf::IfOp::create(e.b, first, /*withElse=*/false);
        OpBuilder::InsertionGuard inner(e.b);
        e.b.setInsertionPointToStart(ifFirst.thenBlock());
        Value logSum = math::LogOp::create(e.b, sum);
        Value lse = e.fadd(state[numAcc() + i], logSum);
        memref::StoreOp::create(e.b, e.select(positive, lse, e.negInf()),
                                buf.lse, ValueRange{batch, head, row});
      }
    }
  }

  Emitter e;
  const VulkanAttentionPlan &p;
  const VulkanAttentionLayout &l;
  const AttentionBuffers &buf;
  Value qBlock, head, batch, threadId, tx, ty, rowStart, numRows, kvHead,
      myRow0;
  Value qStage, kStage, pStage, vStage;
  /// How many of loadQKChunk's values are Q's.
  size_t numQValues = 0;
};

} // namespace

void mlir::ejk::buildVulkanAttentionBody(OpBuilder &b, Location loc,
                                         const VulkanAttentionPlan &plan,
                                         const AttentionBuffers &buffers) {
  PortableAttentionBuilder(b, loc, plan, buffers).build();
}
