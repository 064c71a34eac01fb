//===- Kernel.cpp - multi-head latent attention on the CPU ----------------===//
//
// Flash-decoding over the latent cache, every head of a query row in one
// workgroup: workgroup = (split of the row's visible tokens, row). All
// heads share the cache row (MLA's single latent head), so the workgroup
// reads each cache token once, whatever the head count, and each step of
// `block_k` tokens runs three passes over its staged rows:
//
//   stage    the step's latent and RoPE rows, widened to f32 into a
//            scratch block [block_k][latent | rope] (zero-padded to whole
//            vectors); the next step's rows are prefetched
//   scores   S[heads][block_k] = Q [heads][latent | rope] . block^T, in
//            register tiles of 4 heads x 2 tokens (8 dot accumulators over
//            the row's vectors, one horizontal sum each)
//   softmax  per head over the step's scores as vectors: running max, the
//            rescale factor, exp, running sum
//   values   acc[heads][latent] = alpha * acc + P . block, in register
//            tiles of 4 heads x 2 vectors (8 accumulators over the step's
//            tokens)
//
// With one split the workgroup writes the output and lse; with more it
// writes its unnormalized output and (max, sum), merged by a combine
// dispatch per (head, row).
//
//===----------------------------------------------------------------------===//

#include "Common/CpuOnlineSoftmax.h"
#include "Latent/Cpu/Mla.h"
#include "Latent/Rows.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::latent;

namespace {

struct CpuMlaPlan : MlaProblem {
  int64_t blockK = 0, numSplits = 1, lanes = 0;

  int64_t latentVectors() const { return (latentDim + lanes - 1) / lanes; }
  int64_t ropeVectors() const { return (ropeDim + lanes - 1) / lanes; }
  int64_t paddedLatent() const { return latentVectors() * lanes; }
  /// Width of a staged row and of a scaled query: latent then RoPE, each
  /// padded to whole vectors.
  int64_t width() const { return (latentVectors() + ropeVectors()) * lanes; }
  /// Heads of a register tile: 4 when they divide the heads, else 2 or 1.
  int64_t headsPerTile() const {
    return numHeads % 4 == 0 ? 4 : numHeads % 2 == 0 ? 2 : 1;
  }
  /// Latent vectors of a value tile: 8 accumulators with the heads, a
  /// divisor of the latent vectors.
  int64_t vectorsPerTile() const {
    int64_t v = std::max<int64_t>(1, 8 / headsPerTile());
    while (latentVectors() % v != 0)
      --v;
    return v;
  }
  std::array<int64_t, 3> grid() const {
    return {numSplits, rowGrid()[0], rowGrid()[1]};
  }
};

class MlaBodyBuilder {
public:
  MlaBodyBuilder(OpBuilder &builder, Location loc, const CpuMlaPlan &plan,
                 const MlaBuffers &buffers, Value partialO, Value partialStats)
      : e(builder, loc, plan.lanes), p(plan), buf(buffers), partialO(partialO),
        partialStats(partialStats) {}

  void build() {
    split = WorkgroupIdOp::create(e.b, 0);
    Value idZ = WorkgroupIdOp::create(e.b, 2);
    row = findRow(e, p, buf, WorkgroupIdOp::create(e.b, 1), idZ);
    zero = e.index(0);
    one = e.index(1);
    int64_t H = p.numHeads;
    qS = e.scratch({H, p.width()});
    kS = e.scratch({p.blockK, p.width()});
    scoreS = e.scratch({H, p.blockK});
    accS = e.scratch({H, p.paddedLatent()});
    maxS = e.scratch({H});
    sumS = e.scratch({H});
    alphaS = e.scratch({H});
    loadQueries();

    // This split's share [start, end) of the row's tokens [0, row.end).
    Value splits = e.index(p.numSplits);
    Value roundUp = e.index(p.numSplits - 1);
    Value per = e.div(e.add(row.end, roundUp), splits);
    Value start = e.min(row.end, e.mul(split, per));
    Value end = e.min(row.end, e.add(start, per));
    lastToken = e.sub(end, one);
    e.forLoop(start, end, e.index(p.blockK), [&](Value t0) {
      Value tokensLeft = e.sub(end, t0);
      Value count = e.min(e.index(p.blockK), tokensLeft);
      stage(t0);
      scores();
      softmax(count);
      values();
    });
    if (partialO)
      writePartial();
    else
      writeOutput();
  }

private:
  /// qS[h] = softmax_scale * (q_latent[h] | q_rope[h]), zero-padded.
  void loadQueries() {
    Value scale = e.splatF32(p.softmaxScale);
    e.forLoop(zero, e.index(p.numHeads), one, [&](Value h) {
      for (int64_t v = 0; v < p.latentVectors(); ++v) {
        Value d = e.index(v * p.lanes);
        Value q = e.readVector(buf.qLatent, headIndices(p, row, h, d),
                               (v + 1) * p.lanes <= p.latentDim);
        vector::StoreOp::create(e.b, e.fmul(q, scale), qS, ValueRange{h, d});
        vector::StoreOp::create(e.b, e.splatF32(0.0f), accS, ValueRange{h, d});
      }
      for (int64_t v = 0; v < p.ropeVectors(); ++v) {
        Value d = e.index(v * p.lanes);
        Value q = e.readVector(buf.qRope, headIndices(p, row, h, d),
                               (v + 1) * p.lanes <= p.ropeDim);
        Value column = e.index(p.paddedLatent() + v * p.lanes);
        vector::StoreOp::create(e.b, e.fmul(q, scale), qS,
                                ValueRange{h, column});
      }
      memref::StoreOp::create(e.b, e.negInf(), maxS, h);
      memref::StoreOp::create(e.b, e.constF32(0.0f), sumS, h);
    });
  }

  /// Prefetches the cache lines of token `t`'s latent and RoPE rows.
  void prefetchRow(Value t) {
    CacheRow c = cacheRow(e, p, buf, row, t);
    int64_t elementBytes = p.elementType.getIntOrFloatBitWidth() / 8;
    for (int64_t byte = 0; byte < p.latentDim * elementBytes; byte += 64)
      memref::PrefetchOp::create(e.b, c.latent,
                                 c.latentIndex(e.index(byte / elementBytes)),
                                 /*isWrite=*/false, /*localityHint=*/3,
                                 /*isDataCache=*/true);
    if (p.ropeDim > 0)
      memref::PrefetchOp::create(e.b, c.rope, ropeIndex(e, c, zero),
                                 /*isWrite=*/false, /*localityHint=*/3,
                                 /*isDataCache=*/true);
  }

  /// kS[u] = the rows of token t0 + u (the split's last token past its
  /// end: its probability is 0).
  void stage(Value t0) {
    e.forLoop(zero, e.index(p.blockK), one, [&](Value u) {
      Value t = e.min(e.add(t0, u), lastToken);
      prefetchRow(e.min(e.add(t, e.index(p.blockK)), lastToken));
      CacheRow c = cacheRow(e, p, buf, row, t);
      for (int64_t v = 0; v < p.latentVectors(); ++v) {
        Value d = e.index(v * p.lanes);
        Value x = e.readVector(c.latent, c.latentIndex(d),
                               (v + 1) * p.lanes <= p.latentDim);
        vector::StoreOp::create(e.b, x, kS, ValueRange{u, d});
      }
      for (int64_t v = 0; v < p.ropeVectors(); ++v) {
        Value x = e.readVector(c.rope, ropeIndex(e, c, e.index(v * p.lanes)),
                               (v + 1) * p.lanes <= p.ropeDim);
        vector::StoreOp::create(
            e.b, x, kS, ValueRange{u, e.index(p.paddedLatent() + v * p.lanes)});
      }
    });
  }

  /// scoreS[h][u] = qS[h] . kS[u], for all heads and the step's tokens.
  void scores() {
    int64_t hp = p.headsPerTile();
    int64_t vectors = p.width() / p.lanes;
    Value headStep = e.index(hp);
    e.forLoop(zero, e.index(p.numHeads), headStep, [&](Value h0) {
      Value tokenStep = e.index(2);
      e.forLoop(zero, e.index(p.blockK), tokenStep, [&](Value u0) {
        Value u1 = e.add(u0, one);
        SmallVector<Value> dots(2 * hp, e.splatF32(0.0f));
        for (int64_t v = 0; v < vectors; ++v) {
          Value d = e.index(v * p.lanes);
          Value k0 = vector::LoadOp::create(e.b, e.vf32, kS, ValueRange{u0, d});
          Value k1 = vector::LoadOp::create(e.b, e.vf32, kS, ValueRange{u1, d});
          for (int64_t h = 0; h < hp; ++h) {
            Value q = vector::LoadOp::create(
                e.b, e.vf32, qS, ValueRange{e.add(h0, e.index(h)), d});
            dots[2 * h] = e.fma(q, k0, dots[2 * h]);
            dots[2 * h + 1] = e.fma(q, k1, dots[2 * h + 1]);
          }
        }
        for (int64_t h = 0; h < hp; ++h)
          for (int64_t k = 0; k < 2; ++k) {
            Value s = vector::ReductionOp::create(
                e.b, vector::CombiningKind::ADD, dots[2 * h + k]);
            memref::StoreOp::create(
                e.b, s, scoreS,
                ValueRange{e.add(h0, e.index(h)), k == 0 ? u0 : u1});
          }
      });
    });
  }

  /// Online softmax over the step: scores become probabilities against the
  /// new running max; alphaS[h] is the rescale of the old state.
  void softmax(Value count) {
    Value countVec = e.broadcast(e.toI32(count));
    int64_t blocks = p.blockK / p.lanes;
    Value inf = e.splatF32(-std::numeric_limits<float>::infinity());
    e.forLoop(zero, e.index(p.numHeads), one, [&](Value h) {
      SmallVector<Value> s;
      Value blockMax = inf;
      for (int64_t c = 0; c < blocks; ++c) {
        Value key0 = e.index(c * p.lanes);
        Value live = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                           e.laneIndices(key0), countVec);
        Value raw =
            vector::LoadOp::create(e.b, e.vf32, scoreS, ValueRange{h, key0});
        s.push_back(e.select(live, raw, inf));
        blockMax = e.fmaxNoNaN(blockMax, s.back());
      }
      // count >= 1 and finite inputs: the step has a finite score.
      Value alpha = emitOnlineSoftmaxRow(e, s, blockMax, scoreS, maxS, sumS, h);
      memref::StoreOp::create(e.b, alpha, alphaS, h);
    });
  }

  /// accS[h] = alpha[h] * accS[h] + sum_u P[h][u] * latent(u).
  void values() {
    int64_t hp = p.headsPerTile(), vp = p.vectorsPerTile();
    Value headStep = e.index(hp);
    e.forLoop(zero, e.index(p.numHeads), headStep, [&](Value h0) {
      SmallVector<Value> heads, alphas;
      for (int64_t h = 0; h < hp; ++h) {
        heads.push_back(e.add(h0, e.index(h)));
        alphas.push_back(
            e.broadcast(memref::LoadOp::create(e.b, alphaS, heads.back())));
      }
      Value columnStep = e.index(vp * p.lanes);
      e.forLoop(zero, e.index(p.paddedLatent()), columnStep, [&](Value d0) {
        SmallVector<Value> ds, acc;
        for (int64_t v = 0; v < vp; ++v)
          ds.push_back(e.add(d0, e.index(v * p.lanes)));
        for (int64_t h = 0; h < hp; ++h)
          for (int64_t v = 0; v < vp; ++v)
            acc.push_back(e.fmul(alphas[h], vector::LoadOp::create(
                                                e.b, e.vf32, accS,
                                                ValueRange{heads[h], ds[v]})));
        acc = e.forLoop(
            zero, e.index(p.blockK), one, acc,
            [&](Value u, ValueRange carried) {
              SmallVector<Value> rows;
              for (int64_t v = 0; v < vp; ++v)
                rows.push_back(vector::LoadOp::create(e.b, e.vf32, kS,
                                                      ValueRange{u, ds[v]}));
              SmallVector<Value> next(carried.begin(), carried.end());
              for (int64_t h = 0; h < hp; ++h) {
                Value prob = e.broadcast(memref::LoadOp::create(
                    e.b, scoreS, ValueRange{heads[h], u}));
                for (int64_t v = 0; v < vp; ++v)
                  next[h * vp + v] = e.fma(prob, rows[v], next[h * vp + v]);
              }
              return next;
            });
        for (int64_t h = 0; h < hp; ++h)
          for (int64_t v = 0; v < vp; ++v)
            vector::StoreOp::create(e.b, acc[h * vp + v], accS,
                                    ValueRange{heads[h], ds[v]});
      });
    });
  }

  /// output = acc / sum (0 for no token), lse = max + log(sum) (-inf).
  void writeOutput() {
    e.forLoop(zero, e.index(p.numHeads), one, [&](Value h) {
      Value sum = memref::LoadOp::create(e.b, sumS, h);
      Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                             sum, e.constF32(0.0f));
      Value nothing = e.constF32(0.0f);
      Value inv = e.select(positive, e.fdiv(e.constF32(1.0f), sum), nothing);
      for (int64_t v = 0; v < p.latentVectors(); ++v) {
        Value d = e.index(v * p.lanes);
        Value acc = vector::LoadOp::create(e.b, e.vf32, accS, ValueRange{h, d});
        e.writeVector(e.fmul(acc, e.broadcast(inv)), buf.output,
                      headIndices(p, row, h, d),
                      (v + 1) * p.lanes <= p.latentDim);
      }
      if (buf.lse) {
        Value max = memref::LoadOp::create(e.b, maxS, h);
        Value lse = e.fadd(max, math::LogOp::create(e.b, sum));
        memref::StoreOp::create(e.b, e.select(positive, lse, e.negInf()),
                                buf.lse, lseIndices(p, row, h));
      }
    });
  }

  /// This split's unnormalized output and (max, sum) for the combine.
  void writePartial() {
    e.forLoop(zero, e.index(p.numHeads), one, [&](Value h) {
      for (int64_t v = 0; v < p.latentVectors(); ++v) {
        Value d = e.index(v * p.lanes);
        Value acc = vector::LoadOp::create(e.b, e.vf32, accS, ValueRange{h, d});
        vector::StoreOp::create(e.b, acc, partialO,
                                ValueRange{row.z, row.y, h, split, d});
      }
      memref::StoreOp::create(e.b, memref::LoadOp::create(e.b, maxS, h),
                              partialStats,
                              ValueRange{row.z, row.y, h, split, zero});
      memref::StoreOp::create(e.b, memref::LoadOp::create(e.b, sumS, h),
                              partialStats,
                              ValueRange{row.z, row.y, h, split, one});
    });
  }

  Emitter e;
  const CpuMlaPlan &p;
  const MlaBuffers &buf;
  Value partialO, partialStats;
  Row row;
  Value split, zero, one, lastToken;
  Value qS, kS, scoreS, accS, maxS, sumS, alphaS;
};

/// The combine of splits: one workgroup per (head, row) merges the splits'
/// partial outputs by their maxima and sums.
void buildCombine(OpBuilder &builder, Location loc, const CpuMlaPlan &p,
                  Value partialO, Value partialStats, Value output, Value lse) {
  Emitter e(builder, loc, p.lanes);
  Value head = WorkgroupIdOp::create(e.b, 0);
  Row row{WorkgroupIdOp::create(e.b, 1), WorkgroupIdOp::create(e.b, 2), Value(),
          Value()};
  Value zero = e.index(0), one = e.index(1);
  Value splits = e.index(p.numSplits);
  auto stat = [&](Value s, int64_t i) -> Value {
    return memref::LoadOp::create(
        e.b, partialStats, ValueRange{row.z, row.y, head, s, e.index(i)});
  };
  // A row no split saw keeps max -inf and weighs against 0: weights 0,
  // never NaN.
  Value max =
      e.forLoop(zero, splits, one, {e.negInf()}, [&](Value s, ValueRange it) {
        return SmallVector<Value>{e.fmax(it[0], stat(s, 0))};
      })[0];
  Value isEmpty =
      arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, max, e.negInf());
  Value shift = e.select(isEmpty, e.constF32(0.0f), max);
  auto weight = [&](Value s) { return e.exp(e.fsub(stat(s, 0), shift)); };
  Value sum = e.forLoop(zero, splits, one, {e.constF32(0.0f)},
                        [&](Value s, ValueRange it) {
                          Value splitWeight = weight(s);
                          return SmallVector<Value>{
                              e.fadd(it[0], e.fmul(stat(s, 1), splitWeight))};
                        })[0];
  Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                         e.constF32(0.0f));
  Value nothing = e.constF32(0.0f);
  Value inv = e.select(positive, e.fdiv(e.constF32(1.0f), sum), nothing);
  for (int64_t v = 0; v < p.latentVectors(); ++v) {
    Value d = e.index(v * p.lanes);
    Value o = e.forLoop(
        zero, splits, one, {e.splatF32(0.0f)}, [&](Value s, ValueRange acc) {
          Value part = vector::LoadOp::create(
              e.b, e.vf32, partialO, ValueRange{row.z, row.y, head, s, d});
          return SmallVector<Value>{
              e.fma(e.broadcast(weight(s)), part, acc[0])};
        })[0];
    e.writeVector(e.fmul(o, e.broadcast(inv)), output,
                  headIndices(p, row, head, d),
                  (v + 1) * p.lanes <= p.latentDim);
  }
  if (lse) {
    Value value = e.fadd(shift, math::LogOp::create(e.b, sum));
    memref::StoreOp::create(e.b, e.select(positive, value, e.negInf()), lse,
                            lseIndices(p, row, head));
  }
}

} // namespace

LogicalResult mlir::ejk::tileCpuMla(Operation *op, const MlaProblem &problem,
                                    const MlaConfig &config,
                                    const MlaBuffers &buf,
                                    DispatchRewriter &rewriter) {
  CpuMlaPlan plan;
  static_cast<MlaProblem &>(plan) = problem;
  plan.blockK = config.blockK;
  plan.numSplits = config.numSplits;
  plan.lanes = rewriter.target().f32Lanes();
  Location loc = op->getLoc();
  auto [rowsY, rowsZ] = plan.rowGrid();

  Value partialO, partialStats;
  if (plan.numSplits > 1) {
    Type f32 = Float32Type::get(op->getContext());
    auto partialOType = MemRefType::get(
        {rowsZ, rowsY, plan.numHeads, plan.numSplits, plan.paddedLatent()},
        f32);
    auto statsType =
        MemRefType::get({rowsZ, rowsY, plan.numHeads, plan.numSplits, 2}, f32);
    SmallVector<Type> argTypes = {partialOType, statsType,
                                  buf.output.getType()};
    if (buf.lse)
      argTypes.push_back(buf.lse.getType());
    func::FuncOp combine = rewriter.addDispatch(
        "combine", argTypes, {plan.numHeads, rowsY, rowsZ},
        [&](OpBuilder &b, Location l, ValueRange args) {
          buildCombine(b, l, plan, args[0], args[1], args[2],
                       buf.lse ? args[3] : Value());
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
    std::optional<unsigned> lseIndex;
    if (buf.lse)
      lseIndex = DispatchRewriter::argumentIndex(buf.lse);
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
          DispatchOp::create(b, l, combine.getSymName(), combineBindings);
        });
  }

  OpBuilder b = rewriter.replaceBody();
  MlaBodyBuilder(b, loc, plan, buf, partialO, partialStats).build();
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setWork(
      dispatch, mlaFlops(plan),
      mlaCacheBytes(plan) +
          DispatchRewriter::bytesOf({buf.contextLens, buf.blockTables,
                                     buf.queryStartLoc, buf.output, buf.lse}));
  return success();
}

LogicalResult CpuMla::tile(Operation *op, ConfigAttr attr,
                           DispatchRewriter &rewriter) {
  MlaConfig config = *MlaConfig::read(attr, llvm::nulls());
  MlaBuffers buf = findMlaBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  return tileCpuMla(op, readMlaProblem(op), config, buf, rewriter);
}
