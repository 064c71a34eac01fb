//===- CoopRowBlocks.cpp - query blocks in turn ---------------------------===//
//
// The cooperative attention kernel's form with several query blocks a
// workgroup (VulkanAttentionLayout::rowBlocks > 1, register softmax, dense;
// CoopKernel.cpp has the key-block loop it runs): workgroup w of G along x
// runs query blocks w, w + G, ... one after the other, with one K/V
// pipeline: the prefetch in a turn's last key block loads the next turn's
// first block, and the next turn's Q rows are loaded before this turn's last
// P V and output, so their latency hides behind them (H200, same call:
// gfa-d128 0.527 -> 0.516-0.520 ms at two a workgroup, gfa-long 1.93 ->
// 1.90; the profile put ~42 us of gfa-d128 in a workgroup's work outside its
// key loop, docs/performance-vulkan-attention.md).
//
//===----------------------------------------------------------------------===//
#include "Attention/Vulkan/CoopBuilder.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::detail;

void CoopAttentionBuilder::setRowBlock(Value block) {
  qBlock = block;
  rowStart = e.mul(qBlock, e.index(l.blockQ));
  Value rowsLeft = e.sub(e.index(p.seqQ), rowStart);
  numRows = e.min(e.index(l.blockQ), rowsLeft);
  Value firstTile = e.mul(subgroup, e.index(l.rowTiles));
  tileFirstRows.clear();
  tileRows.clear();
  for (int64_t m = 0; m < l.rowTiles; ++m) {
    Value tileSize = e.index(kTile);
    Value tile = e.add(firstTile, e.index(m));
    Value tileRow0 = e.add(rowStart, e.mul(tile, tileSize));
    tileFirstRows.push_back(tileRow0);
    Value lower = e.add(tileRow0, myRow);
    Value half = e.add(myRow, e.index(kTile / 2));
    Value upper = e.add(tileRow0, half);
    tileRows.push_back({lower, upper});
  }
  rows = tileRows.front();
}

void CoopAttentionBuilder::buildRowBlocks() {
  // Workgroup w takes query blocks w, w + G, w + 2G, ... (G workgroups
  // along x): the workgroups that run at once cover few heads, as one
  // block a workgroup did.
  Value group = WorkgroupIdOp::create(e.b, 0);
  head = WorkgroupIdOp::create(e.b, 1);
  batch = WorkgroupIdOp::create(e.b, 2);
  threadId = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  subgroup = arith::DivUIOp::create(e.b, threadId, e.index(l.subgroupSize));
  lane = arith::RemUIOp::create(e.b, threadId, e.index(l.subgroupSize));
  kvHead = e.div(head, e.index(p.numHeads / p.numKvHeads));
  myRow = arith::DivUIOp::create(e.b, lane, e.index(4));
  myPart = arith::RemUIOp::create(e.b, lane, e.index(4));
  int64_t groups = p.grid()[0];
  int64_t qBlocks = p.queryBlocks();
  // Turns of this workgroup: blocks w + r G below qBlocks.
  Value groupCount = e.index(groups);
  Value left = e.sub(e.index(qBlocks + groups - 1), group);
  Value turns = e.div(left, groupCount);
  Value lastTurn = e.sub(turns, e.index(1));
  auto blockOf = [&](Value r) {
    Value base = e.mul(r, groupCount);
    return e.add(base, group);
  };

  qView = wordView(e, buf.query, kPerVector);
  kView = wordView(e, buf.key, kPerVector);
  vView = wordView(e, buf.value, kPerVector);
  if (stagedOutput)
    oView = wordView(e, buf.output, kPerVector);
  kvStage = allocWorkgroup(
      e, l.kvStageElements(p.headDim, p.headDimV) / kPerVector, vecType);
  probeC = allocWorkgroup(e, kTile * kTile);
  probeA = allocWorkgroup(e, kTile * kTile, f16);
  qS = l.rowStride(p.headDim);
  kS = l.rowStride(p.headDim);
  vS = l.rowStride(p.headDimV);
  vOffset = l.blockK * kS;
  kvBuffer = l.kvBufferElements(p.headDim, p.headDimV);

  VulkanScoreRules rules(e, p, buf, batch, head);
  // The first turn's first key block, then its Q rows.
  setRowBlock(blockOf(e.index(0)));
  Value lo, hi;
  rules.keyBlockRange(rowStart, numRows, l.blockK, lo, hi);
  SmallVector<Value> carried = loadKeyBlock(lo, /*firstBlock=*/true);
  size_t numAhead = carried.size();
  if (!qFromBuffer)
    carried.append(loadVectorRows(qView, p.seqQ, p.numHeads, head, rowStart,
                                  l.blockQ, p.headDim));
  writeLayoutProbe();
  gpu::BarrierOp::create(e.b);
  layoutHolds = readLayoutProbe();
  Value m0 = e.negInf(), l0 = e.constF32(0.0f);
  if (p.hasSinks()) {
    SinkStats sinks = sinkStats(e, p, buf.softmaxAux, head);
    m0 = e.fmul(sinks.max, e.constF32(kLog2E));
    Value zeroF = e.constF32(0.0f);
    Value firstLane = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq,
                                            myPart, e.index(0));
    l0 = e.select(firstLane, sinks.sum, zeroF);
  }
  int64_t outTiles = p.headDimV / kTile;
  // One op per statement: the order of argument evaluation differs between
  // compilers, and the IR must not.
  Value firstTurn = e.index(0);
  Value turnStep = e.index(1);
  e.forLoop(
      firstTurn, turns, turnStep, carried,
      [&](Value r, ValueRange turn) -> SmallVector<Value> {
        setRowBlock(blockOf(r));
        Value firstTile = e.mul(subgroup, e.index(l.rowTiles));
        qTiles.clear();
        if (qFromBuffer) {
          loadQTilesFromBuffer();
        } else {
          storeVectorRows(SmallVector<Value>(turn.drop_front(numAhead)),
                          l.blockQ, p.headDim, qS, Value(), 0);
          gpu::BarrierOp::create(e.b);
          loadQTilesFromStage(firstTile);
          // K and V overwrite the staged Q.
          gpu::BarrierOp::create(e.b);
        }
        Value blockLo, blockHi;
        rules.keyBlockRange(rowStart, numRows, l.blockK, blockLo, blockHi);
        // The next turn's first key block (the last turn's: its own).
        Value nextTurn = e.min(e.add(r, e.index(1)), lastTurn);
        Value nextBlock = blockOf(nextTurn);
        Value nextStart = e.mul(nextBlock, e.index(l.blockQ));
        Value nextLeft = e.sub(e.index(p.seqQ), nextStart);
        Value nextRows = e.min(e.index(l.blockQ), nextLeft);
        Value nextLo, nextHi;
        rules.keyBlockRange(nextStart, nextRows, l.blockK, nextLo, nextHi);

        SmallVector<Value> inits;
        Value zeroTile = gpu::SubgroupMmaConstantMatrixOp::create(
            e.b, cType, e.constF32(0.0f));
        for (int64_t m = 0; m < l.rowTiles; ++m) {
          for (int64_t n = 0; n < outTiles; ++n)
            inits.push_back(zeroTile);
          for (size_t i = 0; i < rows.size(); ++i)
            inits.push_back(m0);
          for (size_t i = 0; i < rows.size(); ++i)
            inits.push_back(l0);
          if (pipelined)
            inits.append(l.blockK / kTile, zeroOperand());
        }
        // The first block's V rows (pipelined): zeros, as P of no block.
        SmallVector<Value> ahead(turn.take_front(numAhead));
        if (pipelined) {
          SmallVector<Value> zeros = zeroValues();
          for (size_t i = 0; i < zeros.size(); ++i)
            ahead[numKeyValues + i] = zeros[i];
        }
        if (l.kvStages == 2) {
          storeKeyBlock(ahead, e.index(0));
          ahead = loadKeyBlock(e.add(blockLo, e.index(1)));
          gpu::BarrierOp::create(e.b);
        } else {
          wrapTo = nextLo;
          loopHi = blockHi;
        }
        inits.append(ahead);
        bool twoBlocks = l.rowTiles == 1;
        SmallVector<Value> state =
            twoBlocks ? twoBlockLoop(rules, blockLo, blockHi, inits)
                      : e.forLoop(blockLo, blockHi, e.index(1), inits,
                                  [&](Value kb, ValueRange s) {
                                    return keyBlock(rules, kb, blockLo, s);
                                  });
        wrapTo = Value();
        loopHi = Value();
        int64_t perTile = tileStateSize();
        // The next turn's first key block and Q rows, in flight during
        // this turn's last products and output.
        SmallVector<Value> next;
        SmallVector<Value> loaded(
            ArrayRef<Value>(state).drop_front(l.rowTiles * perTile));
        if (l.kvStages == 2) {
          // No pipeline across turns: the next turn's first block.
          next = loadKeyBlock(nextLo, /*firstBlock=*/true);
        } else {
          // A turn without key blocks (masks, lengths) prefetched nothing:
          // the next turn's first block is loaded here.
          Value ran = arith::CmpIOp::create(e.b, arith::CmpIPredicate::ult,
                                            blockLo, blockHi);
          SmallVector<Type> types;
          for (Value value : loaded)
            types.push_back(value.getType());
          next = e.ifElse(
              ran, types, [&]() -> SmallVector<Value> { return loaded; },
              [&]() -> SmallVector<Value> {
                return loadKeyBlock(nextLo, /*firstBlock=*/true);
              });
        }
        if (!qFromBuffer)
          next.append(loadVectorRows(qView, p.seqQ, p.numHeads, head, nextStart,
                                     l.blockQ, p.headDim));
        if (pipelined)
          lastProducts(state, blockLo, blockHi);
        if (stagedOutput) {
          finalizeThroughOutputStage(state);
        } else {
          for (int64_t m = 0; m < l.rowTiles; ++m) {
            rows = tileRows[m];
            finalizeInRegisters(
                ArrayRef<Value>(state).slice(m * perTile, perTile));
          }
        }
        // The next turn stores into the stage this turn's output read.
        gpu::BarrierOp::create(e.b);
        return next;
      });
}
