//===- Kernel.cpp - multi-head latent attention on Vulkan -----------------===//
//
// Flash-decoding over the latent cache (Mla.h has the layout). Workgroup =
// (split x head chunk, row). Each step stages `block_k` cache rows in
// workgroup memory as f32 (coalesced scalar loads by every thread, the
// padding zeroed once), so the cache is read once per workgroup for all
// its heads; then each head's `head_lanes` lanes dot their slices of the
// query with every staged row (an XOR-shuffle sum within the lane group),
// update an online softmax in registers and add the weighted rows to their
// slice of the accumulator. A head's state never leaves its lanes, so no
// merge runs at the end. With `num_splits` > 1 every split writes its
// normalized output and log-sum, merged by a combine dispatch per
// (head, row).
//
//===----------------------------------------------------------------------===//

#include "Latent/Rows.h"
#include "Latent/Vulkan/Mla.h"
#include "Paged/Vulkan/Emit.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::latent;
using paged::allocWorkgroup;
using paged::cmpI;
using paged::emitIf;
using paged::finiteOrZero;
using paged::forEachShared;
using paged::loadF32;
using paged::storeF32;
using paged::xorReduce;

namespace {

class MlaKernel {
public:
  MlaKernel(Emitter &e, const VulkanMlaPlan &p, const MlaBuffers &buf,
            Value partialO, Value partialLse)
      : e(e), p(p), l(p.layout), buf(buf), partialO(partialO),
        partialLse(partialLse) {}

  void build() {
    Value x = WorkgroupIdOp::create(e.b, 0);
    Value chunk = arith::RemUIOp::create(e.b, x, e.index(l.headChunks));
    split = arith::DivUIOp::create(e.b, x, e.index(l.headChunks));
    Value idZ = WorkgroupIdOp::create(e.b, 2);
    row = findRow(e, p, buf, WorkgroupIdOp::create(e.b, 1), idZ);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    lane = arith::RemUIOp::create(e.b, thread, e.index(l.headLanes));
    Value slot = arith::DivUIOp::create(e.b, thread, e.index(l.headLanes));
    head = e.add(e.mul(chunk, e.index(l.blockH)), slot);
    exists = cmpI(e, arith::CmpIPredicate::slt, head, e.index(p.numHeads));
    // Heads past the last compute on the last one and write nothing.
    readHead = e.min(head, e.index(p.numHeads - 1));
    loadQueries();

    Value splits = e.index(l.numSplits);
    Value per = arith::DivUIOp::create(
        e.b, e.add(row.end, e.index(l.numSplits - 1)), splits);
    begin = e.min(row.end, e.mul(split, per));
    end = e.min(row.end, e.add(begin, per));

    shared = allocWorkgroup(e, l.blockK * l.width());
    // The padding of every staged row stays 0 (the queries' is 0 too).
    forEachShared(e, l.threads, thread, l.blockK * l.width(), [&](Value i) {
      memref::StoreOp::create(e.b, e.constF32(0.0f), shared, ValueRange{i});
    });

    SmallVector<Value> inits = {e.negInf(), e.constF32(0.0f)};
    for (int64_t j = 0; j < l.latentPerLane(); ++j)
      inits.push_back(e.constF32(0.0f));
    SmallVector<Type> types(inits.size(), e.f32);
    // The trip count is the workgroup's (uniform around the barriers).
    SmallVector<Value> state = e.ifElse(
        cmpI(e, arith::CmpIPredicate::sgt, end, begin), types,
        [&] {
          return e.forLoop(
              begin, end, e.index(l.blockK), inits,
              [&](Value t0, ValueRange carried) { return step(t0, carried); });
        },
        [&] { return SmallVector<Value>(inits); });
    emitIf(e, exists, [&] { write(state); });
  }

private:
  Value latentDim(int64_t j) { return e.add(lane, e.index(j * l.headLanes)); }

  /// This lane's query elements, scaled; 0 past the row's dims.
  void loadQueries() {
    Value scale = e.constF32(p.softmaxScale);
    auto load = [&](Value buffer, int64_t dims, int64_t perLane) {
      for (int64_t j = 0; j < perLane; ++j) {
        Value d = latentDim(j);
        Value inside = cmpI(e, arith::CmpIPredicate::slt, d, e.index(dims));
        Value safe = e.min(d, e.index(dims - 1));
        Value q = loadF32(e, buffer, headIndices(p, row, readHead, safe));
        Value outside = e.constF32(0.0f);
        queries.push_back(e.select(inside, e.fmul(q, scale), outside));
      }
    };
    load(buf.qLatent, p.latentDim, l.latentPerLane());
    if (p.ropeDim > 0)
      load(buf.qRope, p.ropeDim, l.ropePerLane());
  }

  /// Stages the rows of tokens t0 .. t0 + block_k - 1 (past `end`: the
  /// last token, masked later).
  void stage(Value t0) {
    gpu::BarrierOp::create(e.b);
    auto region = [&](int64_t dims, int64_t offset, bool rope) {
      forEachShared(e, l.threads, thread, l.blockK * dims, [&](Value i) {
        Value u = arith::DivUIOp::create(e.b, i, e.index(dims));
        Value d = arith::RemUIOp::create(e.b, i, e.index(dims));
        Value lastToken = e.sub(end, e.index(1));
        Value t = e.min(e.add(t0, u), lastToken);
        CacheRow c = cacheRow(e, p, buf, row, t);
        Value v = rope ? loadF32(e, c.rope, ropeIndex(e, c, d))
                       : loadF32(e, c.latent, c.latentIndex(d));
        Value column = e.add(d, e.index(offset));
        Value at = e.add(e.mul(u, e.index(l.width())), column);
        memref::StoreOp::create(e.b, v, shared, ValueRange{at});
      });
    };
    region(p.latentDim, 0, false);
    if (p.ropeDim > 0)
      region(p.ropeDim, l.paddedLatent, true);
    gpu::BarrierOp::create(e.b);
  }

  Value staged(int64_t u, int64_t offset, int64_t j) {
    Value rowOffset = e.index(u * l.width() + offset);
    Value at = e.add(latentDim(j), rowOffset);
    return memref::LoadOp::create(e.b, shared, ValueRange{at});
  }

  SmallVector<Value> step(Value t0, ValueRange carried) {
    stage(t0);
    Value max = carried[0], sum = carried[1];
    SmallVector<Value> acc(carried.begin() + 2, carried.end());
    SmallVector<Value> scores;
    int64_t EL = l.latentPerLane(), ER = p.ropeDim > 0 ? l.ropePerLane() : 0;
    for (int64_t u = 0; u < l.blockK; ++u) {
      Value dot = e.constF32(0.0f);
      for (int64_t j = 0; j < EL; ++j)
        dot = paged::fma(e, queries[j], staged(u, 0, j), dot);
      for (int64_t j = 0; j < ER; ++j)
        dot = paged::fma(e, queries[EL + j], staged(u, l.paddedLatent, j), dot);
      Value score = xorReduce(e, dot, /*isMax=*/false, 1, l.headLanes,
                              static_cast<int64_t>(subgroup));
      Value valid =
          cmpI(e, arith::CmpIPredicate::slt, e.add(t0, e.index(u)), end);
      scores.push_back(e.select(valid, score, e.negInf()));
    }
    Value newMax = max;
    for (Value s : scores)
      newMax = e.fmaxNoNaN(newMax, s);
    Value shift = finiteOrZero(e, newMax);
    Value alpha = e.exp(e.fsub(max, shift));
    SmallVector<Value> probs;
    Value newSum = e.fmul(sum, alpha);
    for (Value s : scores) {
      probs.push_back(e.exp(e.fsub(s, shift)));
      newSum = e.fadd(newSum, probs.back());
    }
    for (int64_t j = 0; j < EL; ++j) {
      Value a = e.fmul(acc[j], alpha);
      for (int64_t u = 0; u < l.blockK; ++u)
        a = paged::fma(e, probs[u], staged(u, 0, j), a);
      acc[j] = a;
    }
    SmallVector<Value> next = {newMax, newSum};
    next.append(acc.begin(), acc.end());
    return next;
  }

  /// Output = acc / sum (0 without tokens), lse = max + log(sum) (-inf);
  /// to the results, or to this split's partials.
  void write(ValueRange state) {
    Value max = state[0], sum = state[1];
    Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                      e.constF32(0.0f));
    Value nothing = e.constF32(0.0f);
    Value safeSum = e.select(has, sum, e.constF32(1.0f));
    Value inverse = e.select(has, e.fdiv(e.constF32(1.0f), safeSum), nothing);
    for (int64_t j = 0; j < l.latentPerLane(); ++j) {
      Value d = latentDim(j);
      auto store = [&] {
        Value out = e.fmul(state[2 + j], inverse);
        if (partialO)
          memref::StoreOp::create(e.b, out, partialO,
                                  ValueRange{row.z, row.y, head, split, d});
        else
          storeF32(e, out, buf.output, headIndices(p, row, head, d));
      };
      if ((j + 1) * l.headLanes <= p.latentDim)
        store();
      else
        emitIf(e, cmpI(e, arith::CmpIPredicate::slt, d, e.index(p.latentDim)),
               store);
    }
    Value lseValue = partialO ? partialLse : buf.lse;
    if (!lseValue)
      return;
    emitIf(e, cmpI(e, arith::CmpIPredicate::eq, lane, e.index(0)), [&] {
      Value none = e.negInf();
      Value logSum =
          math::LogOp::create(e.b, e.select(has, sum, e.constF32(1.0f)));
      Value lse = e.select(has, e.fadd(finiteOrZero(e, max), logSum), none);
      if (partialO)
        memref::StoreOp::create(e.b, lse, partialLse,
                                ValueRange{row.z, row.y, head, split});
      else
        memref::StoreOp::create(e.b, lse, buf.lse, lseIndices(p, row, head));
    });
  }

public:
  unsigned subgroup = 32;

private:
  Emitter &e;
  const VulkanMlaPlan &p;
  const VulkanMlaLayout &l;
  const MlaBuffers &buf;
  Value partialO, partialLse;
  Row row;
  Value split, thread, lane, head, readHead, exists, begin, end, shared;
  /// The lane's scaled query elements: latent then RoPE.
  SmallVector<Value> queries;
};

/// Merges the splits of one (head, row): weights exp(lse_s - max).
void buildCombine(OpBuilder &b, Location loc, const VulkanMlaPlan &p,
                  Value partialO, Value partialLse, Value output, Value lse) {
  Emitter e(b, loc, 1);
  const VulkanMlaLayout &l = p.layout;
  Value head = WorkgroupIdOp::create(e.b, 0);
  Row row{WorkgroupIdOp::create(e.b, 1), WorkgroupIdOp::create(e.b, 2), Value(),
          Value()};
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  Value zero = e.index(0), one = e.index(1), splits = e.index(l.numSplits);
  auto splitLse = [&](Value s) -> Value {
    return memref::LoadOp::create(e.b, partialLse,
                                  ValueRange{row.z, row.y, head, s});
  };
  Value max =
      e.forLoop(zero, splits, one, {e.negInf()}, [&](Value s, ValueRange m) {
        return SmallVector<Value>{e.fmaxNoNaN(m[0], splitLse(s))};
      })[0];
  Value shift = finiteOrZero(e, max);
  Value sum = e.forLoop(
      zero, splits, one, {e.constF32(0.0f)}, [&](Value s, ValueRange acc) {
        return SmallVector<Value>{
            e.fadd(acc[0], e.exp(e.fsub(splitLse(s), shift)))};
      })[0];
  Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                    e.constF32(0.0f));
  Value nothing = e.constF32(0.0f);
  Value safeSum = e.select(has, sum, e.constF32(1.0f));
  Value inverse = e.select(has, e.fdiv(e.constF32(1.0f), safeSum), nothing);
  forEachShared(e, l.combineThreads, thread, p.latentDim, [&](Value d) {
    Value acc = e.forLoop(
        zero, splits, one, {e.constF32(0.0f)}, [&](Value s, ValueRange a) {
          Value w = e.exp(e.fsub(splitLse(s), shift));
          Value o = memref::LoadOp::create(
              e.b, partialO, ValueRange{row.z, row.y, head, s, d});
          return SmallVector<Value>{e.fadd(a[0], e.fmul(w, o))};
        })[0];
    storeF32(e, e.fmul(acc, inverse), output, headIndices(p, row, head, d));
  });
  if (!lse)
    return;
  emitIf(e, cmpI(e, arith::CmpIPredicate::eq, thread, zero), [&] {
    Value none = e.negInf();
    Value logSum =
        math::LogOp::create(e.b, e.select(has, sum, e.constF32(1.0f)));
    Value value = e.select(has, e.fadd(shift, logSum), none);
    memref::StoreOp::create(e.b, value, lse, lseIndices(p, row, head));
  });
}

} // namespace

LogicalResult VulkanMla::tile(Operation *op, ConfigAttr attr,
                              DispatchRewriter &rewriter) {
  MlaBuffers buf = findMlaBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<MlaConfig> config = MlaConfig::read(attr, llvm::nulls());
  VulkanMlaPlan plan;
  static_cast<MlaProblem &>(plan) = readMlaProblem(op);
  std::optional<VulkanMlaLayout> layout =
      config
          ? getVulkanMlaLayout(plan, *config, rewriter.target(), llvm::nulls())
          : std::nullopt;
  if (!layout)
    return op->emitOpError("has no Vulkan layout for its config");
  plan.layout = *layout;
  auto [rowsY, rowsZ] = plan.rowGrid();

  Value partialO, partialLse;
  if (layout->numSplits > 1) {
    Type f32 = Float32Type::get(op->getContext());
    int64_t splits = layout->numSplits;
    auto partialOType = MemRefType::get(
        {rowsZ, rowsY, plan.numHeads, splits, plan.latentDim}, f32);
    auto lseType = MemRefType::get({rowsZ, rowsY, plan.numHeads, splits}, f32);
    SmallVector<Type> argTypes = {partialOType, lseType, buf.output.getType()};
    if (buf.lse)
      argTypes.push_back(buf.lse.getType());
    func::FuncOp combine = rewriter.addDispatch(
        "combine", argTypes, {plan.numHeads, rowsY, rowsZ},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          buildCombine(b, loc, plan, args[0], args[1], args[2],
                       buf.lse ? args[3] : Value());
        });
    DispatchRewriter::setVulkanLaunch(combine, layout->combineThreads, 0);
    DispatchRewriter::setWork(
        combine, 0,
        (partialOType.getNumElements() + lseType.getNumElements()) * 4 +
            DispatchRewriter::bytesOf({buf.output, buf.lse}));
    FailureOr<SmallVector<Value>> parts =
        rewriter.appendArguments({partialOType, lseType});
    if (failed(parts))
      return failure();
    partialO = (*parts)[0];
    partialLse = (*parts)[1];
    unsigned outputIndex = DispatchRewriter::argumentIndex(buf.output);
    std::optional<unsigned> lseIndex;
    if (buf.lse)
      lseIndex = DispatchRewriter::argumentIndex(buf.lse);
    rewriter.rewriteCallers(
        {partialOType, lseType},
        [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange temps) {
          SmallVector<Value> bindings(call.getBuffers());
          bindings.append(temps.begin(), temps.end());
          DispatchOp::create(b, loc, call.getCallee(), bindings);
          SmallVector<Value> combineBindings = {temps[0], temps[1],
                                                call.getBuffers()[outputIndex]};
          if (lseIndex)
            combineBindings.push_back(call.getBuffers()[*lseIndex]);
          DispatchOp::create(b, loc, combine.getSymName(), combineBindings);
        });
  }

  Location loc = op->getLoc();
  unsigned subgroup = rewriter.target().subgroupSize;
  OpBuilder b = rewriter.replaceBody();
  if (layout->registerSoftmax) {
    buildVulkanMlaRegisterBody(b, loc, plan, buf, partialO, partialLse,
                               subgroup);
  } else if (layout->cooperative) {
    buildVulkanMlaCoopBody(b, loc, plan, buf, partialO, partialLse, subgroup);
  } else {
    Emitter e(b, loc, 1);
    MlaKernel kernel(e, plan, buf, partialO, partialLse);
    kernel.subgroup = subgroup;
    kernel.build();
  }
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  // bf16 inputs reach the cooperative matrices as staged bits.
  if (layout->cooperative && plan.elementType.isBF16())
    DispatchRewriter::setBF16Matrices(dispatch);
  // The register softmax relies on NVIDIA's matrix layout: the runtime
  // refuses a device without it before the kernel could run.
  if (layout->registerSoftmax)
    dispatch->setAttr("ejk.requires",
                      b.getStrArrayAttr({"cooperative_matrix_nv_layout"}));
  // The cache as read: once per row and head chunk.
  DispatchRewriter::setWork(
      dispatch, mlaFlops(plan),
      mlaCacheBytes(plan) * layout->headChunks +
          DispatchRewriter::bytesOf({buf.contextLens, buf.blockTables,
                                     buf.queryStartLoc, buf.output, buf.lse}));
  return success();
}
