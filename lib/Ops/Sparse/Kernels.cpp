//===- Kernels.cpp - native sparse attention's dispatch bodies ------------===//
//
// The three dispatches of Kernels.h, written once: `Chunks` walks head_dim
// as f32 vectors on the CPU and as scalars on Vulkan, `forEachToken` maps
// the tokens of a workgroup onto a loop (CPU) or onto its threads
// (Vulkan). Loops whose trip count may be zero and that carry values run
// under an `scf.if` (MLIR's SPIR-V lowering leaves a never-run loop's
// results undefined).
//
//===----------------------------------------------------------------------===//

#include "Sparse/Kernels.h"
#include "Common/CpuEmitter.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

Value cmpI(Emitter &e, arith::CmpIPredicate pred, Value x, Value y) {
  return arith::CmpIOp::create(e.b, pred, x, y);
}

Value loadIndex(Emitter &e, Value memref, ValueRange indices) {
  Value v = memref::LoadOp::create(e.b, memref, indices);
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(), v);
}

Value loadScalarF32(Emitter &e, Value memref, ValueRange indices) {
  return e.toF32(memref::LoadOp::create(e.b, memref, indices));
}

void emitIf(Emitter &e, Value cond, function_ref<void()> then) {
  auto ifOp = scf::IfOp::create(e.b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then();
}

/// head_dim in chunks: f32 vectors of `lanes` on the CPU (the last one
/// masked when head_dim is not a whole number of vectors), scalars on
/// Vulkan.
class Chunks {
public:
  Chunks(Emitter &e, const NativeSparsePlan &p)
      : e(e), vulkan(p.vulkan), width(p.vulkan ? 1 : p.lanes), dim(p.headDim) {}

  int64_t count() const { return (dim + width - 1) / width; }
  Value step() { return e.index(width); }

  Value load(Value memref, ValueRange indices) {
    if (vulkan)
      return loadScalarF32(e, memref, indices);
    return e.readVector(memref, indices, dim % width == 0);
  }
  void store(Value value, Value memref, ValueRange indices) {
    if (vulkan) {
      Type elt = cast<MemRefType>(memref.getType()).getElementType();
      memref::StoreOp::create(e.b, e.fromF32(value, elt), memref, indices);
      return;
    }
    e.writeVector(value, memref, indices, dim % width == 0);
  }
  Value splat(Value scalar) { return vulkan ? scalar : e.broadcast(scalar); }
  Value zero() { return vulkan ? e.constF32(0.0f) : e.splatF32(0.0f); }
  Value fma(Value x, Value y, Value acc) {
    return vulkan ? math::FmaOp::create(e.b, x, y, acc).getResult()
                  : e.fma(x, y, acc);
  }
  /// The lanes' sum; `reassoc` lets LLVM add them as a tree (its default
  /// is a chain of `lanes` dependent adds, the bottleneck of a dot
  /// product per key).
  Value sum(Value v) {
    if (vulkan)
      return v;
    return vector::ReductionOp::create(e.b, vector::CombiningKind::ADD, v,
                                       arith::FastMathFlags::reassoc);
  }

private:
  Emitter &e;
  bool vulkan;
  int64_t width, dim;
};

/// `body(t)` for each token of this workgroup's `block_t`.
void forEachToken(Emitter &e, const NativeSparsePlan &p,
                  function_ref<void(Value)> body) {
  Value blockT = e.index(p.blockT);
  Value t0 = e.mul(WorkgroupIdOp::create(e.b, 0), blockT);
  if (p.vulkan) {
    Value t = e.add(t0, gpu::ThreadIdOp::create(e.b, gpu::Dimension::x));
    emitIf(e, cmpI(e, arith::CmpIPredicate::slt, t, e.index(p.seq)),
           [&] { body(t); });
    return;
  }
  Value seq = e.index(p.seq);
  Value end = e.min(e.add(t0, e.index(p.blockT)), seq);
  e.forLoop(t0, end, e.index(1), body);
}

/// One f32 row of `size` per token: a stack buffer on the CPU, this
/// thread's slice of workgroup memory on Vulkan. Allocate it at the top of
/// the kernel and `bind` it inside forEachToken.
struct Scratch {
  Value memory, base;
  int64_t size = 0;

  static Scratch make(Emitter &e, const NativeSparsePlan &p, int64_t size) {
    Scratch s;
    s.size = size;
    if (p.vulkan) {
      auto space = gpu::AddressSpaceAttr::get(e.b.getContext(),
                                              gpu::AddressSpace::Workgroup);
      s.memory = memref::AllocOp::create(
          e.b, MemRefType::get({p.blockT * size}, e.f32,
                               MemRefLayoutAttrInterface(), space));
    } else {
      s.memory = memref::AllocaOp::create(e.b, MemRefType::get({size}, e.f32),
                                          e.b.getI64IntegerAttr(64));
    }
    return s;
  }
  void bind(Emitter &e, const NativeSparsePlan &p) {
    if (!p.vulkan) {
      base = e.index(0);
      return;
    }
    Value sliceSize = e.index(size);
    base = e.mul(gpu::ThreadIdOp::create(e.b, gpu::Dimension::x), sliceSize);
  }
  Value load(Emitter &e, Value i) {
    return memref::LoadOp::create(e.b, memory, ValueRange{e.add(base, i)});
  }
  void store(Emitter &e, Value v, Value i) {
    memref::StoreOp::create(e.b, v, memory, ValueRange{e.add(base, i)});
  }
};

Emitter makeEmitter(OpBuilder &builder, Location loc,
                    const NativeSparsePlan &p) {
  return Emitter(builder, loc, p.vulkan ? 1 : p.lanes);
}

/// Threads of the Vulkan compress dispatch (one head_dim column each, up
/// to 64).
int64_t compressThreads(const NativeSparsePlan &p) {
  return std::min<int64_t>(64, p.headDim);
}

/// compress: the mean of block c of key and value head h.
void buildCompress(OpBuilder &builder, Location loc, const NativeSparsePlan &p,
                   Value key, Value value, Value kc, Value vc) {
  Emitter e = makeEmitter(builder, loc, p);
  Chunks ch(e, p);
  Value c = WorkgroupIdOp::create(e.b, 0);
  Value h = WorkgroupIdOp::create(e.b, 1);
  Value b = WorkgroupIdOp::create(e.b, 2);
  Value lo = e.mul(c, e.index(p.blockSize));
  Value seq = e.index(p.seq);
  Value hi = e.min(e.add(lo, e.index(p.keysPerBlock())), seq);
  // Rows past the sequence are zeros of the mean: divide by block_size.
  Value inverse = ch.splat(e.constF32(1.0f / p.blockSize));
  auto pool = [&](Value d) {
    for (std::pair<Value, Value> fromTo :
         {std::pair(key, kc), std::pair(value, vc)}) {
      Value from = fromTo.first, to = fromTo.second;
      // Every block holds at least one row: the loop runs.
      Value zeroChunk = ch.zero();
      Value sum = e.forLoop(lo, hi, e.index(1), {zeroChunk},
                            [&](Value t, ValueRange acc) {
                              return SmallVector<Value>{
                                  e.fadd(acc[0], ch.load(from, {b, t, h, d}))};
                            })[0];
      ch.store(e.fmul(sum, inverse), to, {b, h, c, d});
    }
  };
  Value first =
      p.vulkan ? gpu::ThreadIdOp::create(e.b, gpu::Dimension::x) : e.index(0);
  Value step = p.vulkan ? e.index(compressThreads(p)) : ch.step();
  e.forLoop(first, e.index(p.headDim), step, pool);
}

/// select: the compression branch and the top-k blocks of each token of the
/// workgroup and KV head.
void buildSelect(OpBuilder &builder, Location loc, const NativeSparsePlan &p,
                 Value query, Value gCmp, Value kc, Value vc, Value selected,
                 Value oCmp) {
  Emitter e = makeEmitter(builder, loc, p);
  Chunks ch(e, p);
  Value kvh = WorkgroupIdOp::create(e.b, 1);
  Value b = WorkgroupIdOp::create(e.b, 2);
  int64_t blocks = std::max<int64_t>(p.numBlocks(), 1);
  Scratch scores = Scratch::make(e, p, blocks);
  Scratch sums = Scratch::make(e, p, blocks);
  Value zero = e.index(0), one = e.index(1);
  Value zeroF = e.constF32(0.0f);

  forEachToken(e, p, [&](Value t) {
    scores.bind(e, p);
    sums.bind(e, p);
    Value qb = e.div(t, e.index(p.blockSize));
    Value seen = e.add(qb, one);
    Value blockSize = e.index(p.blockSize);
    Value done = e.div(e.add(t, one), blockSize);
    e.forLoop(zero, seen, one, [&](Value c) { sums.store(e, zeroF, c); });

    e.forLoop(zero, e.index(p.group()), one, [&](Value g) {
      Value h = e.add(e.mul(kvh, e.index(p.group())), g);
      // Scores of blocks 0 .. qb.
      e.forLoop(zero, seen, one, [&](Value c) {
        Value zeroChunk = ch.zero();
        Value step = ch.step();
        Value dot = e.forLoop(zero, e.index(p.headDim), step, {zeroChunk},
                              [&](Value d, ValueRange acc) {
                                Value k = ch.load(kc, {b, kvh, c, d});
                                return SmallVector<Value>{ch.fma(
                                    ch.load(query, {b, t, h, d}), k, acc[0])};
                              })[0];
        Value scale = e.constF32(p.softmaxScale);
        scores.store(e, e.fmul(ch.sum(dot), scale), c);
      });
      // lse over the completed blocks (0 without one, as ejKernel).
      Value m =
          guardedLoop(e, zero, done, {e.negInf()}, [&](Value c, ValueRange it) {
            return SmallVector<Value>{e.fmaxNoNaN(it[0], scores.load(e, c))};
          })[0];
      Value l =
          guardedLoop(e, zero, done, {zeroF}, [&](Value c, ValueRange it) {
            return SmallVector<Value>{
                e.fadd(it[0], e.exp(e.fsub(scores.load(e, c), m)))};
          })[0];
      Value any = cmpI(e, arith::CmpIPredicate::sgt, done, zero);
      Value logL = math::LogOp::create(e.b, e.select(any, l, e.constF32(1.0f)));
      Value lse = e.select(any, e.fadd(e.select(any, m, zeroF), logL), zeroF);
      // Probabilities; the group's sums count the token's own block as 1.
      e.forLoop(zero, seen, one, [&](Value c) {
        Value prob = e.exp(e.fsub(scores.load(e, c), lse));
        scores.store(e, prob, c);
        Value own = cmpI(e, arith::CmpIPredicate::eq, c, qb);
        Value add = e.select(own, e.constF32(1.0f), prob);
        sums.store(e, e.fadd(sums.load(e, c), add), c);
      });
      // The gated compression output.
      Value gate = ch.splat(loadScalarF32(e, gCmp, {b, t, h}));
      Value step = ch.step();
      e.forLoop(zero, e.index(p.headDim), step, [&](Value d) {
        Value acc = guardedLoop(
            e, zero, done, {ch.zero()}, [&](Value c, ValueRange it) {
              Value v = ch.load(vc, {b, kvh, c, d});
              return SmallVector<Value>{
                  ch.fma(ch.splat(scores.load(e, c)), v, it[0])};
            })[0];
        ch.store(e.fmul(acc, gate), oCmp, {b, t, h, d});
      });
    });

    // Top-k by repeated arg-max over key_c = sum_c + f32(c) * 1e-8 (in
    // f32, as ejKernel); strictly larger wins, so equal keys go in
    // increasing c. A taken block's sum becomes -inf. Slots past qb + 1
    // blocks get -1.
    Value tie = e.constF32(1e-8f);
    e.forLoop(zero, e.index(p.slots()), one, [&](Value i) {
      SmallVector<Value> best = e.forLoop(
          zero, seen, one, {e.negInf(), e.index(-1)},
          [&](Value c, ValueRange it) {
            Value cf = arith::SIToFPOp::create(e.b, e.f32, e.toI32(c));
            Value tieBreak = e.fmul(cf, tie);
            Value key = e.fadd(sums.load(e, c), tieBreak);
            Value better = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                                 key, it[0]);
            return SmallVector<Value>{e.select(better, key, it[0]),
                                      e.select(better, c, it[1])};
          });
      memref::StoreOp::create(e.b, e.toI32(best[1]), selected,
                              ValueRange{b, t, kvh, i});
      emitIf(e, cmpI(e, arith::CmpIPredicate::sge, best[1], zero),
             [&] { sums.store(e, e.negInf(), best[1]); });
    });
  });
}

/// The block index of slot `i` of token `t` (query block `qb`), and the
/// keys [lo, hi) it gives: empty for an invalid entry, j <= t.
std::pair<Value, Value> slotKeys(Emitter &e, const NativeSparsePlan &p,
                                 const NativeSparseBuffers &buf, Value b,
                                 Value t, Value kvh, Value qb, Value i) {
  Value zero = e.index(0);
  Value c;
  if (!buf.blockIndices)
    c = loadIndex(e, buf.selected, {b, t, kvh, i});
  else if (p.perTokenIndices)
    c = loadIndex(e, buf.blockIndices, {b, t, kvh, i});
  else
    c = loadIndex(e, buf.blockIndices, {b, kvh, qb, i});
  Value belowBlocks =
      cmpI(e, arith::CmpIPredicate::slt, c, e.index(p.numBlocks()));
  Value valid = arith::AndIOp::create(
      e.b, cmpI(e, arith::CmpIPredicate::sge, c, zero), belowBlocks);
  Value blockSize = e.index(p.blockSize);
  Value lo = e.mul(e.select(valid, c, zero), blockSize);
  Value end = e.add(t, e.index(1));
  Value hi = e.min(e.add(lo, e.index(p.keysPerBlock())), end);
  return {lo, e.select(valid, e.max(hi, lo), lo)};
}

/// attend on Vulkan: per token (thread) and head of the group, one key at a
/// time.
void buildAttend(OpBuilder &builder, Location loc, const NativeSparsePlan &p,
                 const NativeSparseBuffers &buf) {
  Emitter e = makeEmitter(builder, loc, p);
  Chunks ch(e, p);
  Value kvh = WorkgroupIdOp::create(e.b, 1);
  Value b = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  int64_t n = ch.count();
  auto dim = [&](int64_t i) { return e.index(i); };

  forEachToken(e, p, [&](Value t) {
    Value qb = e.div(t, e.index(p.blockSize));
    Value end = e.add(t, one);
    e.forLoop(zero, e.index(p.group()), one, [&](Value g) {
      Value h = e.add(e.mul(kvh, e.index(p.group())), g);
      Value scale = ch.splat(e.constF32(p.softmaxScale));
      SmallVector<Value> q;
      for (int64_t i = 0; i < n; ++i)
        q.push_back(e.fmul(ch.load(buf.query, {b, t, h, dim(i)}), scale));

      // Online softmax, one key at a time: state = (max, sum, acc...). The
      // max starts finite so no -inf difference is ever exponentiated.
      auto keyStep = [&](Value j, ValueRange state) {
        Value dot = ch.zero();
        for (int64_t i = 0; i < n; ++i)
          dot = ch.fma(q[i], ch.load(buf.key, {b, j, kvh, dim(i)}), dot);
        Value s = ch.sum(dot);
        Value m = e.fmaxNoNaN(state[0], s);
        Value alpha = e.exp(e.fsub(state[0], m));
        Value prob = e.exp(e.fsub(s, m));
        SmallVector<Value> next = {m, e.fadd(e.fmul(state[1], alpha), prob)};
        Value alphas = ch.splat(alpha), probs = ch.splat(prob);
        for (int64_t i = 0; i < n; ++i) {
          Value rescaled = e.fmul(state[2 + i], alphas);
          next.push_back(
              ch.fma(probs, ch.load(buf.value, {b, j, kvh, dim(i)}), rescaled));
        }
        return next;
      };
      auto keyRange = [&](Value lo, Value hi, ValueRange state) {
        return guardedLoop(e, lo, hi, state, keyStep);
      };
      SmallVector<Value> init = {e.constF32(-1e30f), e.constF32(0.0f)};
      for (int64_t i = 0; i < n; ++i)
        init.push_back(ch.zero());
      // acc / sum, 0 for no key.
      auto normalized = [&](ValueRange state, Value gate) {
        Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                          state[1], e.constF32(0.0f));
        Value nothing = e.constF32(0.0f);
        Value safeSum = e.select(has, state[1], e.constF32(1.0f));
        Value inverse =
            e.select(has, e.fdiv(e.constF32(1.0f), safeSum), nothing);
        if (gate)
          inverse = e.fmul(inverse, gate);
        SmallVector<Value> out;
        for (int64_t i = 0; i < n; ++i)
          out.push_back(e.fmul(state[2 + i], ch.splat(inverse)));
        return out;
      };

      // Selection branch: the listed blocks, keys j <= t.
      SmallVector<Value> slc =
          e.forLoop(zero, e.index(p.usedSlots()), one, init,
                    [&](Value i, ValueRange state) {
                      auto [lo, hi] = slotKeys(e, p, buf, b, t, kvh, qb, i);
                      return keyRange(lo, hi, state);
                    });
      Value gSlc = buf.gSlc ? loadScalarF32(e, buf.gSlc, {b, t, h}) : Value();
      SmallVector<Value> out = normalized(slc, gSlc);

      if (p.compress)
        for (int64_t i = 0; i < n; ++i)
          out[i] =
              e.fadd(out[i], ch.load(buf.oCmp, ValueRange{b, t, h, dim(i)}));

      if (p.windowSize > 0) {
        Value lo = e.max(e.sub(end, e.index(p.windowSize)), zero);
        SmallVector<Value> swa = keyRange(lo, end, init);
        Value gSwa = buf.gSwa ? loadScalarF32(e, buf.gSwa, {b, t, h}) : Value();
        SmallVector<Value> w = normalized(swa, gSwa);
        for (int64_t i = 0; i < n; ++i)
          out[i] = e.fadd(out[i], w[i]);
      }
      for (int64_t i = 0; i < n; ++i)
        ch.store(out[i], buf.output, {b, t, h, dim(i)});
    });
  });
}

/// attend on the CPU, per token: the group's G heads take each key block in
/// turn (the block's K/V rows are read from memory once per token, then
/// from cache), their softmax states (max, sum, accumulators of both
/// branches) in stack buffers between blocks. A block of keys [lo, hi)
/// (1 to block_size keys): its scores into a stack row, one rescale of the
/// state by the block's max, the probabilities exponentiated as vectors.
void buildCpuAttend(OpBuilder &builder, Location loc, const NativeSparsePlan &p,
                    const NativeSparseBuffers &buf) {
  Emitter e = makeEmitter(builder, loc, p);
  Chunks ch(e, p);
  Value kvh = WorkgroupIdOp::create(e.b, 1);
  Value b = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  int64_t n = ch.count(), lanes = p.lanes, group = p.group();
  auto stackRow = [&](int64_t size) {
    return memref::AllocaOp::create(e.b, MemRefType::get({size}, e.f32),
                                    e.b.getI64IntegerAttr(64))
        .getResult();
  };
  Value scores = stackRow((p.keysPerBlock() + lanes - 1) / lanes * lanes);
  Value queries = stackRow(group * n * lanes);
  // [branch (selection, window)][head][chunk] and [branch][head][max, sum].
  Value accs = stackRow(2 * group * n * lanes);
  Value stats = stackRow(2 * group * 2);
  auto accAt = [&](int64_t branch, Value g, int64_t i) {
    Value chunk = e.index(i * lanes);
    Value headStride = e.index(n * lanes);
    return e.add(e.mul(e.add(e.index(branch * group), g), headStride), chunk);
  };
  auto statAt = [&](int64_t branch, Value g, int64_t k) {
    Value stat = e.index(k);
    Value headStride = e.index(2);
    return e.add(e.mul(e.add(e.index(branch * group), g), headStride), stat);
  };
  auto loadV = [&](Value memref, Value at) {
    return vector::LoadOp::create(e.b, e.vf32, memref, ValueRange{at})
        .getResult();
  };
  auto loadS = [&](Value memref, Value at) {
    return memref::LoadOp::create(e.b, memref, ValueRange{at}).getResult();
  };

  // One block [lo, hi) for head `g` of `branch`.
  auto headBlock = [&](int64_t branch, Value g, Value lo, Value hi) {
    SmallVector<Value> q, acc;
    for (int64_t i = 0; i < n; ++i) {
      Value chunk = e.index(i * lanes);
      q.push_back(loadV(queries, e.add(e.mul(g, e.index(n * lanes)), chunk)));
    }
    Value blockMax =
        e.forLoop(lo, hi, one, {e.negInf()}, [&](Value j, ValueRange it) {
          Value dot = ch.zero();
          for (int64_t i = 0; i < n; ++i)
            dot = ch.fma(
                q[i], ch.load(buf.key, {b, j, kvh, e.index(i * lanes)}), dot);
          Value s = ch.sum(dot);
          memref::StoreOp::create(e.b, s, scores, ValueRange{e.sub(j, lo)});
          return SmallVector<Value>{e.fmaxNoNaN(it[0], s)};
        })[0];
    Value oldMax = loadS(stats, statAt(branch, g, 0));
    Value m = e.fmaxNoNaN(oldMax, blockMax);
    Value alpha = e.exp(e.fsub(oldMax, m));
    Value shift = e.broadcast(m);
    Value count = e.broadcast(e.toI32(e.sub(hi, lo)));
    Value zeroVec = e.splatF32(0.0f);
    Value lanesStep = e.index(lanes);
    Value sums = e.forLoop(
        zero, e.sub(hi, lo), lanesStep, {zeroVec}, [&](Value i, ValueRange it) {
          Value inside = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                               e.laneIndices(i), count);
          Value masked = e.splatF32(0.0f);
          Value prob =
              e.select(inside, e.exp(e.fsub(loadV(scores, i), shift)), masked);
          vector::StoreOp::create(e.b, prob, scores, ValueRange{i});
          return SmallVector<Value>{e.fadd(it[0], prob)};
        })[0];
    Value alphas = e.broadcast(alpha);
    for (int64_t i = 0; i < n; ++i)
      acc.push_back(e.fmul(loadV(accs, accAt(branch, g, i)), alphas));
    acc = e.forLoop(lo, hi, one, acc, [&](Value j, ValueRange it) {
      Value prob = e.broadcast(loadS(scores, e.sub(j, lo)));
      SmallVector<Value> next;
      for (int64_t i = 0; i < n; ++i)
        next.push_back(ch.fma(
            prob, ch.load(buf.value, {b, j, kvh, e.index(i * lanes)}), it[i]));
      return next;
    });
    for (int64_t i = 0; i < n; ++i)
      vector::StoreOp::create(e.b, acc[i], accs,
                              ValueRange{accAt(branch, g, i)});
    Value blockSum = ch.sum(sums);
    Value sum =
        e.fadd(e.fmul(loadS(stats, statAt(branch, g, 1)), alpha), blockSum);
    memref::StoreOp::create(e.b, m, stats, ValueRange{statAt(branch, g, 0)});
    memref::StoreOp::create(e.b, sum, stats, ValueRange{statAt(branch, g, 1)});
  };
  // Keys [lo, hi) of `branch`, block by block, every head per block.
  auto keys = [&](int64_t branch, Value lo, Value hi) {
    Value keysPerBlock = e.index(p.keysPerBlock());
    Value roundUp = e.index(p.keysPerBlock() - 1);
    Value blocks =
        e.div(e.add(e.max(e.sub(hi, lo), zero), roundUp), keysPerBlock);
    e.forLoop(zero, blocks, one, [&](Value k) {
      Value from = e.add(lo, e.mul(k, e.index(p.keysPerBlock())));
      Value to = e.min(e.add(from, e.index(p.keysPerBlock())), hi);
      e.forLoop(zero, e.index(group), one,
                [&](Value g) { headBlock(branch, g, from, to); });
    });
  };

  forEachToken(e, p, [&](Value t) {
    Value qb = e.div(t, e.index(p.blockSize));
    Value end = e.add(t, one);
    Value scale = e.broadcast(e.constF32(p.softmaxScale));
    e.forLoop(zero, e.index(group), one, [&](Value g) {
      Value h = e.add(e.mul(kvh, e.index(group)), g);
      for (int64_t i = 0; i < n; ++i) {
        Value q =
            e.fmul(ch.load(buf.query, {b, t, h, e.index(i * lanes)}), scale);
        Value chunk = e.index(i * lanes);
        vector::StoreOp::create(
            e.b, q, queries,
            ValueRange{e.add(e.mul(g, e.index(n * lanes)), chunk)});
      }
      for (int64_t branch = 0; branch < 2; ++branch) {
        for (int64_t i = 0; i < n; ++i) {
          Value accIndex = accAt(branch, g, i);
          vector::StoreOp::create(e.b, e.splatF32(0.0f), accs,
                                  ValueRange{accIndex});
        }
        // The max starts finite: no -inf difference is exponentiated.
        Value maxIndex = statAt(branch, g, 0);
        memref::StoreOp::create(e.b, e.constF32(-1e30f), stats,
                                ValueRange{maxIndex});
        Value sumIndex = statAt(branch, g, 1);
        memref::StoreOp::create(e.b, e.constF32(0.0f), stats,
                                ValueRange{sumIndex});
      }
    });
    e.forLoop(zero, e.index(p.usedSlots()), one, [&](Value i) {
      auto [lo, hi] = slotKeys(e, p, buf, b, t, kvh, qb, i);
      keys(0, lo, hi);
    });
    if (p.windowSize > 0)
      keys(1, e.max(e.sub(end, e.index(p.windowSize)), zero), end);

    // acc / sum (0 for no key) times the gate, per branch; plus g_cmp's.
    e.forLoop(zero, e.index(group), one, [&](Value g) {
      Value h = e.add(e.mul(kvh, e.index(group)), g);
      SmallVector<Value> out(n, e.splatF32(0.0f));
      for (int64_t branch = 0; branch < (p.windowSize > 0 ? 2 : 1); ++branch) {
        Value sum = loadS(stats, statAt(branch, g, 1));
        Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                          e.constF32(0.0f));
        Value nothing = e.constF32(0.0f);
        Value safeSum = e.select(has, sum, e.constF32(1.0f));
        Value inverse =
            e.select(has, e.fdiv(e.constF32(1.0f), safeSum), nothing);
        Value gate = branch == 0 ? buf.gSlc : buf.gSwa;
        if (gate)
          inverse = e.fmul(inverse, loadScalarF32(e, gate, {b, t, h}));
        Value inverses = e.broadcast(inverse);
        for (int64_t i = 0; i < n; ++i)
          out[i] = ch.fma(loadV(accs, accAt(branch, g, i)), inverses, out[i]);
      }
      for (int64_t i = 0; i < n; ++i) {
        if (p.compress)
          out[i] =
              e.fadd(out[i], ch.load(buf.oCmp, {b, t, h, e.index(i * lanes)}));
        ch.store(out[i], buf.output, {b, t, h, e.index(i * lanes)});
      }
    });
  });
}

} // namespace

SmallVector<Value> mlir::ejk::guardedLoop(
    Emitter &e, Value lb, Value ub, ValueRange inits,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  SmallVector<Value> initValues(inits.begin(), inits.end());
  return e.ifElse(
      cmpI(e, arith::CmpIPredicate::sgt, ub, lb), types,
      [&] { return e.forLoop(lb, ub, e.index(1), initValues, body); },
      [&] { return initValues; });
}

std::pair<Value, Value>
mlir::ejk::nativeSparseSlotKeys(Emitter &e, const NativeSparsePlan &p,
                                const NativeSparseBuffers &buf, Value b,
                                Value t, Value kvh, Value qb, Value i) {
  return slotKeys(e, p, buf, b, t, kvh, qb, i);
}

LogicalResult mlir::ejk::tileNativeSparseAttention(NativeSparseAttentionOp op,
                                                   const NativeSparsePlan &p,
                                                   DispatchRewriter &rewriter) {
  NativeSparseBuffers buf = findNativeSparseBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  // replaceBody erases the op: read what it needs first.
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  int64_t rows = p.batch * p.seq * p.numHeads;

  if (p.compress) {
    MemRefType pooled = compressedType(p, context);
    MemRefType list = selectedType(p, context);
    MemRefType gated = compressedOutputType(p, context);
    func::FuncOp compress = rewriter.addDispatch(
        "compress", {buf.key.getType(), buf.value.getType(), pooled, pooled},
        {p.numBlocks(), p.numKvHeads, p.batch},
        [&](OpBuilder &b, Location l, ValueRange args) {
          buildCompress(b, l, p, args[0], args[1], args[2], args[3]);
        });
    DispatchRewriter::setWork(compress,
                              2 * p.batch * p.seq * p.numKvHeads * p.headDim,
                              DispatchRewriter::bytesOf({buf.key, buf.value}) +
                                  2 * pooled.getNumElements() * 4);
    func::FuncOp select = rewriter.addDispatch(
        "select",
        {buf.query.getType(), buf.gCmp.getType(), pooled, pooled, list, gated},
        {p.laneSelect ? p.seq : p.tokenBlocks(), p.numKvHeads, p.batch},
        [&](OpBuilder &b, Location l, ValueRange args) {
          if (p.laneSelect)
            buildLaneSelect(b, l, p, args[0], args[1], args[2], args[3],
                            args[4], args[5]);
          else
            buildSelect(b, l, p, args[0], args[1], args[2], args[3], args[4],
                        args[5]);
        });
    DispatchRewriter::setWork(
        select, 4 * rows * (p.numBlocks() / 2 + 1) * p.headDim,
        DispatchRewriter::bytesOf({buf.query, buf.gCmp}) +
            (list.getNumElements() + gated.getNumElements()) * 4);
    if (p.vulkan) {
      DispatchRewriter::setVulkanLaunch(compress, compressThreads(p), 0);
      // One subgroup per token, or one thread per token with its scratch.
      if (p.laneSelect)
        DispatchRewriter::setVulkanLaunch(select, p.subgroupSize, 0);
      else
        DispatchRewriter::setVulkanLaunch(select, p.blockT,
                                          p.selectSharedBytes());
    }
    FailureOr<SmallVector<Value>> temps =
        rewriter.appendArguments({list, gated});
    if (failed(temps))
      return failure();
    buf.selected = (*temps)[0];
    buf.oCmp = (*temps)[1];
    unsigned q = DispatchRewriter::argumentIndex(buf.query);
    unsigned k = DispatchRewriter::argumentIndex(buf.key);
    unsigned v = DispatchRewriter::argumentIndex(buf.value);
    unsigned gc = DispatchRewriter::argumentIndex(buf.gCmp);
    rewriter.rewriteCallers(
        {pooled, pooled, list, gated},
        [&](OpBuilder &b, Location l, DispatchOp call, ValueRange tmp) {
          ValueRange in = call.getBuffers();
          DispatchOp::create(b, l, compress.getSymName(),
                             ValueRange{in[k], in[v], tmp[0], tmp[1]});
          DispatchOp::create(
              b, l, select.getSymName(),
              ValueRange{in[q], in[gc], tmp[0], tmp[1], tmp[2], tmp[3]});
          SmallVector<Value> bindings(in.begin(), in.end());
          bindings.append({tmp[2], tmp[3]});
          DispatchOp::create(b, l, call.getCallee(), bindings);
        });
  }

  OpBuilder b = rewriter.replaceBody();
  if (p.cooperative)
    buildCoopAttend(b, loc, p, buf);
  else if (p.vulkan)
    buildAttend(b, loc, p, buf);
  else
    buildCpuAttend(b, loc, p, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  if (p.cooperative) {
    // One subgroup per token.
    DispatchRewriter::setGrid(dispatch, {p.seq, p.numKvHeads, p.batch});
    DispatchRewriter::setVulkanLaunch(dispatch, p.subgroupSize,
                                      coopAttendSharedBytes(p));
    if (p.elementType.isBF16())
      DispatchRewriter::setBF16Matrices(dispatch);
  } else {
    DispatchRewriter::setGrid(dispatch,
                              {p.tokenBlocks(), p.numKvHeads, p.batch});
    if (p.vulkan)
      DispatchRewriter::setVulkanLaunch(dispatch, p.blockT, 0);
  }
  SmallVector<Value> read(buf.operands());
  read.append({buf.output, buf.selected, buf.oCmp});
  DispatchRewriter::setWork(dispatch, p.flops(),
                            DispatchRewriter::bytesOf(read));
  return success();
}
