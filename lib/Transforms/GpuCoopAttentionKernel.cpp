//===- GpuCoopAttentionKernel.cpp - flash attention on cooperative matrices ==//
//
// f16 inputs, f32 accumulation, 16x16x16 cooperative matrices
// (VK_KHR_cooperative_matrix through gpu.subgroup_mma_*). One workgroup =
// (query block, head, batch); subgroup g owns the 16 query rows
// [g * 16, g * 16 + 16) of the block:
//
//   Q tiles (D / 16 of them) stay in matrix registers for the whole kernel.
//   per key block of block_k keys (the workgroup stages K and V as f16):
//     S_j = sum_d Q_d K_{j,d}^T           (block_k / 16 tiles, f32)
//     S -> shared memory; each row is handled by SG / 16 lanes: logits
//       (GpuAttentionScores.h), online softmax with shuffles, P (f16) and
//       the row factors alpha (a 16x16 f32 matrix, row r = alpha_r) back to
//       shared memory
//     O_n = O_n * alpha + sum_j P_j V_{j,n}   (D_v / 16 accumulator tiles)
//   out = O / l through shared memory, lse = m + log(l).
//
//===----------------------------------------------------------------------===//

#include "GpuAttentionKernel.h"
#include "GpuAttentionScores.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

constexpr int64_t kTile = GpuAttentionLayout::kTile;

class CoopAttentionBuilder {
public:
  CoopAttentionBuilder(OpBuilder &builder, Location loc,
                       const GpuAttentionPlan &plan,
                       const AttentionBuffers &buffers)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers) {
    MLIRContext *context = builder.getContext();
    f16 = Float16Type::get(context);
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    lanesPerRow = l.subgroupSize / kTile;
  }

  void build() {
    qBlock = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    batch = WorkgroupIdOp::create(e.b, 2);
    threadId = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    subgroup = arith::DivUIOp::create(e.b, threadId, e.index(l.subgroupSize));
    lane = arith::RemUIOp::create(e.b, threadId, e.index(l.subgroupSize));
    myRow = arith::DivUIOp::create(e.b, lane, e.index(lanesPerRow));
    myPart = arith::RemUIOp::create(e.b, lane, e.index(lanesPerRow));
    rowStart = e.mul(qBlock, e.index(l.blockQ));
    numRows = e.min(e.index(l.blockQ), e.sub(e.index(p.seqQ), rowStart));
    kvHead = e.div(head, e.index(p.numHeads / p.numKvHeads));
    // This lane's softmax row, as a query index.
    row = e.add(rowStart, e.add(e.mul(subgroup, e.index(kTile)), myRow));

    // Q is staged once, into the memory that then holds K and V.
    kvStage = allocWorkgroup(e, l.kvStageElements(p.headDim, p.headDimV), f16);
    sStage = allocWorkgroup(e, l.numSubgroups * kTile * l.sStride());
    pStage = allocWorkgroup(e, l.numSubgroups * kTile * l.pStride(), f16);
    alphaStage = allocWorkgroup(e, l.numSubgroups * kTile * l.alphaStride());
    sBase = e.mul(subgroup, e.index(kTile * l.sStride()));
    pBase = e.mul(subgroup, e.index(kTile * l.pStride()));
    alphaBase = e.mul(subgroup, e.index(kTile * l.alphaStride()));
    qS = l.rowStride(p.headDim);
    kS = l.rowStride(p.headDim);
    vS = l.rowStride(p.headDimV);
    vOffset = l.blockK * kS;

    // Q tiles, kept in registers.
    stageRows(e, l.threads, threadId, batch, buf.query, head, rowStart, p.seqQ,
              e.index(0), p.headDim, l.blockQ, p.headDim, kvStage, qS);
    gpu::BarrierOp::create(e.b);
    Value qBase = e.mul(subgroup, e.index(kTile * qS));
    for (int64_t d = 0; d < p.headDim; d += kTile)
      qTiles.push_back(load(aType, kvStage, e.add(qBase, e.index(d)), qS,
                            /*transpose=*/false));
    // K and V overwrite the staged Q.
    gpu::BarrierOp::create(e.b);

    GpuScoreRules rules(e, p, buf, batch, head);
    Value lo, hi;
    rules.keyBlockRange(rowStart, numRows, l.blockK, lo, hi);
    int64_t outTiles = p.headDimV / kTile;
    SmallVector<Value> inits;
    Value zeroTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    for (int64_t n = 0; n < outTiles; ++n)
      inits.push_back(zeroTile);
    inits.push_back(e.negInf());       // m of this lane's row
    inits.push_back(e.constF32(0.0f)); // l of this lane's row
    // This thread's share of the first key block, loaded ahead (the loop
    // then prefetches each next block while the current one computes).
    inits.append(loadKeyBlock(lo));
    SmallVector<Value> state =
        e.forLoop(lo, hi, e.index(1), inits, [&](Value kb, ValueRange s) {
          return keyBlock(rules, kb, s);
        });
    finalize(state);
  }

private:
  Value load(Type type, Value memref, Value offset, int64_t lead,
             bool transpose) {
    return gpu::SubgroupMmaLoadMatrixOp::create(
        e.b, type, memref, ValueRange{offset}, e.b.getIndexAttr(lead),
        transpose ? e.b.getUnitAttr() : UnitAttr());
  }
  void store(Value tile, Value memref, Value offset, int64_t lead) {
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, tile, memref, ValueRange{offset},
                                          e.b.getIndexAttr(lead), UnitAttr());
  }

  /// Combines `value` over the lanes that share a row.
  Value reduceRow(Value value, bool isMax) {
    for (int64_t offset = lanesPerRow / 2; offset >= 1; offset /= 2) {
      auto shuffle = gpu::ShuffleOp::create(e.b, value, e.constI32(offset),
                                            e.constI32(l.subgroupSize),
                                            gpu::ShuffleMode::XOR);
      Value other = shuffle.getShuffleResult();
      value = isMax ? e.fmax(value, other) : e.fadd(value, other);
    }
    return value;
  }

  /// This thread's share of key block `kb`'s K rows then V rows (f16);
  /// past seq_k (also for the block after the last) they are zeros.
  SmallVector<Value> loadKeyBlock(Value kb) {
    Value keyStart = e.mul(kb, e.index(l.blockK));
    SmallVector<Value> values =
        loadRows(e, l.threads, threadId, batch, buf.key, kvHead, keyStart,
                 p.seqK, e.index(0), p.headDim, l.blockK, p.headDim, f16);
    numKeyValues = values.size();
    values.append(loadRows(e, l.threads, threadId, batch, buf.value, kvHead,
                           keyStart, p.seqK, e.index(0), p.headDimV, l.blockK,
                           p.headDimV, f16));
    return values;
  }

  SmallVector<Value> keyBlock(GpuScoreRules &rules, Value kb,
                              ValueRange state) {
    int64_t outTiles = p.headDimV / kTile;
    int64_t keyTiles = l.blockK / kTile;
    Value keyStart = e.mul(kb, e.index(l.blockK));

    // Stage the prefetched K and V (the previous block's readers are past
    // the last barrier of the previous iteration), then start loading the
    // next block: its latency hides behind this block's work.
    SmallVector<Value> loadedValues(state.drop_front(outTiles + 2));
    ArrayRef<Value> loaded = loadedValues;
    storeRows(e, l.threads, threadId, loaded.take_front(numKeyValues), l.blockK,
              p.headDim, kvStage, kS);
    storeRows(e, l.threads, threadId, loaded.drop_front(numKeyValues), l.blockK,
              p.headDimV, kvStage, vS, vOffset);
    gpu::BarrierOp::create(e.b);
    SmallVector<Value> prefetched = loadKeyBlock(e.add(kb, e.index(1)));

    // S = Q K^T, to this subgroup's score stage.
    for (int64_t j = 0; j < keyTiles; ++j) {
      Value acc = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                           e.constF32(0.0f));
      for (int64_t d = 0; d < p.headDim / kTile; ++d) {
        // K^T tile: column-major view of K rows j*16.., columns d*16...
        Value kt = load(bType, kvStage, e.index(j * kTile * kS + d * kTile), kS,
                        /*transpose=*/true);
        acc = gpu::SubgroupMmaComputeOp::create(e.b, qTiles[d], kt, acc,
                                                UnitAttr(), UnitAttr());
      }
      store(acc, sStage, e.add(sBase, e.index(j * kTile)), l.sStride());
    }
    gpu::BarrierOp::create(e.b);

    // Online softmax of this lane's row share.
    int64_t keysPerLane = l.blockK / lanesPerRow;
    SmallVector<Value> logits;
    Value blockMax = e.negInf();
    for (int64_t j = 0; j < keysPerLane; ++j) {
      Value col = e.add(myPart, e.index(j * lanesPerRow));
      Value s = memref::LoadOp::create(
          e.b, sStage,
          ValueRange{
              e.add(sBase, e.add(e.mul(myRow, e.index(l.sStride())), col))});
      logits.push_back(rules.logit(s, row, e.add(keyStart, col)));
      blockMax = e.fmax(blockMax, logits.back());
    }
    blockMax = reduceRow(blockMax, /*isMax=*/true);
    Value oldMax = state[outTiles], oldSum = state[outTiles + 1];
    Value mNew = e.fmax(oldMax, blockMax);
    Value isEmpty =
        arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, mNew, e.negInf());
    Value shift = e.select(isEmpty, e.constF32(0.0f), mNew);
    Value alpha = e.exp(e.fsub(oldMax, shift));
    Value rowHash = rules.dropoutRowHash(row);
    Value sum = e.constF32(0.0f);
    for (int64_t j = 0; j < keysPerLane; ++j) {
      Value col = e.add(myPart, e.index(j * lanesPerRow));
      Value prob = e.exp(e.fsub(logits[j], shift));
      sum = e.fadd(sum, prob);
      prob = rules.dropout(prob, rowHash, e.add(keyStart, col));
      memref::StoreOp::create(
          e.b, e.fromF32(prob, f16), pStage,
          ValueRange{
              e.add(pBase, e.add(e.mul(myRow, e.index(l.pStride())), col))});
    }
    sum = reduceRow(sum, /*isMax=*/false);
    Value lNew = e.fadd(e.fmul(oldSum, alpha), sum);
    for (int64_t c = 0; c < kTile / lanesPerRow; ++c) {
      Value col = e.add(myPart, e.index(c * lanesPerRow));
      memref::StoreOp::create(
          e.b, alpha, alphaStage,
          ValueRange{e.add(
              alphaBase, e.add(e.mul(myRow, e.index(l.alphaStride())), col))});
    }
    gpu::BarrierOp::create(e.b);

    // O = O * alpha + P V.
    Value alphaTile = load(cType, alphaStage, alphaBase, l.alphaStride(),
                           /*transpose=*/false);
    SmallVector<Value> pTiles;
    for (int64_t j = 0; j < keyTiles; ++j)
      pTiles.push_back(load(aType, pStage, e.add(pBase, e.index(j * kTile)),
                            l.pStride(), /*transpose=*/false));
    SmallVector<Value> next;
    for (int64_t n = 0; n < outTiles; ++n) {
      Value acc = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{state[n], alphaTile},
          gpu::MMAElementwiseOp::MULF);
      for (int64_t j = 0; j < keyTiles; ++j) {
        Value v = load(bType, kvStage,
                       e.index(vOffset + j * kTile * vS + n * kTile), vS,
                       /*transpose=*/false);
        acc = gpu::SubgroupMmaComputeOp::create(e.b, pTiles[j], v, acc,
                                                UnitAttr(), UnitAttr());
      }
      next.push_back(acc);
    }
    // The stages are rewritten by the next block.
    gpu::BarrierOp::create(e.b);
    next.push_back(mNew);
    next.push_back(lNew);
    next.append(prefetched);
    return next;
  }

  /// out = O / l tile by tile through this subgroup's score stage; lse.
  void finalize(ArrayRef<Value> state) {
    int64_t outTiles = p.headDimV / kTile;
    Value sum = state[outTiles + 1];
    Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                           e.constF32(0.0f));
    Value inv =
        e.select(positive, e.fdiv(e.constF32(1.0f), sum), e.constF32(0.0f));
    Value rowValid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, row,
                                           e.index(p.seqQ));
    Type outType = cast<MemRefType>(buf.output.getType()).getElementType();
    for (int64_t n = 0; n < outTiles; ++n) {
      store(state[n], sStage, sBase, l.sStride());
      gpu::BarrierOp::create(e.b);
      {
        auto ifRow = scf::IfOp::create(e.b, rowValid, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(ifRow.thenBlock());
        for (int64_t c = 0; c < kTile / lanesPerRow; ++c) {
          Value col = e.add(myPart, e.index(c * lanesPerRow));
          Value o = memref::LoadOp::create(
              e.b, sStage,
              ValueRange{e.add(
                  sBase, e.add(e.mul(myRow, e.index(l.sStride())), col))});
          memref::StoreOp::create(
              e.b, e.fromF32(e.fmul(o, inv), outType), buf.output,
              ValueRange{batch, row, head, e.add(col, e.index(n * kTile))});
        }
      }
      gpu::BarrierOp::create(e.b);
    }
    if (!buf.lse)
      return;
    Value first = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, myPart,
                                        e.index(0));
    auto ifFirst = scf::IfOp::create(
        e.b, arith::AndIOp::create(e.b, first, rowValid), /*withElse=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifFirst.thenBlock());
    Value lse = e.fadd(state[outTiles], math::LogOp::create(e.b, sum));
    memref::StoreOp::create(e.b, e.select(positive, lse, e.negInf()), buf.lse,
                            ValueRange{batch, head, row});
  }

  Emitter e;
  const GpuAttentionPlan &p;
  const GpuAttentionLayout &l;
  const AttentionBuffers &buf;
  Type f16;
  gpu::MMAMatrixType aType, bType, cType;
  int64_t lanesPerRow;
  Value qBlock, head, batch, threadId, subgroup, lane, myRow, myPart;
  Value rowStart, numRows, kvHead, row;
  Value kvStage, sStage, pStage, alphaStage, sBase, pBase, alphaBase;
  int64_t qS, kS, vS, vOffset;
  SmallVector<Value> qTiles;
  /// How many of the prefetched values are K's.
  size_t numKeyValues = 0;
};

} // namespace

void mlir::ejk::buildGpuCoopAttentionBody(OpBuilder &b, Location loc,
                                          const GpuAttentionPlan &plan,
                                          const AttentionBuffers &buffers) {
  CoopAttentionBuilder(b, loc, plan, buffers).build();
}
