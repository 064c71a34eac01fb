//===- CoopKernel.cpp - latent attention on cooperative matrices ----------===//
//
// f16 inputs, f32 accumulation, 16x16x16 cooperative matrices. Workgroup =
// (split x head chunk, row), kMlaCoopSubgroups subgroups. The chunk's
// `block_h` heads are the rows of the matrices (FlashAttention's query
// rows), the cache rows the keys and, in their latent part, the values; per
// step of `block_k` tokens:
//
//   S = Q [latent | rope] x K^T      each subgroup its share of the
//                                    (head tile, token tile) matrices, 36
//                                    products deep at DeepSeek's 512 + 64;
//                                    Q and K tiles read straight from the
//                                    buffers (16-byte rows), S to a stage
//   softmax                          block_h x threads_per_row threads: row
//                                    max and sum by shuffles, P (f16) and the
//                                    row factors (as a 16x16 matrix) to
//                                    stages
//   O = O * alpha + P x V            subgroup g owns latent columns
//                                    [g, g + 1) * latent / subgroups of every
//                                    head tile: V tiles read straight from
//                                    the cache
//
// Only the last step of a split can hold tokens past the row's end: its V
// tiles are staged with those rows zeroed (a page's unused slots may hold
// anything, and 0 x NaN is NaN); its K tiles are clamped to the last valid
// tile and the scores of such tokens masked. Splits start on step
// boundaries, so 16-token tiles never straddle a page.
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
using paged::cmpI;
using paged::emitIf;
using paged::finiteOrZero;
using paged::storeF32;
using paged::xorReduce;

namespace {

constexpr int64_t kTile = 16;
/// f16 elements per 16-byte vector<4xi32>.
constexpr int64_t kPerVector = 8;

class MlaCoopKernel {
public:
  MlaCoopKernel(OpBuilder &builder, Location loc, const VulkanMlaPlan &plan,
                const MlaBuffers &buffers, Value partialO, Value partialLse,
                int64_t subgroupSize)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers),
        partialO(partialO), partialLse(partialLse), sg(subgroupSize) {
    MLIRContext *context = builder.getContext();
    f16 = Float16Type::get(context);
    vecType = VectorType::get({4}, e.b.getI32Type());
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    colTiles = p.latentDim / kTile / l.numSubgroups;
    width = p.latentDim + p.ropeDim;
  }

  void build() {
    Value x = WorkgroupIdOp::create(e.b, 0);
    Value chunk = arith::RemUIOp::create(e.b, x, e.index(l.headChunks));
    split = arith::DivUIOp::create(e.b, x, e.index(l.headChunks));
    Value rowY = WorkgroupIdOp::create(e.b, 1);
    Value rowZ = WorkgroupIdOp::create(e.b, 2);
    row = findRow(e, p, buf, rowY, rowZ);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    subgroup = arith::DivUIOp::create(e.b, thread, e.index(sg));
    lane = arith::RemUIOp::create(e.b, thread, e.index(sg));
    head0 = e.mul(chunk, e.index(l.blockH));
    softRow = arith::DivUIOp::create(e.b, thread, e.index(l.threadsPerRow));
    softPart = arith::RemUIOp::create(e.b, thread, e.index(l.threadsPerRow));

    // Splits start on step boundaries: tiles stay within pages.
    Value splits = e.index(l.numSplits), step = e.index(l.blockK);
    Value share = e.div(e.add(row.end, e.sub(splits, e.index(1))), splits);
    Value per = e.mul(e.div(e.add(share, e.sub(step, e.index(1))), step), step);
    begin = e.min(row.end, e.mul(split, per));
    stop = e.min(row.end, e.add(begin, per));
    Value full = e.add(begin, e.mul(e.div(e.sub(stop, begin), step), step));
    // The last tile holding a token (for the last step's clamped K reads).
    Value lastToken = e.max(e.index(0), e.sub(stop, e.index(1)));
    lastTile = e.mul(e.div(lastToken, e.index(kTile)), e.index(kTile));

    qlView = vectorView(buf.qLatent);
    qrView = vectorView(buf.qRope);
    if (p.paged) {
      latentView = ropeView = vectorView(buf.kvCache);
    } else {
      latentView = vectorView(buf.kvLatent);
      ropeView = vectorView(buf.kRope);
    }
    int64_t scoreElements =
        std::max(l.blockH * l.blockK, l.numSubgroups * kTile * kTile);
    sStage = allocWorkgroup(scoreElements, e.f32);
    pStage = allocWorkgroup(l.blockH * l.blockK, f16);
    alphaStage = allocWorkgroup(l.rowTiles * kTile * kTile, e.f32);
    vStage = allocWorkgroup(kTile * p.latentDim / kPerVector, vecType);

    SmallVector<Value> inits;
    Value zero =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    for (int64_t i = 0; i < l.rowTiles * colTiles; ++i)
      inits.push_back(zero);
    inits.push_back(e.negInf());       // m of this thread's softmax row
    inits.push_back(e.constF32(0.0f)); // l of it
    SmallVector<Value> state =
        e.forLoop(begin, full, step, inits, [&](Value t0, ValueRange s) {
          return keyStep(t0, s, false);
        });
    SmallVector<Type> types;
    for (Value v : state)
      types.push_back(v.getType());
    state = e.ifElse(
        cmpI(e, arith::CmpIPredicate::slt, full, stop), types,
        [&] { return keyStep(full, state, true); },
        [&] { return SmallVector<Value>(state); });
    finish(state);
  }

private:
  Value allocWorkgroup(int64_t elements, Type type) {
    auto space = gpu::AddressSpaceAttr::get(e.b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    return memref::AllocOp::create(
        e.b,
        MemRefType::get({elements}, type, MemRefLayoutAttrInterface(), space));
  }

  /// A flat view of an f16 buffer as 16-byte vectors (the same binding,
  /// declared a second time by ejk-prepare-vulkan-kernels).
  Value vectorView(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    auto viewType =
        MemRefType::get({type.getNumElements() / kPerVector}, vecType);
    return UnrealizedConversionCastOp::create(e.b, TypeRange{viewType},
                                              ValueRange{buffer})
        .getResult(0);
  }

  /// A matrix at f16 element `offset` of `memref` (a vector view or an f16
  /// stage), rows `lead` f16 apart.
  Value load(Type type, Value memref, Value offset, int64_t lead,
             bool transpose) {
    if (isa<VectorType>(cast<MemRefType>(memref.getType()).getElementType())) {
      offset = arith::DivUIOp::create(e.b, offset, e.index(kPerVector));
      lead /= kPerVector;
    }
    return gpu::SubgroupMmaLoadMatrixOp::create(
        e.b, type, memref, ValueRange{offset}, e.b.getIndexAttr(lead),
        transpose ? e.b.getUnitAttr() : UnitAttr());
  }

  /// f16 element offsets of head `h`'s latent and RoPE queries.
  Value queryOffset(Value h, int64_t dims) {
    Value rowIndex =
        p.paged ? row.y : e.add(e.mul(row.z, e.index(p.seqQ)), row.y);
    return e.mul(e.add(e.mul(rowIndex, e.index(p.numHeads)), h), e.index(dims));
  }

  /// f16 element offsets of cache token `t`'s latent and RoPE key (tile
  /// starts: `t` a multiple of 16).
  std::pair<Value, Value> cacheOffsets(Value t) {
    if (!p.paged) {
      Value token = e.add(e.mul(row.z, e.index(p.seqK)), t);
      return {e.mul(token, e.index(p.latentDim)),
              e.mul(token, e.index(p.ropeDim))};
    }
    Value slot = arith::RemUIOp::create(e.b, t, e.index(p.pageSize));
    Value column =
        e.min(e.div(t, e.index(p.pageSize)), e.index(p.maxPagesPerSeq - 1));
    Value page = loadIndex(e, buf.blockTables, {row.seq, column});
    page = clampIndex(e, page, 0, p.numPages - 1);
    Value at =
        e.mul(e.add(e.mul(page, e.index(p.pageSize)), slot), e.index(width));
    return {at, e.add(at, e.index(p.latentDim))};
  }
  int64_t latentLead() const { return p.paged ? width : p.latentDim; }
  int64_t ropeLead() const { return p.paged ? width : p.ropeDim; }

  SmallVector<Value> keyStep(Value t0, ValueRange state, bool last) {
    // Where the step's token tiles lie (the last step's past-the-end tiles
    // read the last valid one; their scores are masked).
    SmallVector<std::pair<Value, Value>> tiles;
    for (int64_t kt = 0; kt < l.keyTiles; ++kt) {
      Value t = e.add(t0, e.index(kt * kTile));
      tiles.push_back(cacheOffsets(last ? e.min(t, lastTile) : t));
    }

    // S: subgroup g computes matrices g * perSubgroup + i of the
    // (head tile, token tile) grid.
    int64_t matrices = l.rowTiles * l.keyTiles;
    int64_t perSubgroup = matrices / l.numSubgroups;
    for (int64_t i = 0; i < perSubgroup; ++i) {
      Value f = e.add(e.mul(subgroup, e.index(perSubgroup)), e.index(i));
      Value rt = arith::DivUIOp::create(e.b, f, e.index(l.keyTiles));
      Value kt = arith::RemUIOp::create(e.b, f, e.index(l.keyTiles));
      Value h = e.add(head0, e.mul(rt, e.index(kTile)));
      // The tile's cache offsets, chosen among the step's by kt.
      Value latentAt = tiles[0].first, ropeAt = tiles[0].second;
      for (int64_t k = 1; k < l.keyTiles; ++k) {
        Value is = cmpI(e, arith::CmpIPredicate::eq, kt, e.index(k));
        latentAt = e.select(is, tiles[k].first, latentAt);
        ropeAt = e.select(is, tiles[k].second, ropeAt);
      }
      Value qLatent = queryOffset(h, p.latentDim);
      Value qRope = queryOffset(h, p.ropeDim);
      Value acc = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                           e.constF32(0.0f));
      for (int64_t d = 0; d < p.latentDim; d += kTile) {
        Value q =
            load(aType, qlView, e.add(qLatent, e.index(d)), p.latentDim, false);
        Value k = load(bType, latentView, e.add(latentAt, e.index(d)),
                       latentLead(), /*transpose=*/true);
        acc = gpu::SubgroupMmaComputeOp::create(e.b, q, k, acc, UnitAttr(),
                                                UnitAttr());
      }
      for (int64_t d = 0; d < p.ropeDim; d += kTile) {
        Value q =
            load(aType, qrView, e.add(qRope, e.index(d)), p.ropeDim, false);
        Value k = load(bType, ropeView, e.add(ropeAt, e.index(d)), ropeLead(),
                       /*transpose=*/true);
        acc = gpu::SubgroupMmaComputeOp::create(e.b, q, k, acc, UnitAttr(),
                                                UnitAttr());
      }
      Value at = e.add(e.mul(rt, e.index(kTile * l.blockK)),
                       e.mul(kt, e.index(kTile)));
      gpu::SubgroupMmaStoreMatrixOp::create(e.b, acc, sStage, ValueRange{at},
                                            e.b.getIndexAttr(l.blockK),
                                            UnitAttr());
    }
    gpu::BarrierOp::create(e.b);

    // Softmax: thread (row r, part) takes elements_per_thread consecutive
    // tokens of head row r.
    int64_t perThread = l.blockK / l.threadsPerRow;
    Value col0 = e.mul(softPart, e.index(perThread));
    Value rowBase = e.mul(softRow, e.index(l.blockK));
    Value scale = e.constF32(p.softmaxScale);
    SmallVector<Value> scores;
    Value blockMax = e.negInf();
    for (int64_t i = 0; i < perThread; ++i) {
      Value c = e.add(col0, e.index(i));
      Value s =
          memref::LoadOp::create(e.b, sStage, ValueRange{e.add(rowBase, c)});
      s = e.fmul(s, scale);
      if (last) {
        Value valid = cmpI(e, arith::CmpIPredicate::slt, e.add(t0, c), stop);
        s = e.select(valid, s, e.negInf());
      }
      scores.push_back(s);
      blockMax = e.fmaxNoNaN(blockMax, s);
    }
    blockMax = xorReduce(e, blockMax, /*isMax=*/true, 1, l.threadsPerRow, sg);
    Value oldMax = state[state.size() - 2], oldSum = state.back();
    Value newMax = e.fmaxNoNaN(oldMax, blockMax);
    Value shift = finiteOrZero(e, newMax);
    Value alpha = e.exp(e.fsub(oldMax, shift));
    Value sum = e.constF32(0.0f);
    for (int64_t i = 0; i < perThread; ++i) {
      Value prob = e.exp(e.fsub(scores[i], shift));
      sum = e.fadd(sum, prob);
      Value at = e.add(rowBase, e.add(col0, e.index(i)));
      memref::StoreOp::create(e.b, e.fromF32(prob, f16), pStage,
                              ValueRange{at});
    }
    sum = xorReduce(e, sum, /*isMax=*/false, 1, l.threadsPerRow, sg);
    Value newSum = e.fadd(e.fmul(oldSum, alpha), sum);
    writeRowFactor(alpha);
    gpu::BarrierOp::create(e.b);

    // O = O * alpha + P V over this subgroup's columns.
    SmallVector<Value> out;
    for (int64_t rt = 0; rt < l.rowTiles; ++rt) {
      Value factor =
          load(cType, alphaStage, e.index(rt * kTile * kTile), kTile, false);
      for (int64_t n = 0; n < colTiles; ++n)
        out.push_back(gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{state[rt * colTiles + n], factor},
            gpu::MMAElementwiseOp::MULF));
    }
    Value colBase = e.mul(subgroup, e.index(colTiles * kTile));
    for (int64_t kt = 0; kt < l.keyTiles; ++kt) {
      SmallVector<Value> probs;
      for (int64_t rt = 0; rt < l.rowTiles; ++rt)
        probs.push_back(load(aType, pStage,
                             e.index(rt * kTile * l.blockK + kt * kTile),
                             l.blockK, false));
      Value vMemref = latentView, vBase = e.add(tiles[kt].first, colBase);
      int64_t vLead = latentLead();
      if (last) {
        stageValues(e.add(t0, e.index(kt * kTile)), tiles[kt].first, colBase);
        vMemref = vStage;
        vBase = e.mul(subgroup, e.index(kTile * colTiles * kTile));
        vLead = colTiles * kTile;
      }
      for (int64_t n = 0; n < colTiles; ++n) {
        Value v = load(bType, vMemref, e.add(vBase, e.index(n * kTile)), vLead,
                       false);
        for (int64_t rt = 0; rt < l.rowTiles; ++rt) {
          Value &o = out[rt * colTiles + n];
          o = gpu::SubgroupMmaComputeOp::create(e.b, probs[rt], v, o,
                                                UnitAttr(), UnitAttr());
        }
      }
      if (last)
        gpu::BarrierOp::create(e.b);
    }
    out.push_back(newMax);
    out.push_back(newSum);
    return out;
  }

  /// Writes `value` as this thread's columns of its head row in the row
  /// factor matrices (element (r, c) of head tile rt = the factor of r).
  void writeRowFactor(Value value) {
    int64_t columns = kTile / l.threadsPerRow;
    Value rt = arith::DivUIOp::create(e.b, softRow, e.index(kTile));
    Value r = arith::RemUIOp::create(e.b, softRow, e.index(kTile));
    Value base = e.add(
        e.mul(rt, e.index(kTile * kTile)),
        e.add(e.mul(r, e.index(kTile)), e.mul(softPart, e.index(columns))));
    for (int64_t c = 0; c < columns; ++c)
      memref::StoreOp::create(e.b, value, alphaStage,
                              ValueRange{e.add(base, e.index(c))});
  }

  /// Stages this subgroup's columns of the 16 value rows from token `t`
  /// (at f16 element `at` of the cache; rows at or past the end are 0)
  /// into its part of the V stage.
  void stageValues(Value t, Value at, Value colBase) {
    gpu::BarrierOp::create(e.b);
    int64_t rowVectors = colTiles * kTile / kPerVector;
    int64_t total = kTile * rowVectors;
    Value zeroVector = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    Value stageBase = e.mul(subgroup, e.index(total));
    for (int64_t base = 0; base < total; base += sg) {
      Value idx = e.add(lane, e.index(base));
      auto body = [&] {
        Value r = arith::DivUIOp::create(e.b, idx, e.index(rowVectors));
        Value c = arith::RemUIOp::create(e.b, idx, e.index(rowVectors));
        Value valid = cmpI(e, arith::CmpIPredicate::slt, e.add(t, r), stop);
        Value src =
            e.add(at, e.add(e.mul(r, e.index(latentLead())),
                            e.add(colBase, e.mul(c, e.index(kPerVector)))));
        Value v = memref::LoadOp::create(
            e.b, latentView,
            ValueRange{arith::DivUIOp::create(e.b, src, e.index(kPerVector))});
        memref::StoreOp::create(e.b, e.select(valid, v, zeroVector), vStage,
                                ValueRange{e.add(stageBase, idx)});
      };
      if (base + sg <= total)
        body();
      else
        emitIf(e, cmpI(e, arith::CmpIPredicate::slt, idx, e.index(total)),
               body);
    }
    gpu::BarrierOp::create(e.b);
  }

  /// O / l to the output (or this split's partials), lse = m + log(l).
  void finish(ArrayRef<Value> state) {
    Value max = state[state.size() - 2], sum = state.back();
    Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                      e.constF32(0.0f));
    Value inverse = e.select(
        has, e.fdiv(e.constF32(1.0f), e.select(has, sum, e.constF32(1.0f))),
        e.constF32(0.0f));
    gpu::BarrierOp::create(e.b);
    writeRowFactor(inverse);
    Value head = e.add(head0, softRow);
    Value lseTarget = partialO ? partialLse : buf.lse;
    if (lseTarget)
      emitIf(e, cmpI(e, arith::CmpIPredicate::eq, softPart, e.index(0)), [&] {
        Value lse =
            e.select(has,
                     e.fadd(finiteOrZero(e, max),
                            math::LogOp::create(
                                e.b, e.select(has, sum, e.constF32(1.0f)))),
                     e.negInf());
        if (partialO)
          memref::StoreOp::create(e.b, lse, partialLse,
                                  ValueRange{row.z, row.y, head, split});
        else
          memref::StoreOp::create(e.b, lse, buf.lse, lseIndices(p, row, head));
      });
    gpu::BarrierOp::create(e.b);

    // Each subgroup writes its matrices through its 16x16 part of the
    // score stage, one at a time.
    Value stageBase = e.mul(subgroup, e.index(kTile * kTile));
    int64_t perLane = kTile * kTile / sg;
    for (int64_t rt = 0; rt < l.rowTiles; ++rt) {
      Value factor =
          load(cType, alphaStage, e.index(rt * kTile * kTile), kTile, false);
      for (int64_t n = 0; n < colTiles; ++n) {
        Value o = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{state[rt * colTiles + n], factor},
            gpu::MMAElementwiseOp::MULF);
        gpu::SubgroupMmaStoreMatrixOp::create(
            e.b, o, sStage, ValueRange{stageBase}, e.b.getIndexAttr(kTile),
            UnitAttr());
        gpu::BarrierOp::create(e.b);
        for (int64_t i = 0; i < perLane; ++i) {
          Value idx = e.add(lane, e.index(i * sg));
          Value r = arith::DivUIOp::create(e.b, idx, e.index(kTile));
          Value c = arith::RemUIOp::create(e.b, idx, e.index(kTile));
          Value value = memref::LoadOp::create(
              e.b, sStage, ValueRange{e.add(stageBase, idx)});
          Value h = e.add(head0, e.add(e.index(rt * kTile), r));
          Value d = e.add(e.mul(subgroup, e.index(colTiles * kTile)),
                          e.add(e.index(n * kTile), c));
          if (partialO)
            memref::StoreOp::create(e.b, value, partialO,
                                    ValueRange{row.z, row.y, h, split, d});
          else
            storeF32(e, value, buf.output, headIndices(p, row, h, d));
        }
        gpu::BarrierOp::create(e.b);
      }
    }
  }

  Emitter e;
  const VulkanMlaPlan &p;
  const VulkanMlaLayout &l;
  const MlaBuffers &buf;
  Value partialO, partialLse;
  int64_t sg, colTiles, width;
  Type f16;
  VectorType vecType;
  gpu::MMAMatrixType aType, bType, cType;
  Row row;
  Value split, thread, subgroup, lane, head0, softRow, softPart;
  Value begin, stop, lastTile;
  Value qlView, qrView, latentView, ropeView;
  Value sStage, pStage, alphaStage, vStage;
};

} // namespace

void mlir::ejk::buildVulkanMlaCoopBody(OpBuilder &b, Location loc,
                                       const VulkanMlaPlan &plan,
                                       const MlaBuffers &buf, Value partialO,
                                       Value partialLse, int64_t subgroupSize) {
  MlaCoopKernel(b, loc, plan, buf, partialO, partialLse, subgroupSize).build();
}
