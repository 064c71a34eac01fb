//===- Kernel.cpp - paged attention bodies for Vulkan ---------------------===//
//
// Flash-decoding over a paged cache (docs/ops/paged-vulkan.md). One
// workgroup = (split, KV head x head chunk, sequence): it reads each token
// of its share of the sequence once for all the query heads of its chunk.
// Teams of `teamLanes` lanes take one token each per step; a lane dots its
// slice of the head dim with its slices of the queries (kept in
// registers), the team sums with XOR shuffles, and each team keeps an
// online softmax (max, sum, accumulator slice) per head. No barrier runs
// inside the token loop; at its end the teams of a subgroup merge with
// shuffles and the subgroups through workgroup memory.
//
//===----------------------------------------------------------------------===//

#include "Paged/Vulkan/Kernel.h"
#include "Paged/Indices.h"
#include "Paged/RaggedRows.h"

#include "Paged/Vulkan/Emit.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::paged;

namespace {

/// The online softmax of one head of one team, in registers.
struct HeadState {
  Value max, sum;
  SmallVector<Value> acc;
};

class PagedKernel {
public:
  PagedKernel(Emitter &e, const VulkanPagedPlan &p,
              const PagedAttentionBuffers &buf, Value partialO,
              Value partialLse)
      : e(e), p(p), l(p.layout), buf(buf), partialO(partialO),
        partialLse(partialLse) {}

  void build() {
    split = WorkgroupIdOp::create(e.b, 0);
    Value y = WorkgroupIdOp::create(e.b, 1);
    batch = WorkgroupIdOp::create(e.b, 2);
    tableRow = batch;
    if (buf.ragged) {
      raggedRow = buf.ragged->find(e, batch);
      tableRow = raggedRow.tableRow;
      raggedLength = raggedRow.length;
    }
    kvHead = y;
    chunkHead0 = e.index(0);
    if (l.headChunks > 1) {
      kvHead = divU(e, y, l.headChunks);
      Value chunkHeads = e.index(l.headChunk);
      chunkHead0 = e.mul(remU(e, y, l.headChunks), chunkHeads);
    }
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    lane = remU(e, thread, l.teamLanes);
    team = divU(e, thread, l.teamLanes);
    if (!raggedRow.skip) {
      tokenRange();
      loadQueries();
      makeViews();
      attend();
      return;
    }
    // A row the cooperative kernel writes: the whole workgroup skips it (a
    // uniform branch around the shuffles and barriers).
    makeViews();
    Value yes = arith::ConstantOp::create(e.b, e.b.getBoolAttr(true));
    emitIf(e, arith::XOrIOp::create(e.b, raggedRow.skip, yes), [&] {
      tokenRange();
      loadQueries();
      attend();
    });
  }

private:
  /// The views are top-level ops of the body: ejk-prepare-vulkan-kernels
  /// turns each into a kernel argument at the viewed buffer's binding.
  void makeViews() {
    if (!l.vectorElems)
      return;
    keyView = vectorView(buf.keyCache);
    valueView = vectorView(buf.valueCache);
  }

  /// The token loop and the merge.
  void attend() {
    SmallVector<Value> inits;
    for (int64_t h = 0; h < l.headChunk; ++h)
      inits.append({e.negInf(), e.constF32(0.0f)});
    for (int64_t i = 0; i < l.headChunk * l.dimPerLane; ++i)
      inits.push_back(e.constF32(0.0f));
    // The trip count is the workgroup's (uniform around the shuffles); the
    // guard keeps the state of an empty split defined whatever the
    // lowering does with a loop that never runs.
    SmallVector<Type> types(inits.size(), e.f32);
    SmallVector<Value> state = e.ifElse(
        cmpI(e, arith::CmpIPredicate::sgt, end, begin), types,
        [&] {
          return e.forLoop(
              begin, end, e.index(l.teams * l.tokensPerTeam), inits,
              [&](Value t0, ValueRange carried) { return step(t0, carried); });
        },
        [&] { return SmallVector<Value>(inits); });
    merge(unpack(state));
  }

  /// [begin, end): this split's share of the visible tokens
  /// [first, length).
  void tokenRange() {
    Value length = e.index(p.maxContext());
    if (raggedLength)
      length = raggedLength;
    else if (buf.contextLens) {
      Value zero = e.index(0);
      length =
          e.max(e.min(loadIndex(e, buf.contextLens, {batch}), length), zero);
    }
    Value first = e.index(0);
    if (p.window) {
      Value zero = e.index(0);
      first = e.max(e.sub(length, e.index(*p.window)), zero);
    }
    if (buf.sequenceStarts)
      first = e.max(first,
                    e.min(loadIndex(e, buf.sequenceStarts, {batch}), length));
    begin = first;
    end = length;
    if (l.numSplits == 1)
      return;
    Value count = e.sub(length, first);
    Value per = divU(e, e.add(count, e.index(l.numSplits - 1)), l.numSplits);
    begin = e.min(e.add(first, e.mul(split, per)), length);
    end = e.min(e.add(begin, per), length);
  }

  /// Indices of `head`'s row of the query or output, dim `d`.
  SmallVector<Value> rowIndices(Value buffer, Value head, Value d) {
    if (buf.ragged)
      return buf.ragged->rowIndices(e, buffer, batch, head, d);
    return pagedRowIndices(e, buffer, batch, head, d);
  }

  /// Element `j` of this lane's slice of the head dim: contiguous with
  /// 16-byte loads, interleaved (coalesced scalar loads) otherwise.
  Value dimOf(int64_t j) {
    if (l.vectorElems) {
      Value element = e.index(j);
      return e.add(e.mul(lane, e.index(l.dimPerLane)), element);
    }
    return e.add(lane, e.index(j * l.teamLanes));
  }

  /// `cache` (a dispatch argument) as 16-byte words over the same bytes.
  Value vectorView(Value cache) {
    auto type = cast<MemRefType>(cache.getType());
    int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
    auto viewType =
        MemRefType::get({bits / 128}, VectorType::get({4}, e.b.getI32Type()));
    return UnrealizedConversionCastOp::create(e.b, TypeRange{viewType},
                                              ValueRange{cache})
        .getResult(0);
  }

  /// This lane's slice of the cache row (page, slot, kvHead), widened to
  /// f32: dimPerLane / vectorElems 16-byte loads of `view`, or scalar loads
  /// of `cache`.
  SmallVector<Value> loadSlice(Value cache, Value view, Value page,
                               Value slot) {
    SmallVector<Value> out;
    if (!l.vectorElems) {
      for (int64_t j = 0; j < l.dimPerLane; ++j)
        out.push_back(
            loadF32(e, cache, p.cacheIndices(page, slot, kvHead, dimOf(j))));
      return out;
    }
    // The row's first element, linearized over the cache's shape (its last
    // dim is head_dim), in 16-byte words.
    ArrayRef<int64_t> shape = cast<MemRefType>(cache.getType()).getShape();
    assert(shape.back() == p.headDim && "a cache row is one head_dim");
    SmallVector<Value> at = p.cacheIndices(page, slot, kvHead, e.index(0));
    Value row = at[0];
    for (int64_t i = 1; i + 1 < static_cast<int64_t>(at.size()); ++i)
      row = e.add(e.mul(row, e.index(shape[i])), at[i]);
    int64_t perLane = l.dimPerLane / l.vectorElems;
    Value laneWord = e.mul(lane, e.index(perLane));
    Value word =
        e.add(e.mul(row, e.index(p.headDim / l.vectorElems)), laneWord);
    for (int64_t v = 0; v < perLane; ++v) {
      Value words = memref::LoadOp::create(e.b, view,
                                           ValueRange{e.add(word, e.index(v))});
      llvm::append_range(out, unpackWords(e, words, p.cacheType));
    }
    return out;
  }

  /// The query head of chunk head `h` (clamped into the group: heads past
  /// it compute on the last one and write nothing).
  Value queryHead(Value h) {
    Value local = e.add(chunkHead0, h);
    if (l.headChunk * l.headChunks != p.groupSize())
      local = e.min(local, e.index(p.groupSize() - 1));
    return e.add(e.mul(kvHead, e.index(p.groupSize())), local);
  }
  /// Whether chunk head `h` is a head of the group.
  Value headExists(Value h) {
    Value groupSize = e.index(p.groupSize());
    return cmpI(e, arith::CmpIPredicate::slt, e.add(chunkHead0, h), groupSize);
  }

  void loadQueries() {
    // k_scale dequantizes the keys: it scales every score, as the query.
    Value scale = e.constF32(p.softmaxScale * p.kScale);
    for (int64_t h = 0; h < l.headChunk; ++h) {
      Value head = queryHead(e.index(h));
      for (int64_t j = 0; j < l.dimPerLane; ++j)
        queries.push_back(
            e.fmul(loadF32(e, buf.query, rowIndices(buf.query, head, dimOf(j))),
                   scale));
    }
  }

  SmallVector<HeadState> unpack(ValueRange values) {
    SmallVector<HeadState> heads(l.headChunk);
    int64_t accBase = 2 * l.headChunk;
    for (int64_t h = 0; h < l.headChunk; ++h) {
      heads[h].max = values[2 * h];
      heads[h].sum = values[2 * h + 1];
      for (int64_t j = 0; j < l.dimPerLane; ++j)
        heads[h].acc.push_back(values[accBase + h * l.dimPerLane + j]);
    }
    return heads;
  }
  SmallVector<Value> pack(ArrayRef<HeadState> heads) {
    SmallVector<Value> values;
    for (const HeadState &s : heads)
      values.append({s.max, s.sum});
    for (const HeadState &s : heads)
      values.append(s.acc.begin(), s.acc.end());
    return values;
  }

  /// One step: tokens t0 + u * teams + team (u < tokensPerTeam) for every
  /// team, so that the teams of a subgroup read neighbouring tokens.
  SmallVector<Value> step(Value t0, ValueRange carried) {
    SmallVector<HeadState> heads = unpack(carried);
    int64_t tokens = l.tokensPerTeam, E = l.dimPerLane;
    SmallVector<Value> valid;
    SmallVector<SmallVector<Value>> keys(tokens), values(tokens);
    SmallVector<Value> tokenOf(tokens);
    for (int64_t u = 0; u < tokens; ++u) {
      Value token = e.add(t0, e.add(team, e.index(u * l.teams)));
      valid.push_back(cmpI(e, arith::CmpIPredicate::slt, token, end));
      // A token past the split reads the split's last one (a valid
      // address) and is masked.
      token = e.min(token, e.sub(end, e.index(1)));
      tokenOf[u] = token;
      // A dense decode's sequence is one page of all its tokens.
      Value slot = token, page = batch;
      if (buf.blockTables) {
        slot = remU(e, token, p.pageSize);
        page = loadIndex(e, buf.blockTables,
                         {tableRow, divU(e, token, p.pageSize)});
        Value zero = e.index(0);
        page = e.max(e.min(page, e.index(p.numPages - 1)), zero);
      }
      keys[u] = loadSlice(buf.keyCache, keyView, page, slot);
      values[u] = loadSlice(buf.valueCache, valueView, page, slot);
    }

    for (int64_t h = 0; h < l.headChunk; ++h) {
      HeadState &s = heads[h];
      SmallVector<Value> scores;
      for (int64_t u = 0; u < tokens; ++u) {
        Value dot = e.fmul(queries[h * E], keys[u][0]);
        for (int64_t j = 1; j < E; ++j)
          dot = fma(e, queries[h * E + j], keys[u][j], dot);
        Value score =
            xorReduce(e, dot, /*isMax=*/false, 1, l.teamLanes, l.subgroupSize);
        if (buf.ragged)
          score = buf.ragged->addScoreBias(e, raggedRow, queryHead(e.index(h)),
                                           tokenOf[u], score);
        if (p.softCap) {
          Value tanh = math::TanhOp::create(
              e.b, e.fmul(score, e.constF32(1.0f / *p.softCap)));
          score = e.fmul(e.constF32(*p.softCap), tanh);
        }
        scores.push_back(e.select(valid[u], score, e.negInf()));
      }
      Value alpha;
      SmallVector<Value> probs;
      Value newMax = s.max;
      if (tokens == 1) {
        // One exponential per token: exp(min - max) rescales whichever of
        // the old state and the new token is smaller; the other weighs 1.
        Value score = scores[0];
        Value grows =
            arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, score, s.max);
        newMax = e.fmaxNoNaN(s.max, score);
        Value low = e.select(grows, s.max, score);
        Value x = e.exp(e.fsub(low, finiteOrZero(e, newMax)));
        Value one = e.constF32(1.0f);
        alpha = e.select(grows, x, one);
        probs.push_back(e.select(grows, one, x));
      } else {
        for (Value score : scores)
          newMax = e.fmaxNoNaN(newMax, score);
        Value shift = finiteOrZero(e, newMax);
        alpha = e.exp(e.fsub(s.max, shift));
        for (Value score : scores)
          probs.push_back(e.exp(e.fsub(score, shift)));
      }
      Value sum = e.fmul(s.sum, alpha);
      for (Value prob : probs)
        sum = e.fadd(sum, prob);
      s.sum = sum;
      for (int64_t j = 0; j < E; ++j) {
        Value acc = e.fmul(s.acc[j], alpha);
        for (int64_t u = 0; u < tokens; ++u)
          acc = fma(e, probs[u], values[u][j], acc);
        s.acc[j] = acc;
      }
      s.max = newMax;
    }
    return pack(heads);
  }

  /// Merges the teams, then the subgroups, and writes the results.
  void merge(SmallVector<HeadState> heads) {
    int64_t sg = l.subgroupSize;
    for (HeadState &s : heads) {
      Value max = xorReduce(e, s.max, /*isMax=*/true, l.teamLanes, sg, sg);
      Value f = e.exp(e.fsub(s.max, finiteOrZero(e, max)));
      s.sum = xorReduce(e, e.fmul(s.sum, f), false, l.teamLanes, sg, sg);
      for (Value &a : s.acc)
        a = xorReduce(e, e.fmul(a, f), false, l.teamLanes, sg, sg);
      s.max = max;
    }
    if (l.numSubgroups == 1) {
      emitIf(
          e, cmpI(e, arith::CmpIPredicate::ult, thread, e.index(l.teamLanes)),
          [&] {
            Value first = cmpI(e, arith::CmpIPredicate::eq, lane, e.index(0));
            for (auto [h, s] : llvm::enumerate(heads))
              for (int64_t j = 0; j < l.dimPerLane; ++j) {
                Value d = dimOf(j);
                write(e.index(h), d, s.max, s.sum, s.acc[j],
                      j == 0 ? first : Value());
              }
          });
      return;
    }
    int64_t D = p.headDim, Gc = l.headChunk;
    Value stats = allocWorkgroup(e, l.numSubgroups * Gc * 2);
    Value accs = allocWorkgroup(e, l.numSubgroups * Gc * D);
    Value subgroup = divU(e, thread, sg);
    Value teamLanes = e.index(l.teamLanes);
    Value leader =
        cmpI(e, arith::CmpIPredicate::ult, remU(e, thread, sg), teamLanes);
    emitIf(e, leader, [&] {
      for (auto [h, s] : llvm::enumerate(heads)) {
        Value headIndex = e.index(h);
        Value row = e.add(e.mul(subgroup, e.index(Gc)), headIndex);
        Value at = e.mul(row, e.index(2));
        memref::StoreOp::create(e.b, s.max, stats, ValueRange{at});
        memref::StoreOp::create(e.b, s.sum, stats,
                                ValueRange{e.add(at, e.index(1))});
        for (int64_t j = 0; j < l.dimPerLane; ++j) {
          Value d = dimOf(j);
          memref::StoreOp::create(e.b, s.acc[j], accs,
                                  ValueRange{e.add(e.mul(row, e.index(D)), d)});
        }
      }
    });
    gpu::BarrierOp::create(e.b);
    forEachShared(e, l.threads, thread, Gc * D, [&](Value i) {
      Value h = divU(e, i, D), d = remU(e, i, D);
      SmallVector<Value> maxes, sums;
      Value max = e.negInf();
      for (int64_t g = 0; g < l.numSubgroups; ++g) {
        Value two = e.index(2);
        Value at = e.mul(e.add(e.index(g * Gc), h), two);
        maxes.push_back(memref::LoadOp::create(e.b, stats, ValueRange{at}));
        sums.push_back(memref::LoadOp::create(
            e.b, stats, ValueRange{e.add(at, e.index(1))}));
        max = e.fmaxNoNaN(max, maxes.back());
      }
      Value shift = finiteOrZero(e, max);
      Value sum = e.constF32(0.0f), acc = e.constF32(0.0f);
      for (int64_t g = 0; g < l.numSubgroups; ++g) {
        Value f = e.exp(e.fsub(maxes[g], shift));
        sum = e.fadd(sum, e.fmul(sums[g], f));
        Value rowSize = e.index(D);
        Value at = e.add(e.mul(e.add(e.index(g * Gc), h), rowSize), d);
        acc = e.fadd(
            acc, e.fmul(memref::LoadOp::create(e.b, accs, ValueRange{at}), f));
      }
      write(h, d, max, sum, acc,
            cmpI(e, arith::CmpIPredicate::eq, d, e.index(0)));
    });
  }

  /// Writes element `d` of chunk head `h` from its merged state (and its
  /// log-sum when `writesLse`, null for never).
  void write(Value h, Value d, Value max, Value sum, Value acc,
             Value writesLse) {
    auto body = [&] {
      Value head = queryHead(h);
      Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                        e.constF32(0.0f));
      Value nothing = e.constF32(0.0f);
      Value safeSum = e.select(has, sum, e.constF32(1.0f));
      Value out = e.select(has, e.fdiv(acc, safeSum), nothing);
      // v_scale dequantizes the values: it scales the output (the partial
      // outputs of splits, which the combine only weighs).
      if (p.vScale != 1.0f)
        out = e.fmul(out, e.constF32(p.vScale));
      // With splits the sinks join in the combine.
      if (buf.ragged && buf.ragged->sinks()) {
        Value sink = loadF32(e, buf.ragged->sinks(), {head});
        out = e.fmul(acc, sinkedOutputScale(e, max, sum, sink, p.vScale));
      } else if (buf.sinks && l.numSplits == 1) {
        Value sink = decodeSinkLogit(e, p, buf.sinks, head);
        out = e.fmul(acc, sinkedOutputScale(e, max, sum, sink, p.vScale));
      }
      Value none = e.negInf();
      Value logSum =
          math::LogOp::create(e.b, e.select(has, sum, e.constF32(1.0f)));
      Value lse = e.select(has, e.fadd(finiteOrZero(e, max), logSum), none);
      if (l.numSplits == 1) {
        storeF32(e, out, buf.output, rowIndices(buf.output, head, d));
        if (buf.lse && writesLse)
          emitIf(e, writesLse, [&] {
            memref::StoreOp::create(e.b, lse, buf.lse,
                                    pagedLseIndices(e, buf.lse, batch, head));
          });
        return;
      }
      memref::StoreOp::create(e.b, out, partialO,
                              ValueRange{batch, head, split, d});
      if (writesLse)
        emitIf(e, writesLse, [&] {
          memref::StoreOp::create(e.b, lse, partialLse,
                                  ValueRange{batch, head, split});
        });
    };
    if (l.headChunk * l.headChunks == p.groupSize())
      body();
    else
      emitIf(e, headExists(h), body);
  }

  Emitter &e;
  const VulkanPagedPlan &p;
  const VulkanPagedLayout &l;
  const PagedAttentionBuffers &buf;
  Value partialO, partialLse;
  Value split, batch, kvHead, chunkHead0, thread, lane, team, begin, end;
  /// The page-table row of `batch` and, for a ragged row, its length.
  Value tableRow, raggedLength;
  RaggedRow raggedRow;
  /// The caches as memref<N x vector<4xi32>> (16-byte loads), or null.
  Value keyView, valueView;
  /// queries[h * dimPerLane + j]: element dimOf(j) of chunk head h, scaled.
  SmallVector<Value> queries;
};

} // namespace

void mlir::ejk::buildVulkanPagedAttentionBody(
    OpBuilder &b, Location loc, const VulkanPagedPlan &plan,
    const PagedAttentionBuffers &buffers, Value partialO, Value partialLse) {
  Emitter e(b, loc, 1);
  PagedKernel(e, plan, buffers, partialO, partialLse).build();
}
