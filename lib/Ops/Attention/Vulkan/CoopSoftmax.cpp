//===- CoopSoftmax.cpp - softmax of the cooperative attention kernel ------===//
//
// The online softmax of CoopKernel.cpp's key blocks and its epilogue, in
// both forms (VulkanAttentionLayout::registerSoftmax): on the matrices'
// own elements where the device lays them out as NVIDIA's mma.sync
// fragments (checked by a layout probe at the start of every workgroup),
// else through per-subgroup stages in shared memory.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/CoopBuilder.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::detail;

void CoopAttentionBuilder::rowUpdate(Value oldMax, Value blockMax, Value &mNew,
                                     Value &shift, Value &alpha, bool log2) {
  mNew = e.fmaxNoNaN(oldMax, blockMax);
  Value isEmpty =
      arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, mNew, e.negInf());
  shift = e.select(isEmpty, e.constF32(0.0f), mNew);
  Value diff = e.fsub(oldMax, shift);
  alpha = log2 ? math::Exp2Op::create(e.b, diff).getResult() : e.exp(diff);
}

void CoopAttentionBuilder::writeLayoutProbe() {
  for (int64_t base = 0; base < kTile * kTile; base += l.threads) {
    Value idx = e.add(threadId, e.index(base));
    Value inRange = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, idx,
                                          e.index(kTile * kTile));
    auto ifOp = scf::IfOp::create(e.b, inRange, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifOp.thenBlock());
    Value value = arith::UIToFPOp::create(
        e.b, e.f32, arith::IndexCastUIOp::create(e.b, e.b.getI32Type(), idx));
    memref::StoreOp::create(e.b, value, probeC, ValueRange{idx});
    memref::StoreOp::create(e.b, operandBits(e, value, inputType), probeA,
                            ValueRange{idx});
  }
}

Value CoopAttentionBuilder::readLayoutProbe() {
  Value c =
      loadMatrix(e, cType, probeC, e.index(0), kTile, /*transpose=*/false);
  Value a =
      loadMatrix(e, aType, probeA, e.index(0), kTile, /*transpose=*/false);
  // The staged output inserts f16 (bf16 bits) into accumulators: their
  // order is checked too.
  Value half;
  if (stagedOutput)
    half = loadMatrix(e, gpu::MMAMatrixType::get({kTile, kTile}, f16, "COp"),
                      probeA, e.index(0), kTile, /*transpose=*/false);
  Value holds = e.constF32(1.0f);
  for (int64_t i = 0; i < kLaneElements; ++i) {
    Value row = e.add(myRow, e.index(kTile / 2 * rowHalfOf(i)));
    // One op per statement (here and below): the order of argument
    // evaluation differs between compilers, and the IR must not.
    Value column = columnOf(i);
    Value rowOffset = e.mul(row, e.index(kTile));
    Value expected = arith::UIToFPOp::create(
        e.b, e.f32,
        arith::IndexCastUIOp::create(e.b, e.b.getI32Type(),
                                     e.add(rowOffset, column)));
    for (Value element : {Value(gpu::SubgroupMmaExtractThreadLocalOp::create(
                              e.b, e.f32, c, e.index(i))),
                          e.toF32(gpu::SubgroupMmaExtractThreadLocalOp::create(
                              e.b, f16, a, e.index(i)))}) {
      Value same = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ,
                                         element, expected);
      holds = e.select(same, holds, e.constF32(0.0f));
    }
    if (!half)
      continue;
    Value raw = gpu::SubgroupMmaExtractThreadLocalOp::create(e.b, f16, half,
                                                             e.index(i));
    // bf16 inputs: the accumulator holds bf16 bits typed f16.
    if (inputType.isBF16())
      raw = arith::BitcastOp::create(e.b, e.b.getBF16Type(), raw);
    Value element = e.toF32(raw);
    Value same = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, element,
                                       expected);
    holds = e.select(same, holds, e.constF32(0.0f));
  }
  // min over the subgroup (max of the negation).
  Value negated = reduceRow(e.fsub(e.constF32(0.0f), holds), /*isMax=*/true,
                            l.subgroupSize);
  return arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, negated,
                               e.constF32(-1.0f));
}

void CoopAttentionBuilder::softmaxInRegisters(
    VulkanScoreRules &rules, Value keyStart, ArrayRef<Value> scores,
    ArrayRef<Value> state, SmallVector<Value> &pTiles, Value &alphaTile,
    SmallVector<Value> &next) {
  int64_t outTiles = p.headDimV / kTile;
  int64_t keyTiles = scores.size();
  // u[j][i]: the logits, or with plain logits the raw scores (masked), of
  // which exp2(u * c - m) gives the probabilities, m in log2 units: the
  // scale (and log2 e) folded into one multiply-add, as FlashAttention-2.
  bool plain = rules.plainLogits();
  double factor = plain ? p.softmaxScale * kLog2E : kLog2E;
  Value c = e.constF32(static_cast<float>(factor));
  SmallVector<Value> raw;
  for (int64_t j = 0; j < keyTiles; ++j)
    for (int64_t i = 0; i < kLaneElements; ++i)
      raw.push_back(gpu::SubgroupMmaExtractThreadLocalOp::create(
          e.b, e.f32, scores[j], e.index(i)));
  // The key of element k, emitted where it is used: computed ahead for
  // all elements, the keys stayed live across the block test (gfa-d64
  // causal at 128 x 128 x 8 took 1.6x as long; H200).
  auto keyOf = [&](int64_t k) {
    // One op per statement: the order of argument evaluation differs
    // between compilers, and the IR must not.
    Value column = columnOf(k % kLaneElements);
    Value tileKey = e.index(k / kLaneElements * kTile);
    Value inBlock = e.add(tileKey, column);
    return e.add(keyStart, inBlock);
  };
  auto emitMasked = [&](bool masks) {
    SmallVector<Value> u;
    for (auto [k, s] : llvm::enumerate(raw)) {
      Value row = rows[rowHalfOf(k % kLaneElements)];
      u.push_back(!plain  ? rules.logit(s, row, keyOf(k))
                  : masks ? rules.maskScore(s, row, keyOf(k))
                          : s);
    }
    return u;
  };
  // Plain logits: blocks that every row of this tile may see whole (all
  // but the diagonal ones when causal) skip the per-element masks; for
  // block-sparse attention the listed blocks too, as its block mask is
  // whole blocks and the list already applied it.
  Value whole;
  if (plain)
    whole = rules.wholeBlock(keyStart, l.blockK, tileFirstRow);
  SmallVector<Value> u;
  if (whole && matchPattern(whole, m_One())) {
    u = emitMasked(false);
  } else if (whole) {
    auto ifWhole = scf::IfOp::create(e.b, SmallVector<Type>(raw.size(), e.f32),
                                     whole, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifWhole.thenBlock());
      scf::YieldOp::create(e.b, raw);
      e.b.setInsertionPointToStart(ifWhole.elseBlock());
      scf::YieldOp::create(e.b, emitMasked(true));
    }
    u.assign(ifWhole.getResults().begin(), ifWhole.getResults().end());
  } else {
    u = emitMasked(true);
  }
  // Each row's block max over this lane's elements.
  Value blockMax[2] = {e.negInf(), e.negInf()};
  for (auto [k, value] : llvm::enumerate(u)) {
    int64_t r = rowHalfOf(k % kLaneElements);
    blockMax[r] = e.fmaxNoNaN(blockMax[r], value);
  }
  Value shift[2], alpha[2], sum[2], rowHash[2], negShift[2];
  SmallVector<Value> mNew(2);
  // The four lanes of a row are neighbours (lane % 4).
  Value rowMax[2];
  rescale = Value();
  if (lazyRescale) {
    for (int r = 0; r < 2; ++r)
      rowMax[r] = e.fmul(reduceRow(blockMax[r], /*isMax=*/true, 4), c);
    // A row keeps its max unless its block max grew past it by more than
    // the threshold (log2 units): its probabilities stay below
    // 2^threshold and its O and l stay relative to the same max (alpha is
    // exactly 1), so the result is exact. Each row decides alone, so the
    // exponentials wait for its own two shuffles only; the subgroup's vote
    // (three more) decides whether O's tiles are multiplied by alpha at all
    // (a subgroup-uniform branch). H100, same call: gfa-d64 0.543 -> 0.520
    // ms, gfa-long 1.963 -> 1.945, gfa-d128 0.535 -> 0.533, and the driver
    // no longer spills in gfa-d128 (docs/performance-vulkan-attention.md).
    Value grows = e.constF32(0.0f);
    Value past[2];
    for (int r = 0; r < 2; ++r) {
      Value bound = e.fadd(state[outTiles + r], e.constF32(kLazyThreshold));
      past[r] = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, rowMax[r],
                                      bound);
      Value one = e.constF32(1.0f);
      grows = e.select(past[r], one, grows);
    }
    // The four lanes of a row agree: combine the rows of the subgroup.
    for (int64_t offset = l.subgroupSize / 2; offset >= 4; offset /= 2) {
      Value width = e.constI32(l.subgroupSize);
      Value distance = e.constI32(offset);
      auto shuffle = gpu::ShuffleOp::create(e.b, grows, distance, width,
                                            gpu::ShuffleMode::XOR);
      grows = e.fmaxNoNaN(grows, shuffle.getShuffleResult());
    }
    rescale = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, grows,
                                    e.constF32(0.5f));
    for (int r = 0; r < 2; ++r)
      rowMax[r] = e.select(past[r], rowMax[r], state[outTiles + r]);
  }
  for (int r = 0; r < 2; ++r) {
    if (!lazyRescale)
      rowMax[r] = e.fmul(reduceRow(blockMax[r], /*isMax=*/true, 4), c);
    // lazyRescale: a row that kept its max gets alpha = exp2(0) = 1 (or 0
    // with nothing seen yet, where O and l are 0 too).
    rowUpdate(state[outTiles + r], rowMax[r], mNew[r], shift[r], alpha[r],
              /*log2=*/true);
    negShift[r] = e.fsub(e.constF32(0.0f), shift[r]);
    sum[r] = e.constF32(0.0f);
    rowHash[r] = rules.dropoutRowHash(rows[r]);
  }
  Value zeroA = gpu::SubgroupMmaConstantMatrixOp::create(
      e.b, aType, arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f)));
  for (int64_t j = 0; j < keyTiles; ++j) {
    Value tile = zeroA;
    for (int64_t i = 0; i < kLaneElements; ++i) {
      int64_t r = rowHalfOf(i);
      Value prob =
          math::FmaOp::create(e.b, u[j * kLaneElements + i], c, negShift[r]);
      prob = math::Exp2Op::create(e.b, prob);
      sum[r] = e.fadd(sum[r], prob);
      if (p.dropoutProb)
        prob = rules.dropout(prob, rowHash[r], keyOf(j * kLaneElements + i));
      Value at = e.index(i);
      Value half = e.fromF32(prob, f16);
      tile = gpu::SubgroupMmaInsertThreadLocalOp::create(e.b, aType, half, tile,
                                                         at);
    }
    pTiles.push_back(tile);
  }
  alphaTile =
      gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
  for (int64_t i = 0; i < kLaneElements; ++i) {
    Value at = e.index(i);
    alphaTile = gpu::SubgroupMmaInsertThreadLocalOp::create(
        e.b, cType, alpha[rowHalfOf(i)], alphaTile, at);
  }
  // l stays this lane's share of its rows' sums until the end.
  next = {mNew[0], mNew[1],
          e.fadd(e.fmul(state[outTiles + 2], alpha[0]), sum[0]),
          e.fadd(e.fmul(state[outTiles + 3], alpha[1]), sum[1])};
}

void CoopAttentionBuilder::finalizeInRegisters(ArrayRef<Value> state) {
  int64_t outTiles = p.headDimV / kTile;
  Type outType = cast<MemRefType>(buf.output.getType()).getElementType();
  Value nan = e.constF32(std::numeric_limits<float>::quiet_NaN());
  for (int r = 0; r < 2; ++r) {
    Value sum = reduceRow(state[outTiles + 2 + r], /*isMax=*/false, 4);
    Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                           e.constF32(0.0f));
    // normalize_output = false: O as it is, relative to the row max. One
    // op per statement (here and below): the order of argument evaluation
    // differs between compilers, and the IR must not.
    Value inv;
    if (p.normalizeOutput) {
      Value zeroF = e.constF32(0.0f);
      Value reciprocal = e.fdiv(e.constF32(1.0f), sum);
      inv = e.select(positive, reciprocal, zeroF);
    } else {
      inv = e.constF32(1.0f);
    }
    inv = e.select(layoutHolds, inv, nan);
    Value rowValid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                           rows[r], e.index(p.seqQ));
    auto ifRow = scf::IfOp::create(e.b, rowValid, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifRow.thenBlock());
    for (int64_t n = 0; n < outTiles; ++n)
      for (int64_t i = 0; i < kLaneElements; ++i) {
        if (rowHalfOf(i) != r)
          continue;
        Value o = gpu::SubgroupMmaExtractThreadLocalOp::create(
            e.b, e.f32, state[n], e.index(i));
        Value tileColumn = e.index(n * kTile);
        Value column = columnOf(i);
        Value at = e.add(column, tileColumn);
        Value scaled = e.fmul(o, inv);
        Value value = e.fromF32(scaled, outType);
        memref::StoreOp::create(e.b, value, buf.output,
                                ValueRange{batch, rows[r], head, at});
      }
    if (!buf.lse)
      continue;
    Value first = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, myPart,
                                        e.index(0));
    auto ifFirst = scf::IfOp::create(e.b, first, /*withElse=*/false);
    e.b.setInsertionPointToStart(ifFirst.thenBlock());
    // m is in log2 units.
    Value logSum = math::LogOp::create(e.b, sum);
    Value lse = e.fadd(e.fmul(state[outTiles + r], e.constF32(kLn2)), logSum);
    lse = e.select(positive, lse, e.negInf());
    memref::StoreOp::create(e.b, e.select(layoutHolds, lse, nan), buf.lse,
                            ValueRange{batch, head, rows[r]});
  }
}

void CoopAttentionBuilder::softmaxThroughStage(
    VulkanScoreRules &rules, Value keyStart, ArrayRef<Value> scores,
    ArrayRef<Value> state, SmallVector<Value> &pTiles, Value &alphaTile,
    SmallVector<Value> &next) {
  int64_t outTiles = p.headDimV / kTile;
  int64_t keyTiles = scores.size();
  Value row = rows[0];
  for (int64_t j = 0; j < keyTiles; ++j)
    store(scores[j], sStage, e.add(sBase, e.index(j * kTile)), l.sStride());
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
    blockMax = e.fmaxNoNaN(blockMax, logits.back());
  }
  blockMax = reduceRow(blockMax, /*isMax=*/true, lanesPerRow);
  Value mNew, shift, alpha;
  rowUpdate(state[outTiles], blockMax, mNew, shift, alpha);
  Value rowHash = rules.dropoutRowHash(row);
  Value sum = e.constF32(0.0f);
  for (int64_t j = 0; j < keysPerLane; ++j) {
    Value col = e.add(myPart, e.index(j * lanesPerRow));
    Value prob = e.exp(e.fsub(logits[j], shift));
    sum = e.fadd(sum, prob);
    prob = rules.dropout(prob, rowHash, e.add(keyStart, col));
    // One op per statement: the order of argument evaluation differs
    // between compilers, and the IR must not.
    Value rowOffset = e.mul(myRow, e.index(l.pStride()));
    Value at = e.add(pBase, e.add(rowOffset, col));
    Value bits = operandBits(e, prob, inputType);
    memref::StoreOp::create(e.b, bits, pStage, ValueRange{at});
  }
  sum = reduceRow(sum, /*isMax=*/false, lanesPerRow);
  Value lNew = e.fadd(e.fmul(state[outTiles + 1], alpha), sum);
  for (int64_t c = 0; c < kTile / lanesPerRow; ++c) {
    Value col = e.add(myPart, e.index(c * lanesPerRow));
    memref::StoreOp::create(
        e.b, alpha, alphaStage,
        ValueRange{e.add(alphaBase,
                         e.add(e.mul(myRow, e.index(l.alphaStride())), col))});
  }
  gpu::BarrierOp::create(e.b);
  alphaTile = loadMatrix(e, cType, alphaStage, alphaBase, l.alphaStride(),
                         /*transpose=*/false);
  for (int64_t j = 0; j < keyTiles; ++j)
    pTiles.push_back(loadMatrix(e, aType, pStage,
                                e.add(pBase, e.index(j * kTile)), l.pStride(),
                                /*transpose=*/false));
  next = {mNew, lNew};
}

void CoopAttentionBuilder::finalizeThroughStage(ArrayRef<Value> state) {
  int64_t outTiles = p.headDimV / kTile;
  Value row = rows[0];
  Value sum = state[outTiles + 1];
  Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                         e.constF32(0.0f));
  // One op per statement (here and below): the order of argument
  // evaluation differs between compilers, and the IR must not.
  Value inv;
  if (p.normalizeOutput) {
    Value zeroF = e.constF32(0.0f);
    Value reciprocal = e.fdiv(e.constF32(1.0f), sum);
    inv = e.select(positive, reciprocal, zeroF);
  } else {
    inv = e.constF32(1.0f);
  }
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
            ValueRange{
                e.add(sBase, e.add(e.mul(myRow, e.index(l.sStride())), col))});
        Value at = e.add(col, e.index(n * kTile));
        Value scaled = e.fmul(o, inv);
        Value value = e.fromF32(scaled, outType);
        memref::StoreOp::create(e.b, value, buf.output,
                                ValueRange{batch, row, head, at});
      }
    }
    gpu::BarrierOp::create(e.b);
  }
  if (!buf.lse)
    return;
  Value first =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, myPart, e.index(0));
  auto ifFirst = scf::IfOp::create(
      e.b, arith::AndIOp::create(e.b, first, rowValid), /*withElse=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPointToStart(ifFirst.thenBlock());
  Value lse = e.fadd(state[outTiles], math::LogOp::create(e.b, sum));
  memref::StoreOp::create(e.b, e.select(positive, lse, e.negInf()), buf.lse,
                          ValueRange{batch, head, row});
}

void CoopAttentionBuilder::finalizeThroughOutputStage(ArrayRef<Value> state) {
  int64_t outTiles = p.headDimV / kTile;
  int64_t perTile = tileStateSize();
  int64_t oS = l.rowStride(p.headDimV);
  auto halfAcc = gpu::MMAMatrixType::get({kTile, kTile}, f16, "COp");
  Value nan = e.constF32(std::numeric_limits<float>::quiet_NaN());
  // Pipelined, the last products read V from the stage.
  if (pipelined)
    gpu::BarrierOp::create(e.b);
  Value firstTile = e.mul(subgroup, e.index(l.rowTiles));
  for (int64_t m = 0; m < l.rowTiles; ++m) {
    rows = tileRows[m];
    ArrayRef<Value> tile = state.slice(m * perTile, perTile);
    Value inv[2];
    for (int r = 0; r < 2; ++r) {
      Value sum = reduceRow(tile[outTiles + 2 + r], /*isMax=*/false, 4);
      Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                             sum, e.constF32(0.0f));
      // One op per statement (here and below): the order of argument
      // evaluation differs between compilers, and the IR must not.
      if (p.normalizeOutput) {
        Value zeroF = e.constF32(0.0f);
        Value reciprocal = e.fdiv(e.constF32(1.0f), sum);
        inv[r] = e.select(positive, reciprocal, zeroF);
      } else {
        inv[r] = e.constF32(1.0f);
      }
      inv[r] = e.select(layoutHolds, inv[r], nan);
      if (!buf.lse)
        continue;
      Value rowValid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                             rows[r], e.index(p.seqQ));
      Value first = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, myPart,
                                          e.index(0));
      auto ifFirst =
          scf::IfOp::create(e.b, arith::AndIOp::create(e.b, rowValid, first),
                            /*withElse=*/false);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifFirst.thenBlock());
      Value logSum = math::LogOp::create(e.b, sum);
      Value lse = e.fadd(e.fmul(tile[outTiles + r], e.constF32(kLn2)), logSum);
      lse = e.select(positive, lse, e.negInf());
      memref::StoreOp::create(e.b, e.select(layoutHolds, lse, nan), buf.lse,
                              ValueRange{batch, head, rows[r]});
    }
    Value tileWords = e.index(kTile * oS / kPerVector);
    Value tileBase = e.mul(e.add(firstTile, e.index(m)), tileWords);
    for (int64_t n = 0; n < outTiles; ++n) {
      Value half = gpu::SubgroupMmaConstantMatrixOp::create(
          e.b, halfAcc,
          arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f)));
      for (int64_t i = 0; i < kLaneElements; ++i) {
        Value o = gpu::SubgroupMmaExtractThreadLocalOp::create(
            e.b, e.f32, tile[n], e.index(i));
        Value scaled = e.fmul(o, inv[rowHalfOf(i)]);
        Value lane = e.index(i);
        Value bits = operandBits(e, scaled, inputType);
        half = gpu::SubgroupMmaInsertThreadLocalOp::create(e.b, halfAcc, bits,
                                                           half, lane);
      }
      store(half, kvStage, e.add(tileBase, e.index(n * kTile / kPerVector)),
            oS / kPerVector);
    }
  }
  gpu::BarrierOp::create(e.b);
  // The block's rows in 16-byte words, row after row.
  int64_t width = p.headDimV / kPerVector;
  forGuardedShare(
      e, l.threads, threadId, l.blockQ * width, width,
      [&](int64_t, Value r, Value c) {
        Value row = e.add(rowStart, r);
        auto write = [&] {
          Value staged = e.add(e.mul(r, e.index(oS / kPerVector)), c);
          Value word = memref::LoadOp::create(e.b, kvStage, ValueRange{staged});
          Value token = e.add(e.mul(batch, e.index(p.seqQ)), row);
          Value tokenHead = e.add(e.mul(token, e.index(p.numHeads)), head);
          Value at = e.add(e.mul(tokenHead, e.index(width)), c);
          memref::StoreOp::create(e.b, word, oView, ValueRange{at});
        };
        if (p.seqQ % l.blockQ == 0) {
          write();
          return;
        }
        Value valid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, row,
                                            e.index(p.seqQ));
        auto ifRow = scf::IfOp::create(e.b, valid, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(ifRow.thenBlock());
        write();
      });
}
