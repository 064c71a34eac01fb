//===- Kernel.cpp - paged decode attention on the CPU ---------------------===//
//
// Flash-decoding over a paged cache. One workgroup = (split of the tokens,
// KV head, sequence): the query heads that share the KV head are handled
// together, so every K/V row is read once, where it lies in its page (no
// gather copy). The visible tokens [first, L) of the sequence (L is data)
// are divided among `num_splits` workgroups at run time, and each split
// walks its tokens `block_k` at a time:
//
//   scores   for each token: the page from the block table (clamped into
//            the cache), K's row read as f32 vectors, one dot product per
//            query head (vector FMAs, one horizontal sum)
//   softmax  per head, over the block's scores as vectors: the running
//            max, rescale factor, exp, running sum
//   values   for each group of head-dim vectors: accumulators of a few
//            heads in registers, over the block's tokens, V's rows read
//            once per group
//
// With one split the workgroup writes the output and lse; with more it
// writes its unnormalized output and (max, sum), which a combine dispatch
// merges (Tile below).
//
//===----------------------------------------------------------------------===//

#include "Common/CpuEmitter.h"
#include "Common/CpuOnlineSoftmax.h"
#include "Paged/Cpu/Decode.h"
#include "Paged/Cpu/PagedAttention.h"
#include "Paged/Indices.h"
#include "Paged/RaggedRows.h"

#include "ejk/Ops/Paged/Config.h"
#include "ejk/Ops/Paged/Problem.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::ejk;

namespace {

struct CpuPagedPlan : PagedAttentionProblem {
  int64_t blockK = 0, numSplits = 1, lanes = 0;

  int64_t vectors() const { return (headDim + lanes - 1) / lanes; }
  int64_t paddedHeadDim() const { return vectors() * lanes; }
  /// Every head-dim vector is whole: cache reads need no mask.
  bool wholeVectors() const { return headDim % lanes == 0; }
  /// Query heads whose value accumulators share registers, and head-dim
  /// vectors per pass over a block: at most 8 accumulators live at once.
  int64_t headsPerPass() const { return std::min<int64_t>(groupSize(), 8); }
  int64_t vectorsPerPass() const {
    return std::max<int64_t>(1, 8 / headsPerPass());
  }
  std::array<int64_t, 3> grid() const { return {numSplits, numKvHeads, batch}; }
  /// Bytes of one token's K or V row.
  int64_t rowBytes() const {
    return headDim * cacheType.getIntOrFloatBitWidth() / 8;
  }
  /// Tokens ahead whose K rows the score pass prefetches: about 4 KiB, so
  /// that a row arrives while the page it lies in has not been touched yet
  /// (the hardware prefetchers stop at every 4 KiB page, and a paged
  /// cache's next page is anywhere).
  int64_t prefetchTokens() const {
    return std::max<int64_t>(1, 4096 / std::max<int64_t>(1, rowBytes()));
  }
  /// Cache level the prefetches fill: L1 (3) when a KV head's rows follow
  /// one another, L2 (2) when token-major rows of the other KV heads lie
  /// between them. Then consecutive tokens' rows are `numKvHeads` rows
  /// apart (4 KiB for 8 heads of 512 bytes), all in the same few L1 sets,
  /// and rows prefetched into L1 evict each other before they are read:
  /// decode-gqa on the device machine's Xeon, 2 threads, 1.27-1.32 ms with
  /// L1 prefetches, 1.03-1.09 ms with L2 ones (docs/ops/paged.md).
  int64_t prefetchLocality() const {
    return tokenMajor && numKvHeads > 1 ? 2 : 3;
  }
};

class PagedBodyBuilder {
public:
  PagedBodyBuilder(OpBuilder &builder, Location loc, const CpuPagedPlan &plan,
                   const PagedAttentionBuffers &buffers, Value partialO,
                   Value partialStats)
      : e(builder, loc, plan.lanes), p(plan), buf(buffers), partialO(partialO),
        partialStats(partialStats) {}

  void build() {
    split = WorkgroupIdOp::create(e.b, 0);
    kvHead = WorkgroupIdOp::create(e.b, 1);
    batch = WorkgroupIdOp::create(e.b, 2);
    zero = e.index(0);
    one = e.index(1);
    tableRow = batch;
    if (buf.ragged) {
      raggedRow = buf.ragged->find(e, batch);
      tableRow = raggedRow.tableRow;
      raggedLength = raggedRow.length;
    }
    int64_t g = p.groupSize();
    headBase = e.mul(kvHead, e.index(g));

    qS = e.scratch({g, p.paddedHeadDim()});
    accS = e.scratch({g, p.paddedHeadDim()});
    scoreS = e.scratch({g, p.blockK});
    maxS = e.scratch({g});
    sumS = e.scratch({g});
    for (int64_t h = 0; h < g; ++h) {
      Value head = e.add(headBase, e.index(h));
      for (int64_t v = 0; v < p.vectors(); ++v) {
        Value d = e.index(v * p.lanes);
        Value q = e.readVector(buf.query, rowIndices(buf.query, head, d),
                               (v + 1) * p.lanes <= p.headDim);
        Value qRow = e.index(h);
        vector::StoreOp::create(
            e.b, e.fmul(q, e.splatF32(p.softmaxScale * p.kScale)), qS,
            ValueRange{qRow, d});
        Value accRow = e.index(h);
        vector::StoreOp::create(e.b, e.splatF32(0.0f), accS,
                                ValueRange{accRow, d});
      }
      Value maxRow = e.index(h);
      memref::StoreOp::create(e.b, e.negInf(), maxS, maxRow);
      Value sumRow = e.index(h);
      memref::StoreOp::create(e.b, e.constF32(0.0f), sumS, sumRow);
    }

    // Not a structured binding: the loop body captures `end` (a C++20
    // extension for bindings).
    std::pair<Value, Value> range = splitRange();
    Value start = range.first, end = range.second;
    lastToken = e.sub(end, one);
    e.forLoop(start, end, e.index(p.blockK), [&](Value t0) {
      // One op per statement: the IR must not follow the C++ compiler's
      // argument evaluation order.
      Value remaining = e.sub(end, t0);
      Value blockK = e.index(p.blockK);
      Value count = e.min(blockK, remaining);
      scores(t0, count);
      softmax(count);
      values(t0, count);
    });
    if (partialO)
      writePartial();
    else
      writeOutput();
  }

private:
  SmallVector<Value> rowIndices(Value buffer, Value head, Value d) {
    if (buf.ragged)
      return buf.ragged->rowIndices(e, buffer, batch, head, d);
    return pagedRowIndices(e, buffer, batch, head, d);
  }

  /// The sink logit of query head `head`, or null without sinks.
  Value sinkLogit(Value head) {
    if (buf.ragged && buf.ragged->sinks())
      return e.toF32(
          memref::LoadOp::create(e.b, buf.ragged->sinks(), ValueRange{head}));
    if (buf.sinks)
      return decodeSinkLogit(e, p, buf.sinks, head);
    return Value();
  }

  /// This split's tokens: the visible range [first, L) cut into num_splits
  /// parts of ceil(span / num_splits) tokens.
  std::pair<Value, Value> splitRange() {
    Value length = e.index(p.maxContext());
    if (raggedLength) {
      length = raggedLength;
    } else if (buf.contextLens) {
      Value raw = arith::IndexCastOp::create(
          e.b, e.b.getIndexType(),
          memref::LoadOp::create(e.b, buf.contextLens, ValueRange{batch}));
      length = e.max(zero, e.min(raw, length));
    }
    Value first = zero;
    if (p.window)
      first = e.max(zero, e.sub(length, e.index(*p.window)));
    if (buf.sequenceStarts) {
      Value raw = arith::IndexCastOp::create(
          e.b, e.b.getIndexType(),
          memref::LoadOp::create(e.b, buf.sequenceStarts, ValueRange{batch}));
      first = e.max(first, e.min(raw, length));
    }
    Value span = e.sub(length, first);
    Value splits = e.index(p.numSplits);
    Value per = e.div(e.add(span, e.index(p.numSplits - 1)), splits);
    Value start = e.min(length, e.add(first, e.mul(split, per)));
    Value end = e.min(length, e.add(start, per));
    return {start, end};
  }

  /// Cache indices of token `t` of this sequence and KV head, dim `d`; the
  /// page index is clamped into the cache.
  SmallVector<Value> cacheIndices(Value t, Value d) {
    if (!buf.blockTables)
      return p.cacheIndices<Value>(batch, t, kvHead, d);
    Value pageSlot = e.div(t, e.index(p.pageSize));
    Value raw = memref::LoadOp::create(e.b, buf.blockTables,
                                       ValueRange{tableRow, pageSlot});
    Value page = arith::IndexCastOp::create(e.b, e.b.getIndexType(), raw);
    page = e.max(zero, e.min(page, e.index(p.numPages - 1)));
    Value slot = arith::RemSIOp::create(e.b, t, e.index(p.pageSize));
    return p.cacheIndices<Value>(page, slot, kvHead, d);
  }

  /// `lanes` elements of a cache row as f32: floats widened, int8 (a
  /// quantized cache) converted.
  Value readCache(Value cache, ValueRange indices) {
    Value row = e.readVector(cache, indices, p.wholeVectors());
    if (isa<IntegerType>(getElementTypeOrSelf(row.getType())))
      row = arith::SIToFPOp::create(e.b, e.vf32, row);
    return row;
  }

  /// Prefetches every cache line of `cache`'s row of token `t`.
  void prefetchRow(Value cache, Value t) {
    SmallVector<Value> at = cacheIndices(t, zero);
    int64_t elementBytes = p.cacheType.getIntOrFloatBitWidth() / 8;
    for (int64_t byte = 0; byte < p.rowBytes(); byte += 64) {
      at.back() = e.index(byte / elementBytes);
      memref::PrefetchOp::create(e.b, cache, at, /*isWrite=*/false,
                                 /*localityHint=*/p.prefetchLocality(),
                                 /*isDataCache=*/true);
    }
  }

  /// scores[h][i] = soft-capped q_h . K_{t0 + i} for the block's tokens.
  /// The pass also prefetches K a few pages ahead and the V rows the value
  /// pass reads next.
  void scores(Value t0, Value count) {
    int64_t g = p.groupSize();
    e.forLoop(zero, count, one, [&](Value i) {
      Value t = e.add(t0, i);
      prefetchRow(buf.keyCache,
                  e.min(e.add(t, e.index(p.prefetchTokens())), lastToken));
      prefetchRow(buf.valueCache, t);
      for (int64_t h0 = 0; h0 < g; h0 += p.headsPerPass()) {
        int64_t heads = std::min(p.headsPerPass(), g - h0);
        SmallVector<Value> dots(heads, e.splatF32(0.0f));
        SmallVector<Value> at = cacheIndices(t, zero);
        for (int64_t v = 0; v < p.vectors(); ++v) {
          Value d = e.index(v * p.lanes);
          at.back() = d;
          Value k = readCache(buf.keyCache, at);
          for (int64_t h = 0; h < heads; ++h) {
            Value q = vector::LoadOp::create(e.b, e.vf32, qS,
                                             ValueRange{e.index(h0 + h), d});
            dots[h] = e.fma(q, k, dots[h]);
          }
        }
        for (int64_t h = 0; h < heads; ++h) {
          Value s = vector::ReductionOp::create(e.b, vector::CombiningKind::ADD,
                                                dots[h]);
          if (buf.ragged)
            s = buf.ragged->addScoreBias(
                e, raggedRow, e.add(headBase, e.index(h0 + h)), t, s);
          if (p.softCap) {
            Value cap = e.constF32(*p.softCap);
            s = e.fmul(cap, math::TanhOp::create(e.b, e.fdiv(s, cap)));
          }
          memref::StoreOp::create(e.b, s, scoreS,
                                  ValueRange{e.index(h0 + h), i});
        }
      }
    });
  }

  /// Online softmax over the block: scores become probabilities against the
  /// new running max; the running sums and value accumulators are rescaled.
  void softmax(Value count) {
    Value countVec = e.broadcast(e.toI32(count));
    int64_t blocks = (p.blockK + p.lanes - 1) / p.lanes;
    for (int64_t h = 0; h < p.groupSize(); ++h) {
      Value hi = e.index(h);
      SmallVector<Value> s, live;
      Value blockMax = e.splatF32(-std::numeric_limits<float>::infinity());
      for (int64_t c = 0; c < blocks; ++c) {
        Value key0 = e.index(c * p.lanes);
        live.push_back(arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                             e.laneIndices(key0), countVec));
        Value raw =
            vector::LoadOp::create(e.b, e.vf32, scoreS, ValueRange{hi, key0});
        s.push_back(
            e.select(live.back(), raw,
                     e.splatF32(-std::numeric_limits<float>::infinity())));
        blockMax = e.fmaxNoNaN(blockMax, s.back());
      }
      // The block has a finite score (count >= 1, finite inputs).
      Value alpha =
          emitOnlineSoftmaxRow(e, s, blockMax, scoreS, maxS, sumS, hi);
      Value alphaVec = e.broadcast(alpha);
      for (int64_t v = 0; v < p.vectors(); ++v) {
        SmallVector<Value> idx = {hi, e.index(v * p.lanes)};
        Value acc = vector::LoadOp::create(e.b, e.vf32, accS, idx);
        vector::StoreOp::create(e.b, e.fmul(acc, alphaVec), accS, idx);
      }
    }
  }

  /// acc[h] += sum_i prob[h][i] * V_{t0 + i}, a few heads and head-dim
  /// vectors at a time so that their accumulators stay in registers.
  void values(Value t0, Value count) {
    int64_t g = p.groupSize();
    for (int64_t h0 = 0; h0 < g; h0 += p.headsPerPass()) {
      int64_t heads = std::min(p.headsPerPass(), g - h0);
      for (int64_t v0 = 0; v0 < p.vectors(); v0 += p.vectorsPerPass()) {
        int64_t vecs = std::min(p.vectorsPerPass(), p.vectors() - v0);
        SmallVector<Value> acc;
        for (int64_t h = 0; h < heads; ++h)
          for (int64_t v = 0; v < vecs; ++v)
            acc.push_back(vector::LoadOp::create(
                e.b, e.vf32, accS,
                ValueRange{e.index(h0 + h), e.index((v0 + v) * p.lanes)}));
        acc =
            e.forLoop(zero, count, one, acc, [&](Value i, ValueRange carried) {
              Value t = e.add(t0, i);
              SmallVector<Value> rows;
              SmallVector<Value> at = cacheIndices(t, zero);
              for (int64_t v = 0; v < vecs; ++v) {
                at.back() = e.index((v0 + v) * p.lanes);
                rows.push_back(readCache(buf.valueCache, at));
              }
              SmallVector<Value> next(carried.begin(), carried.end());
              for (int64_t h = 0; h < heads; ++h) {
                Value prob = e.broadcast(memref::LoadOp::create(
                    e.b, scoreS, ValueRange{e.index(h0 + h), i}));
                for (int64_t v = 0; v < vecs; ++v)
                  next[h * vecs + v] = e.fma(prob, rows[v], next[h * vecs + v]);
              }
              return next;
            });
        for (int64_t h = 0; h < heads; ++h)
          for (int64_t v = 0; v < vecs; ++v)
            vector::StoreOp::create(
                e.b, acc[h * vecs + v], accS,
                ValueRange{e.index(h0 + h), e.index((v0 + v) * p.lanes)});
      }
    }
  }

  /// output = acc / sum (0 for no token), lse = max + log(sum) (-inf).
  void writeOutput() {
    for (int64_t h = 0; h < p.groupSize(); ++h) {
      Value hi = e.index(h);
      Value head = e.add(headBase, hi);
      Value sum = memref::LoadOp::create(e.b, sumS, hi);
      Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                             sum, e.constF32(0.0f));
      Value nothing = e.constF32(0.0f);
      Value inv =
          e.select(positive, e.fdiv(e.constF32(p.vScale), sum), nothing);
      if (Value sink = sinkLogit(head))
        inv = sinkedOutputScale(e, memref::LoadOp::create(e.b, maxS, hi), sum,
                                sink, p.vScale);
      for (int64_t v = 0; v < p.vectors(); ++v) {
        Value d = e.index(v * p.lanes);
        Value acc =
            vector::LoadOp::create(e.b, e.vf32, accS, ValueRange{hi, d});
        SmallVector<Value> indices = rowIndices(buf.output, head, d);
        e.writeVector(e.fmul(acc, e.broadcast(inv)), buf.output, indices,
                      (v + 1) * p.lanes <= p.headDim);
      }
      if (buf.lse) {
        Value max = memref::LoadOp::create(e.b, maxS, hi);
        Value lse = e.fadd(max, math::LogOp::create(e.b, sum));
        SmallVector<Value> indices = pagedLseIndices(e, buf.lse, batch, head);
        memref::StoreOp::create(e.b, e.select(positive, lse, e.negInf()),
                                buf.lse, indices);
      }
    }
  }

  /// This split's unnormalized output and (max, sum) for the combine.
  void writePartial() {
    for (int64_t h = 0; h < p.groupSize(); ++h) {
      Value hi = e.index(h);
      Value head = e.add(headBase, hi);
      for (int64_t v = 0; v < p.vectors(); ++v) {
        Value d = e.index(v * p.lanes);
        Value acc =
            vector::LoadOp::create(e.b, e.vf32, accS, ValueRange{hi, d});
        vector::StoreOp::create(e.b, acc, partialO,
                                ValueRange{batch, head, split, d});
      }
      memref::StoreOp::create(e.b, memref::LoadOp::create(e.b, maxS, hi),
                              partialStats,
                              ValueRange{batch, head, split, zero});
      memref::StoreOp::create(e.b, memref::LoadOp::create(e.b, sumS, hi),
                              partialStats,
                              ValueRange{batch, head, split, one});
    }
  }

  Emitter e;
  const CpuPagedPlan &p;
  const PagedAttentionBuffers &buf;
  Value partialO, partialStats;
  Value split, kvHead, batch, zero, one, headBase, lastToken;
  /// The page-table row of `batch` and, for a ragged row, its length.
  Value tableRow, raggedLength;
  RaggedRow raggedRow;
  Value qS, accS, scoreS, maxS, sumS;
};

/// The combine of splits: one workgroup per (head, sequence) merges the
/// splits' partial outputs by their maxima and sums (and the sinks' logit,
/// when there are sinks).
void buildCombine(OpBuilder &builder, Location loc, const CpuPagedPlan &p,
                  Value partialO, Value partialStats, Value output, Value lse,
                  Value sinks) {
  Emitter e(builder, loc, p.lanes);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  Value splits = e.index(p.numSplits);
  auto stat = [&](Value s, int64_t i) -> Value {
    return memref::LoadOp::create(e.b, partialStats,
                                  ValueRange{batch, head, s, e.index(i)});
  };
  // A sequence no split saw keeps max -inf and weighs against 0: weights 0,
  // never NaN.
  Value max =
      e.forLoop(zero, splits, one, {e.negInf()}, [&](Value s, ValueRange iter) {
        return SmallVector<Value>{e.fmax(iter[0], stat(s, 0))};
      })[0];
  Value isEmpty =
      arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, max, e.negInf());
  Value shift = e.select(isEmpty, e.constF32(0.0f), max);
  auto weight = [&](Value s) { return e.exp(e.fsub(stat(s, 0), shift)); };
  Value sum = e.forLoop(zero, splits, one, {e.constF32(0.0f)},
                        [&](Value s, ValueRange iter) {
                          Value splitWeight = weight(s);
                          return SmallVector<Value>{
                              e.fadd(iter[0], e.fmul(stat(s, 1), splitWeight))};
                        })[0];
  Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                         e.constF32(0.0f));
  Value nothing = e.constF32(0.0f);
  Value inv = e.select(positive, e.fdiv(e.constF32(p.vScale), sum), nothing);
  if (sinks)
    inv = sinkedOutputScale(e, shift, sum, decodeSinkLogit(e, p, sinks, head),
                            p.vScale);
  for (int64_t v = 0; v < p.vectors(); ++v) {
    Value d = e.index(v * p.lanes);
    Value o = e.forLoop(
        zero, splits, one, {e.splatF32(0.0f)}, [&](Value s, ValueRange acc) {
          Value part = vector::LoadOp::create(e.b, e.vf32, partialO,
                                              ValueRange{batch, head, s, d});
          return SmallVector<Value>{
              e.fma(e.broadcast(weight(s)), part, acc[0])};
        })[0];
    SmallVector<Value> indices = pagedRowIndices(e, output, batch, head, d);
    e.writeVector(e.fmul(o, e.broadcast(inv)), output, indices,
                  (v + 1) * p.lanes <= p.headDim);
  }
  if (lse) {
    Value value = e.fadd(shift, math::LogOp::create(e.b, sum));
    SmallVector<Value> indices = pagedLseIndices(e, lse, batch, head);
    memref::StoreOp::create(e.b, e.select(positive, value, e.negInf()), lse,
                            indices);
  }
}

/// Bytes the kernel moves at most: every cached token of each sequence's
/// table once (K and V), the queries and the results.
int64_t pagedBytes(const CpuPagedPlan &p, const PagedAttentionBuffers &buf) {
  int64_t cacheBytes =
      p.cacheType.getIntOrFloatBitWidth() / 8 *
      (2 * p.batch * p.numKvHeads * p.maxContext() * p.headDim);
  return cacheBytes +
         DispatchRewriter::bytesOf({buf.query, buf.contextLens, buf.blockTables,
                                    buf.output, buf.lse});
}

} // namespace

LogicalResult mlir::ejk::tileCpuPagedAttention(
    Operation *op, const PagedAttentionProblem &problem, int64_t blockK,
    int64_t numSplits, const PagedAttentionBuffers &buf,
    DispatchRewriter &rewriter) {
  // flash_attention's decode reaches this kernel under its own config
  // rules: the one check they do not make.
  std::string why;
  llvm::raw_string_ostream whyStream(why);
  if (failed(checkCpuPagedWorkingSet(problem, blockK, rewriter.target(),
                                     whyStream)))
    return op->emitOpError("has no CPU decode kernel for this shape: ") << why;
  CpuPagedPlan plan;
  static_cast<PagedAttentionProblem &>(plan) = problem;
  plan.blockK = blockK;
  plan.numSplits = numSplits;
  plan.lanes = rewriter.target().f32Lanes();
  Location loc = op->getLoc();

  Value partialO, partialStats;
  if (plan.numSplits > 1) {
    Type f32 = Float32Type::get(op->getContext());
    auto partialOType = MemRefType::get(
        {plan.batch, plan.numHeads, plan.numSplits, plan.paddedHeadDim()}, f32);
    auto statsType =
        MemRefType::get({plan.batch, plan.numHeads, plan.numSplits, 2}, f32);
    SmallVector<Type> argTypes = {partialOType, statsType,
                                  buf.output.getType()};
    if (buf.lse)
      argTypes.push_back(buf.lse.getType());
    if (buf.sinks)
      argTypes.push_back(buf.sinks.getType());
    func::FuncOp combine = rewriter.addDispatch(
        "combine", argTypes, {1, plan.numHeads, plan.batch},
        [&](OpBuilder &b, Location l, ValueRange args) {
          buildCombine(b, l, plan, args[0], args[1], args[2],
                       buf.lse ? args[3] : Value(),
                       buf.sinks ? args.back() : Value());
        });
    DispatchRewriter::setWork(
        combine, 0,
        (partialOType.getNumElements() + statsType.getNumElements()) * 4 +
            DispatchRewriter::bytesOf({buf.output, buf.lse}));
    FailureOr<SmallVector<Value>> parts =
        rewriter.appendArguments({partialOType, statsType});
    if (failed(parts))
      return failure();
    partialO = (*parts)[0];
    partialStats = (*parts)[1];
    unsigned outputIndex = DispatchRewriter::argumentIndex(buf.output);
    std::optional<unsigned> lseIndex, sinksIndex;
    if (buf.lse)
      lseIndex = DispatchRewriter::argumentIndex(buf.lse);
    if (buf.sinks)
      sinksIndex = DispatchRewriter::argumentIndex(buf.sinks);
    rewriter.rewriteCallers(
        {partialOType, statsType},
        [&](OpBuilder &b, Location l, DispatchOp call, ValueRange temps) {
          SmallVector<Value> bindings(call.getBuffers());
          bindings.append(temps.begin(), temps.end());
          DispatchOp::create(b, l, call.getCallee(), bindings);
          SmallVector<Value> combineBindings = {temps[0], temps[1],
                                                call.getBuffers()[outputIndex]};
          if (lseIndex)
            combineBindings.push_back(call.getBuffers()[*lseIndex]);
          if (sinksIndex)
            combineBindings.push_back(call.getBuffers()[*sinksIndex]);
          DispatchOp::create(b, l, combine.getSymName(), combineBindings);
        });
  }

  OpBuilder b = rewriter.replaceBody();
  PagedBodyBuilder(b, loc, plan, buf, partialO, partialStats).build();
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setWork(dispatch, pagedAttentionFlops(plan),
                            pagedBytes(plan, buf));
  return success();
}

LogicalResult CpuPagedAttention::tile(PagedAttentionOp op, ConfigAttr attr,
                                      DispatchRewriter &rewriter) {
  PagedAttentionConfig config =
      *PagedAttentionConfig::read(attr, llvm::nulls());
  PagedAttentionBuffers buf = findPagedAttentionBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  return tileCpuPagedAttention(op, readPagedAttentionProblem(op), config.blockK,
                               config.numSplits, buf, rewriter);
}
